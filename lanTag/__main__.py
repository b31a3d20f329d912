"""``python -m lanTag`` is ``lantag``."""

import sys

from lanTag.cli.entry import main

sys.exit(main())
