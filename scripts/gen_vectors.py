"""Write lanTag's golden protocol vectors to protocol/vectors/ (deterministic).

    /work/venv/bin/python -m scripts.gen_vectors            # (re)write every vector file
    /work/venv/bin/python -m scripts.gen_vectors --check    # exit 1 if a file would change

Every input is derived from SHA-256 of a fixed label and Ed25519 signing is
deterministic, so two runs write the same bytes.  Byte strings are lower-case hex.
Values whose msgpack type matters are written in a typed form:
``["nil"]``, ``["bool", b]``, ``["int", "decimal"]`` (a string: JSON numbers lose
precision above 2**53), ``["str", s]``, ``["bin", hex]``, ``["array", [typed...]]``.

Files: wire.json, messages.json, commit.json, chain.json, draws.json, lobby.json,
evidence.json (pairs of signed messages that convict their seat), log.json
and the binary logs toy_game.log (valid) and toy_game.<variant>.log (must fail).  The log
part runs a 3-peer game of the test-only "toy" engine (tests/session/toygame.py) through
the simulated network of tests/session/harness.py.

This script writes and checks the files; the vectors come from its sibling modules:
vectors_messages.py (wire, messages, lobby), vectors_fair.py (commit, chain, draws),
vectors_log.py (the logs) and vectors_common.py (their shared helpers).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scripts.vectors_fair import chain_vectors, commit_vectors, draw_vectors
from scripts.vectors_log import log_vectors
from scripts.vectors_messages import (
    evidence_vectors,
    lobby_vectors,
    message_vectors,
    wire_vectors,
)

ROOT = Path(__file__).resolve().parents[1]

OUT = ROOT / "protocol" / "vectors"


# --------------------------------------------------------------------------- main

PURE: dict[str, Callable[[], dict[str, Any]]] = {
    "wire.json": wire_vectors,
    "messages.json": message_vectors,
    "commit.json": commit_vectors,
    "chain.json": chain_vectors,
    "draws.json": draw_vectors,
    "lobby.json": lobby_vectors,
    "evidence.json": evidence_vectors,
}


def dumps(obj: object) -> bytes:
    return (json.dumps(obj, indent=1, ensure_ascii=False) + "\n").encode()


def render() -> dict[str, bytes]:
    files = {name: dumps(make()) for name, make in PURE.items()}
    log_json, logs = log_vectors()
    files["log.json"] = dumps(log_json)
    files.update(logs)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.gen_vectors", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    files = render()
    if args.check:
        stale = [
            n
            for n, data in files.items()
            if not (OUT / n).is_file() or (OUT / n).read_bytes() != data
        ]
        for name in stale:
            print(f"stale: {name}")
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (OUT / name).write_bytes(data)
    total = sum(len(d) for d in files.values())
    print(f"wrote {len(files)} files, {total} bytes, to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
