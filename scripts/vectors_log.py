"""Vectors of the signed game log: a complete toy-game log (toy_game.log), its tampered
variants (toy_game.<variant>.log) and what verify_log must say of each (log.json).

The game is 3 peers of the test-only "toy" engine (tests/session/toygame.py) on the
simulated network of tests/session/harness.py.  Imported by scripts/gen_vectors.py.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from lanTag.log.entries import EntryKind, LogChain, parse_log
from lanTag.log.verify import VerifyReport, verify_log
from lanTag.rules.registry import register_engine
from lanTag.session.messages import MsgType, parse_unverified, sign_message

# --------------------------------------------------------------------------- (f) signed logs

LOG_ROUNDS = 2


def _play(seed: str, rounds: int) -> list[bytes]:
    from tests.session.harness import SimNet, make_record, make_sessions

    register_engine("toy", "tests.session.toygame", "Toy")
    record, ids, secrets = make_record("toy", 3, options=(("rounds", rounds),), seed=seed)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=1)
    net.run()
    if not net.all_over():
        raise RuntimeError("the toy game did not finish")
    return [s.take_log() for s in sessions]


def _items(data: bytes) -> list[tuple[int, EntryKind, Any]]:
    return [(e.step, e.kind, e.data) for e in parse_log(data).entries]


def _rechain(items: list[tuple[int, EntryKind, Any]]) -> bytes:
    chain = LogChain()
    for step, kind, data in items:
        chain.append(step, kind, data)
    return chain.take()


def _flip_last_byte(raw: bytes) -> bytes:
    return raw[:-1] + bytes([raw[-1] ^ 0x01])


def _find(items: list[tuple[int, EntryKind, Any]], pred: Callable[[Any], bool]) -> int:
    for i, (_, kind, data) in enumerate(items):
        if kind == EntryKind.MSG and pred(parse_unverified(data)):
            return i
    raise LookupError("no such message in the log")


def _bad_reveal(items: list[tuple[int, EntryKind, Any]]) -> tuple[bytes, int, int, int]:
    """Replace a REVEAL whose action is not the default by one that does not open."""
    from tests.session.harness import make_record

    _, ids, _ = make_record("toy", 3, options=(("rounds", LOG_ROUNDS),), seed="vectors/log")
    k = _find(items, lambda m: m.type == MsgType.REVEAL and m.payload[0] != ["guess", 0])
    msg = parse_unverified(items[k][2])
    action, nonce, *rest = msg.payload  # the chain link (and the vector, protocol 6)
    other = ["guess", (action[1] + 1) % 3]
    forged = sign_message(
        ids[msg.seat].signer(),
        MsgType.REVEAL,
        msg.game_id,
        msg.step,
        msg.seat,
        msg.state_hash,
        (other, nonce, *rest),
    )
    tampered = list(items)
    tampered[k] = (items[k][0], EntryKind.MSG, forged.raw)
    step_entry = next(
        i for i in range(k, len(items)) if items[i][1] == EntryKind.STEP and items[i][0] == msg.step
    )
    return _rechain(tampered), k, step_entry, msg.seat


def _variants(valid: bytes, foreign: bytes) -> list[dict[str, Any]]:
    items = _items(valid)
    raws = [e.raw for e in parse_log(valid).entries]
    out: list[dict[str, Any]] = []

    def add(name: str, data: bytes, how: str, entry: int, reason: str, **extra: Any) -> None:
        out.append(
            {
                "name": name,
                "data": data,
                "how": how,
                "failure_entry": entry,
                "reason_contains": reason,
                **extra,
            }
        )

    k = _find(items, lambda m: m.type == MsgType.MOVE)
    flipped = list(raws)
    flipped[k] = _flip_last_byte(raws[k])
    add(
        "flipped_byte",
        b"".join(flipped),
        f"last byte (inside the signature) of entry {k} flipped; the hash chain is NOT redone, "
        f"so entry {k + 1} no longer chains, but entry {k} itself is already refused",
        k,
        "does not verify",
    )

    resigned = list(items)
    resigned[k] = (items[k][0], EntryKind.MSG, _flip_last_byte(items[k][2]))
    add(
        "flipped_signature_rechained",
        _rechain(resigned),
        f"same flipped signature byte in entry {k}, hash chain redone: only the signature "
        "check catches it",
        k,
        "does not verify",
    )

    j = _find(items, lambda m: m.type == MsgType.COMMIT)
    swapped = [*raws[:j], raws[j + 1], raws[j], *raws[j + 2 :]]
    add(
        "reordered_pair",
        b"".join(swapped),
        f"entries {j} and {j + 1} swapped as they are (indices and hash links untouched)",
        j,
        "out of order",
    )

    s = next(i for i, (_, kind, _) in enumerate(items) if kind == EntryKind.STEP)
    early = [*items[: s - 1], items[s], items[s - 1], *items[s + 1 :]]
    add(
        "step_before_its_last_message",
        _rechain(early),
        f"STEP entry {s} moved before the message (entry {s - 1}) that completes it, hash "
        "chain redone",
        s - 1,
        "do not decide",
    )

    e = _find(items, lambda m: m.type == MsgType.ENTROPY and m.seat == 1)
    dropped = [*items[:e], *items[e + 1 :]]
    step_after = next(i for i in range(e, len(dropped)) if dropped[i][1] == EntryKind.STEP)
    add(
        "dropped_message_rechained",
        _rechain(dropped),
        f"the ENTROPY message of seat 1 (entry {e}) removed, hash chain redone: the next STEP "
        f"(now entry {step_after}) cannot be decided",
        step_after,
        "do not decide",
    )

    data, r, step_entry, seat = _bad_reveal(items)
    add(
        "bad_reveal",
        data,
        f"the REVEAL in entry {r} replaced by one correctly signed by seat {seat} whose action "
        "does not open its commitment (same nonce and chain link), hash chain redone: the "
        f"replay blames seat {seat} (bad-reveal), plays its forfeit, and the recorded "
        f"STEP (entry {step_entry}) no longer matches",
        step_entry,
        "differs",
        blames_include=[seat, "bad-reveal"],
    )

    f_items = _items(foreign)
    f = _find(f_items, lambda m: m.type == MsgType.ENTROPY)
    spliced = [*items[:2], f_items[f], *items[2:]]
    add(
        "spliced_foreign_entry",
        _rechain(spliced),
        f"a validly signed ENTROPY message from another game (its log entry {f}) inserted as "
        "entry 2, hash chain redone",
        2,
        "another game",
    )
    return out


def _without_rules(data: bytes, exit_code: int) -> VerifyReport:
    """verify_log with no engine registered (SPEC §9.2); RuntimeError unless it exits
    ``exit_code`` (1 invalid, 3 authentic but not replayed)."""
    from tests.support.no_engines import no_engines

    with no_engines():
        report = verify_log(data)
    got = 1 if report.failure is not None else 3
    if report.replayed or got != exit_code:
        raise RuntimeError(f"without the rules: exit {got}, expected {exit_code}: {report.failure}")
    return report


def _expect(report: VerifyReport, variant: dict[str, Any]) -> None:
    failure = report.failure
    name = variant["name"]
    if failure is None:
        raise RuntimeError(f"{name}: the verifier accepted the tampered log")
    if failure.entry != variant["failure_entry"] or variant["reason_contains"] not in (
        failure.reason
    ):
        raise RuntimeError(
            f"{name}: expected entry {variant['failure_entry']} "
            f"({variant['reason_contains']}), got {failure}"
        )
    if variant.get("blames_include") is not None:
        seat, code = variant["blames_include"]
        if not any(b[0] == seat and b[2] == code for b in report.blames):
            raise RuntimeError(f"{name}: no {code} blame for seat {seat}: {report.blames}")


def _entry_vectors(valid: bytes) -> dict[str, Any]:
    """The header entry and the first chance-step entry of ``valid``, with everything a
    verifier holding only SPEC.md needs to recompute that step's roll (SPEC §9, §4.3)."""
    from lanTag.fair.draw import draw_seed
    from lanTag.session.lobby_record import LobbyRecord
    from scripts.vectors_common import typed

    entries = parse_log(valid).entries
    header = entries[0]
    magic, record_bytes, writer = header.data
    record = LobbyRecord.decode(record_bytes)
    k = next(  # a roll after step 0, so that a STEP entry before it gives its state hash
        i
        for i, e in enumerate(entries)
        if e.kind == EntryKind.STEP and e.data[0][0] == 2 and e.step > 0
    )
    step_entry = entries[k]
    inp, digest, purpose, draws = step_entry.data
    before = next(
        e.data[1] for e in reversed(entries[:k]) if e.kind == EntryKind.STEP
    )  # the state hash after the step before: the one the step's messages carry
    links: dict[int, bytes] = {}
    for e in entries[:k]:
        if e.kind == EntryKind.MSG:
            msg = parse_unverified(e.data)
            same_step = msg.step == step_entry.step and msg.state_hash == before
            if msg.type == MsgType.ENTROPY and same_step:
                links.setdefault(msg.seat, msg.payload[0])
    seed = draw_seed(record.game_id, step_entry.step, purpose, links.items())
    return {
        "header": {
            "about": "entry 0: [index 0, step 0, prev_hash 32 zero bytes, kind 0 (HEADER), "
            "[magic, record bytes, writer seat]]; the record is protocol 2 (SPEC §2)",
            "entry_hex": header.raw.hex(),
            "magic": magic,
            "record_hex": record_bytes.hex(),
            "protocol": record.protocol,
            "rules_version": record.rules_version,
            "lantag_version": record.lantag_version,
            "writer_seat": writer,
            "game_id": record.game_id.hex(),
        },
        "chance_step": {
            "about": "a STEP entry of a roll: [input, state hash after, purpose, draws]; the "
            "seed is SPEC §4.3's over the ENTROPY links of that step (those carrying the state "
            "hash after the step before), and the draws taken from its stream give the roll",
            "entry_index": step_entry.index,
            "entry_hex": step_entry.raw.hex(),
            "step": step_entry.step,
            "purpose": purpose,
            "draws": typed(draws),
            "state_hash_before": before.hex(),
            "links": [[seat, link.hex()] for seat, link in sorted(links.items())],
            "seed": seed.hex(),
            "roll": typed(inp[1]),
            "state_hash_after": digest.hex(),
        },
    }


def _flood_vector() -> tuple[dict[str, Any], bytes]:
    """Seat 0's log of a toy game in which seat 2 sent seat 0 one NUDGE more than the cap
    for one step (SPEC §5.3): the first one over the cap is the proof, logged after the
    kept ones, and every replay of the log blames seat 2 `flood` from it."""
    from lanTag.session.messages import pack_bundle
    from lanTag.session.steps import REQUEST_LIMITS
    from tests.session.harness import SimNet, addr_of, make_record, make_sessions

    register_engine("toy", "tests.session.toygame", "Toy")
    record, ids, secrets = make_record("toy", 3, options=(("rounds", LOG_ROUNDS),), seed="flood")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=1)
    for _ in range(100_000):
        if all(s.step >= 2 for s in sessions) or not net.step():
            break
    cheat, cap = sessions[2], REQUEST_LIMITS[MsgType.NUDGE]
    step, state_hash = cheat.step, cheat.state.state_hash()
    flood = [
        sign_message(ids[2].signer(), MsgType.NUDGE, cheat.game_id, step, 2, state_hash, ([], q))
        for q in range(1, cap + 2)
    ]
    sessions[0].receive_datagram(pack_bundle([m.raw for m in flood]), addr_of(2), net.now)
    net.run()
    if not net.all_over():
        raise RuntimeError("the flooded toy game did not finish")
    data = sessions[0].take_log()
    report = verify_log(data)
    if not (report.valid and report.complete):
        raise RuntimeError(f"the flooded log does not verify: {report.failure}")
    raws = {m.raw for m in flood}
    entries = [
        e.index for e in parse_log(data).entries if e.kind == EntryKind.MSG and e.data in raws
    ]
    if len(entries) != cap + 1 or parse_log(data).entries[entries[-1]].data != flood[-1].raw:
        raise RuntimeError(f"the log holds NUDGE entries {entries}, not the {cap + 1} sent")
    blames = [[seat, at, code] for seat, at, code, _reason in report.blames]
    if [b for b in blames if b[2] == "flood"] != [[2, step, "flood"]]:
        raise RuntimeError(f"the replay does not convict seat 2 of a flood: {blames}")
    return {
        "about": "seat 0's complete log of a toy game in which seat 2 sent seat 0 "
        f"{cap + 1} validly signed NUDGEs for step {step} (distinct seqs, naming nobody), "
        f"one more than the cap of {cap} per seat and step (SPEC §5.3): the first {cap} are "
        "kept and logged, the last one over the cap is the proof (no honest peer signs "
        "it), logged after them; the log is valid and complete and its replay blames seat 2 "
        "`flood` at that step (`blames`: [seat, step, code] of the replay).",
        "file": "toy_game.flood.log",
        "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data),
        "seat": 2,
        "step": step,
        "kind": "NUDGE",
        "cap": cap,
        "entries": entries,
        "proof_entry": entries[-1],
        "blames": blames,
    }, data


def log_vectors() -> tuple[dict[str, Any], dict[str, bytes]]:
    valid = _play("vectors/log", LOG_ROUNDS)[0]
    foreign = _play("vectors/other-game", 1)[0]
    if _rechain(_items(valid)) != valid:
        raise RuntimeError("re-chaining the untouched log does not reproduce it")
    report = verify_log(valid)
    if not (report.valid and report.complete):
        raise RuntimeError(f"the valid log does not verify: {report.failure}")
    files = {"toy_game.log": valid}
    must_fail = []
    for variant in _variants(valid, foreign):
        _expect(verify_log(variant["data"]), variant)
        _expect(_without_rules(variant["data"], 1), {**variant, "blames_include": None})
        file_name = f"toy_game.{variant['name']}.log"
        files[file_name] = variant.pop("data")
        must_fail.append({"file": file_name, **variant, "exit_without_the_rules": 1})
    expected = report.to_json()
    del expected["failure"]
    _without_rules(valid, 3)
    flood, files["toy_game.flood.log"] = _flood_vector()
    _without_rules(files["toy_game.flood.log"], 3)
    flood["exit_without_the_rules"] = 3
    return (
        {
            "about": "A complete signed log of a 3-peer game of the test-only 'toy' engine "
            "(tests/session/toygame.py, registered as engine 'toy'), written by seat 0, and "
            "tampered variants.  verify_log(valid file) must reproduce `expected`; each "
            "must_fail file must yield a failure at `failure_entry` whose reason contains "
            "`reason_contains` (and the listed blame, if any).  Without the toy engine (SPEC "
            "§9.2, `lantag verify` of these files as shipped) the valid and flood logs exit "
            "3 and every must_fail file exits 1 (`exit_without_the_rules`) at the same "
            "`failure_entry`.",
            "engine_module": ["tests.session.toygame", "Toy"],
            "valid": {
                "file": "toy_game.log",
                "sha256": hashlib.sha256(valid).hexdigest(),
                "size": len(valid),
                "expected": expected,
                "exit_without_the_rules": 3,
            },
            "must_fail": must_fail,
            "flood": flood,
            **_entry_vectors(valid),
        },
        files,
    )
