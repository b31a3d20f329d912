"""Write a corpus of real signed logs, one per engine, with this tree's lanTag.

    .venv/bin/python -m scripts.write_corpus tests/corpus/protocol2

Each log is a short game of ``lantag play --headless`` (every bot a real peer on loopback,
so every seat signs), in a fresh identity directory.  The Prototag game is replayed until
it holds a secret (rps) round, so the corpus has one in a game with dice.  The logs are
checked with ``lantag verify`` (exit 0) before they are written.  Never rewrite a corpus of
an older protocol: those are an old release's output (tests/corpus/protocol1/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GAMES: dict[str, list[str]] = {
    "prototag": ["--bots", "1", "--option", "board_size=5", "--option", "end_steps=10"],
    "assassination": ["--bots", "2", "--option", "max_rounds=1"],
    "boardtag": ["--bots", "1", "--option", "max_rounds=2"],
    "stomptag": ["--bots", "2", "--option", "max_rounds=2"],
    "tagem": ["--bots", "1", "--option", "max_turns=2", "--option", "pawns=1"],
}
TRIES = 20


def _lantag(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lanTag", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _one(engine: str, out: Path, home: Path) -> dict[str, object]:
    env = dict(os.environ, XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"))
    log = home / f"{engine}.log"
    for _ in range(TRIES):
        log.unlink(missing_ok=True)
        args = ["play", "--headless", "--turn-timeout", "30", "--game", engine, "--log", str(log)]
        played = _lantag(env, *args, *GAMES[engine])
        if played.returncode != 0:
            raise SystemExit(f"{engine}: lantag play failed: {played.stderr.strip()}")
        checked = _lantag(env, "verify", "--json", str(log))
        if checked.returncode != 0:
            raise SystemExit(f"{engine}: the new log does not verify: {checked.stdout}")
        report = json.loads(checked.stdout)
        if engine != "prototag" or report["secrets_verified"] > 0:
            shutil.copyfile(log, out / f"{engine}.log")
            return report  # type: ignore[no-any-return]
    raise SystemExit(f"{engine}: no game with a secret round in {TRIES} tries")


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.write_corpus", description=__doc__.splitlines()[0]
    )
    parser.add_argument("out", help="directory to write <engine>.log into")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lantag-corpus-") as tmp:
        for engine in GAMES:
            r = _one(engine, out, Path(tmp))
            print(
                f"{engine}: protocol {r['protocol']} rules {r['rules_version']}, {r['steps']} "
                f"steps, {r['rolls_verified']} rolls, {r['secrets_verified']} secret rounds"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
