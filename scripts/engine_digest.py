"""One digest over every state and decision of N random games of an engine (lanTag.rules.digest).

Run it in the old tree's root and in the new tree's (``python -m`` imports the lanTag of
the folder it runs in; a tree from before scripts/ was a package: ``python
scripts/engine_digest.py`` there): the same digest means the engines agree, byte for
byte, on every state and decision those games reach (a rules refactor or fast path must
keep it).  The digest of DIGEST_GAMES games is the
one pinned per rules version in tests/rules/test_digest_pins.py.

    python -m scripts.engine_digest stomptag 150
    python -m scripts.engine_digest --all
"""

from __future__ import annotations

import argparse

from lanTag.rules.digest import DIGEST_GAMES, engine_digest
from lanTag.rules.registry import engine_ids, get_game


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.engine_digest", description=__doc__.splitlines()[0]
    )
    parser.add_argument("engine", nargs="?", help="engine id (or --all)")
    parser.add_argument("games", type=int, nargs="?", default=DIGEST_GAMES)
    parser.add_argument("--all", action="store_true", help="every engine, with its rules version")
    parser.add_argument(
        "--states-only", action="store_true", help="leave decisions out (the older digest)"
    )
    args = parser.parse_args()
    if args.all == bool(args.engine):
        parser.error("name one engine or give --all")
    for engine in engine_ids() if args.all else [args.engine]:
        version = get_game(engine).rules_version
        value = engine_digest(engine, args.games, with_decisions=not args.states_only)
        print(engine, f"rules {version}", args.games, value)


if __name__ == "__main__":
    main()
