"""Vectors of the fairness primitives: commitments (commit.json), hash chains
(chain.json) and the shared dice/draw streams (draws.json).

Imported by scripts/gen_vectors.py (``python -m scripts.gen_vectors``).
"""

from __future__ import annotations

from typing import Any

from lanTag import wire
from lanTag.fair.commit import DOMAIN as COMMIT_DOMAIN
from lanTag.fair.commit import commitment
from lanTag.fair.draw import DOMAIN as DRAW_DOMAIN
from lanTag.fair.draw import DrawStream, draw_seed
from lanTag.fair.hash_chain import DOMAIN as CHAIN_DOMAIN
from lanTag.fair.hash_chain import HashChain, chain_step_ok
from lanTag.rules.base import Die, Draw, Pick, Shuffle
from lanTag.rules.playout import draw_values
from scripts.vectors_common import h

D6 = Die((1, 2, 3, 4, 5, 6))
PIECEPACK = Die((0, 1, 2, 3, 4, 5))


# --------------------------------------------------------------------------- (c) commitments

COMMIT_CASES: list[tuple[str, int, int, str, bytes]] = [
    ("guess action", 5, 0, "guess", wire.pack(["guess", 2])),
    ("empty purpose and value", 0, 1, "", b""),
    ("largest step and seat", 2**32 - 1, 65535, "bid", wire.pack(["bid", 7])),
    ("non-ascii purpose (length counts UTF-8 bytes)", 12, 3, "ordre ✓", b"\x01\x02"),
    ("255-byte purpose", 1, 2, "p" * 255, b"v" * 100),
]


def commit_vectors() -> dict[str, Any]:
    game = h("commit/game")
    cases: list[dict[str, Any]] = []
    for k, (name, step, seat, purpose, value) in enumerate(COMMIT_CASES):
        nonce = h(f"commit/nonce/{k}")
        cases.append(
            {
                "name": name,
                "game_id": game.hex(),
                "step": step,
                "seat": seat,
                "purpose": purpose,
                "nonce": nonce.hex(),
                "value": value.hex(),
                "commitment": commitment(game, step, seat, purpose, nonce, value).hex(),
            }
        )
    base = cases[0]
    changes: list[tuple[str, dict[str, Any]]] = [
        ("other game", {"game_id": h("commit/other-game").hex()}),
        ("next step", {"step": base["step"] + 1}),
        ("other seat", {"seat": 1}),
        ("other purpose", {"purpose": "guesS"}),
        ("other nonce", {"nonce": h("commit/other-nonce").hex()}),
        ("other value", {"value": wire.pack(["guess", 1]).hex()}),
        ("31-byte nonce", {"nonce": base["nonce"][:62]}),
        ("31-byte game id", {"game_id": base["game_id"][:62]}),
        ("256-byte purpose", {"purpose": "p" * 256}),
        ("step 2**32", {"step": 2**32}),
    ]
    return {
        "about": "c = SHA-256(domain || game_id || u32be step || u16be seat || u8 len(purpose) "
        "|| purpose (UTF-8) || nonce || value).  must_not_open: opens(base commitment, "
        "changed inputs) is False and does not raise.",
        "domain": COMMIT_DOMAIN.hex(),
        "cases": cases,
        "must_not_open": [
            {"name": name, "commitment": base["commitment"], "inputs": {**base, **change}}
            for name, change in changes
        ],
    }


# --------------------------------------------------------------------------- (d) hash chains


def chain_vectors() -> dict[str, Any]:
    cases = []
    for name, length, shown in (("short", 8, 8), ("toy game length", 256, 5), ("default", 4096, 5)):
        secret = h(f"chain/secret/{name}")
        chain = HashChain(secret, length)
        cases.append(
            {
                "name": name,
                "secret": secret.hex(),
                "length": length,
                "anchor": chain.anchor.hex(),
                "reveals": [chain.reveal(i).hex() for i in range(1, shown + 1)],
                "last_reveal": chain.reveal(length).hex(),
            }
        )
    short = HashChain(h("chain/secret/short"), 8)
    bad = [
        ("skipped link", short.anchor, short.reveal(2)),
        ("reused link", short.reveal(1), short.reveal(1)),
        ("backwards", short.reveal(2), short.anchor),
        ("forged", short.reveal(1), h("chain/forged")),
        ("31-byte reveal", short.anchor, short.reveal(1)[:31]),
    ]
    for name, previous, revealed in bad:
        assert not chain_step_ok(previous, revealed), name
    return {
        "about": "anchor = H^length(secret), H(x) = SHA-256(domain || x); reveal i (1-based) "
        "satisfies H(reveal i) == reveal i-1 (reveal 0 = anchor); the last reveal is the "
        "secret.  must_not_follow: chain_step_ok(previous, revealed) is False.",
        "domain": CHAIN_DOMAIN.hex(),
        "cases": cases,
        "must_not_follow": [
            {"name": name, "previous": p.hex(), "revealed": r.hex()} for name, p, r in bad
        ],
    }


# --------------------------------------------------------------------------- (e) draws

DRAW_KINDS: list[tuple[str, Draw]] = [
    ("d6", D6),
    ("piecepack", PIECEPACK),
    ("pick7", Pick(7)),
    ("shuffle5", Shuffle(5)),
]


def _sequence(seed: bytes, draw: Draw, count: int = 20) -> dict[str, Any]:
    stream = DrawStream(seed)
    values = [list(draw_values(draw, stream.below)) for _ in range(count)]
    flat: list[Any] = values if isinstance(draw, Shuffle) else [v[0] for v in values]
    return {"values": flat, "words_used": stream.words_used}


def draw_vectors() -> dict[str, Any]:
    chains = [HashChain(h(f"draws/chain/{s}"), 16) for s in range(3)]
    cases_in: list[tuple[str, bytes, int, str, list[tuple[int, bytes]]]] = [
        (
            "three seats, first reveals",
            h("draws/game"),
            0,
            "bonus",
            [(s, c.reveal(1)) for s, c in enumerate(chains)],
        ),
        (
            "reveals listed out of seat order",
            h("draws/game"),
            9,
            "die roll for p1",
            [(2, chains[2].reveal(2)), (0, chains[0].reveal(2)), (1, chains[1].reveal(2))],
        ),
        (
            "two seats (one dropped)",
            h("draws/game"),
            10,
            "bonus",
            [(0, chains[0].reveal(3)), (2, chains[2].reveal(3))],
        ),
        ("no reveals (replicated bot turn)", h("draws/game"), 3, "bot-turn/4", []),
        (
            "non-ascii purpose, large step",
            h("draws/other-game"),
            2**32 - 1,
            "tirage ✓",
            [(7, h("draws/loose/7")), (65535, h("draws/loose/65535"))],
        ),
    ]
    cases = []
    for name, game, step, purpose, reveals in cases_in:
        seed = draw_seed(game, step, purpose, reveals)
        stream = DrawStream(seed)
        awkward = [stream.below(2**31 + 1) for _ in range(10)]
        case: dict[str, Any] = {
            "name": name,
            "game_id": game.hex(),
            "step": step,
            "purpose": purpose,
            "reveals": [[seat, r.hex()] for seat, r in reveals],
            "seed": seed.hex(),
            "below_2_31_plus_1": {"values": awkward, "words_used": stream.words_used},
        }
        for kind, draw in DRAW_KINDS:
            case[kind] = _sequence(seed, draw)
        cases.append(case)
    return {
        "about": "seed = SHA-256(domain || game_id || u32be step || u8 len(purpose) || purpose "
        "|| for each reveal in ascending seat order: u16be seat || reveal).  Stream words: "
        "SHA-256(seed || u32be counter) blocks read 4 bytes at a time, big-endian.  below(n): "
        "mask a word to the bit length of n-1, reject values >= n.  Each sequence starts from "
        "a fresh stream on the seed: d6 = faces 1..6, piecepack = faces 0..5 (face = "
        "faces[below(6)]), pick7 = below(7), shuffle5 = Fisher-Yates (i from n-1 down to 1, "
        "j = below(i+1), swap), below_2_31_plus_1 = below(2**31 + 1) ten times.",
        "domain": DRAW_DOMAIN.hex(),
        "cases": cases,
    }
