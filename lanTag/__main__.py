"""``python -m lanTag`` is ``lantag``."""

import sys

from lanTag.cli import main

sys.exit(main())
