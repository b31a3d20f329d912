"""One digest over every peer's log of 32 in-process games: a change that keeps it keeps the bytes.

Whole peers (lobby, session, links, bots) play on the virtual clock of benchlib's
DirectTable: the five engines and the two bench engines, two seeds each, at 0 and 10 ms of
latency.  Every message, state hash and step of every peer is in its log, so a
performance change to the session or an engine that prints the same TOTAL run in the old
tree's root and in the new tree's (``python -m scripts.bench.same_logs``: ``python -m``
imports the lanTag of the folder it runs in) changed no byte any peer sent or logged in
these games.  About a minute.
"""

from __future__ import annotations

import hashlib

from scripts.bench import benchlib as bl

GAMES: tuple[tuple[str, int, tuple[tuple[str, int | bool | str], ...]], ...] = (
    ("prototag", 4, ()),
    ("assassination", 4, ()),
    ("boardtag", 4, ()),
    ("tagem", 3, (("max_turns", 4),)),
    ("stomptag", 8, (("max_rounds", 6),)),
    ("stomptag", 16, (("max_rounds", 3),)),
    ("benchsecret", 6, (("rounds", 20),)),
    ("benchdice", 5, (("rolls", 30),)),
)


def main() -> None:
    total = hashlib.sha256()
    for engine, peers, options in GAMES:
        for seed in (1, 2):
            for latency in (0.0, 0.01):
                table = bl.DirectTable(engine, peers, options=options, seed=seed, latency=latency)
                table.start()
                if not table.net.run_until(table.over, max_time=36_000):
                    raise SystemExit(f"{engine} seed {seed}: the game did not finish")
                game = hashlib.sha256()
                for log in table.logs:
                    game.update(hashlib.sha256(bytes(log)).digest())
                total.update(game.digest())
                print(
                    f"{engine:13s} {peers:2d} peers seed {seed} latency {latency:4.2f}  "
                    f"{sum(len(log) for log in table.logs):8d} log bytes  {game.hexdigest()[:16]}",
                    flush=True,
                )
    print("TOTAL", total.hexdigest())


if __name__ == "__main__":
    main()
