"""The golden vectors in protocol/vectors/ are reproduced exactly by the code.

The files are written by scripts/gen_vectors.py; these tests recompute every value from the
recorded inputs with the library itself, and check that the generator is up to date.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.fair.commit import DOMAIN as COMMIT_DOMAIN
from lanTag.fair.commit import commitment, opens
from lanTag.fair.draw import DOMAIN as DRAW_DOMAIN
from lanTag.fair.draw import DrawStream, draw_seed
from lanTag.fair.hash_chain import DOMAIN as CHAIN_DOMAIN
from lanTag.fair.hash_chain import HashChain, chain_step_ok
from lanTag.identity import Identity, Verifier
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.rules.base import Die, Draw, Pick, Shuffle
from lanTag.rules.playout import draw_values
from lanTag.rules.registry import register_engine, unregister_engine
from lanTag.session.lobby_record import GAME_DOMAIN, LobbyRecord
from lanTag.session.messages import (
    PROTOCOL_VERSION,
    SIGN_DOMAIN,
    MsgType,
    pack_bundle,
    parse_unverified,
    unpack_bundle,
    verify_signature,
)

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocol" / "vectors"


def load(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    return result


def untyped(t: Any) -> Any:
    """Inverse of gen_vectors.typed: ["int", "5"] -> 5, ["bin", "ab"] -> b"\\xab", ..."""
    tag = t[0]
    if tag == "nil":
        return None
    if tag == "bool":
        assert isinstance(t[1], bool)
        return t[1]
    if tag == "int":
        return int(t[1])
    if tag == "str":
        return t[1]
    if tag == "bin":
        return bytes.fromhex(t[1])
    assert tag == "array", t
    return [untyped(v) for v in t[1]]


def same(a: object, b: object) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def cases(name: str, key: str) -> list[Any]:
    items = load(name)[key]
    return [pytest.param(item, id=item.get("name", item.get("file"))) for item in items]


# --------------------------------------------------------------------------- (a) wire


def test_wire_limits() -> None:
    data = load("wire.json")
    assert (data["datagram_budget"], data["max_depth"]) == (wire.DATAGRAM_BUDGET, wire.MAX_DEPTH)


@pytest.mark.parametrize("case", cases("wire.json", "valid"))
def test_wire_valid_encoding(case: dict[str, Any]) -> None:
    value = untyped(case["value"])
    data = bytes.fromhex(case["hex"])
    assert wire.pack(value) == data
    assert same(wire.unpack(data), value)


@pytest.mark.parametrize("case", cases("wire.json", "must_fail"))
def test_wire_must_fail(case: dict[str, Any]) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        wire.unpack(bytes.fromhex(case["hex"]))
    assert info.value.code == case["code"]


# --------------------------------------------------------------------------- (b) messages


def test_message_constants() -> None:
    data = load("messages.json")
    assert data["protocol_version"] == PROTOCOL_VERSION
    assert bytes.fromhex(data["sign_domain"]) == SIGN_DOMAIN
    assert data["types"] == {t.name: int(t) for t in MsgType}
    assert {m["type"] for m in data["messages"]} == {t.name for t in MsgType}


@pytest.mark.parametrize("case", cases("messages.json", "messages"))
def test_message_is_reproduced(case: dict[str, Any]) -> None:
    identity = Identity(bytes.fromhex(case["key_seed"]))
    public_key = bytes.fromhex(case["public_key"])
    assert identity.public_key == public_key
    fields = untyped(case["fields"])
    body = bytes.fromhex(case["body"])
    signature = bytes.fromhex(case["signature"])
    raw = bytes.fromhex(case["signed_message"])
    assert wire.pack(fields) == body
    assert identity.signer().sign(SIGN_DOMAIN + body) == signature  # Ed25519 is deterministic
    assert wire.pack([body, signature]) == raw
    msg = parse_unverified(raw)
    version, type_code, game_id, step, seat, state_hash, *payload = fields
    assert version == PROTOCOL_VERSION
    assert (msg.type, msg.game_id, msg.step, msg.seat, msg.state_hash) == (
        MsgType[case["type"]],
        game_id,
        step,
        seat,
        state_hash,
    )
    assert int(msg.type) == type_code and msg.seat == case["seat"]
    assert list(msg.payload) == payload
    assert (msg.body, msg.signature, msg.raw) == (body, signature, raw)
    assert msg.digest == bytes.fromhex(case["digest"]) == hashlib.sha256(raw).digest()
    assert verify_signature(msg, public_key, Verifier())
    assert identity.fingerprint == case["fingerprint"]


def test_bundle_is_reproduced() -> None:
    data = load("messages.json")
    by_name = {m["name"]: bytes.fromhex(m["signed_message"]) for m in data["messages"]}
    raws = [by_name[name] for name in data["bundle"]["messages"]]
    bundle = bytes.fromhex(data["bundle"]["hex"])
    assert pack_bundle(raws) == bundle
    assert unpack_bundle(bundle, len(bundle)) == raws


@pytest.mark.parametrize("case", cases("messages.json", "must_fail"))
def test_message_must_fail(case: dict[str, Any]) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        parse_unverified(bytes.fromhex(case["hex"]))
    assert info.value.code == case["code"]


@pytest.mark.parametrize("case", cases("messages.json", "must_not_verify"))
def test_message_must_not_verify(case: dict[str, Any]) -> None:
    msg = parse_unverified(bytes.fromhex(case["hex"]))
    assert not verify_signature(msg, bytes.fromhex(case["public_key"]), Verifier())


# --------------------------------------------------------------------------- (c) commitments


def _commit_args(inputs: dict[str, Any]) -> tuple[bytes, int, int, str, bytes, bytes]:
    return (
        bytes.fromhex(inputs["game_id"]),
        inputs["step"],
        inputs["seat"],
        inputs["purpose"],
        bytes.fromhex(inputs["nonce"]),
        bytes.fromhex(inputs["value"]),
    )


def test_commit_domain() -> None:
    assert bytes.fromhex(load("commit.json")["domain"]) == COMMIT_DOMAIN


@pytest.mark.parametrize("case", cases("commit.json", "cases"))
def test_commitment_is_reproduced(case: dict[str, Any]) -> None:
    expected = bytes.fromhex(case["commitment"])
    assert commitment(*_commit_args(case)) == expected
    assert opens(expected, *_commit_args(case))


@pytest.mark.parametrize("case", cases("commit.json", "must_not_open"))
def test_commitment_must_not_open(case: dict[str, Any]) -> None:
    assert opens(bytes.fromhex(case["commitment"]), *_commit_args(case["inputs"])) is False


# --------------------------------------------------------------------------- (d) chains


def test_chain_domain() -> None:
    assert bytes.fromhex(load("chain.json")["domain"]) == CHAIN_DOMAIN


@pytest.mark.parametrize("case", cases("chain.json", "cases"))
def test_chain_is_reproduced(case: dict[str, Any]) -> None:
    chain = HashChain(bytes.fromhex(case["secret"]), case["length"])
    assert chain.anchor.hex() == case["anchor"]
    previous = chain.anchor
    for i, hex_reveal in enumerate(case["reveals"], start=1):
        reveal = bytes.fromhex(hex_reveal)
        assert chain.reveal(i) == reveal
        assert chain_step_ok(previous, reveal)
        previous = reveal
    assert chain.reveal(case["length"]).hex() == case["last_reveal"] == case["secret"]


@pytest.mark.parametrize("case", cases("chain.json", "must_not_follow"))
def test_chain_must_not_follow(case: dict[str, Any]) -> None:
    assert not chain_step_ok(bytes.fromhex(case["previous"]), bytes.fromhex(case["revealed"]))


# --------------------------------------------------------------------------- (e) draws

DRAWS: dict[str, Draw] = {
    "d6": Die((1, 2, 3, 4, 5, 6)),
    "piecepack": Die((0, 1, 2, 3, 4, 5)),
    "pick7": Pick(7),
    "shuffle5": Shuffle(5),
}


def test_draw_domain() -> None:
    assert bytes.fromhex(load("draws.json")["domain"]) == DRAW_DOMAIN


@pytest.mark.parametrize("case", cases("draws.json", "cases"))
def test_draws_are_reproduced(case: dict[str, Any]) -> None:
    reveals = [(seat, bytes.fromhex(r)) for seat, r in case["reveals"]]
    game = bytes.fromhex(case["game_id"])
    seed = draw_seed(game, case["step"], case["purpose"], reveals)
    assert seed.hex() == case["seed"]
    assert draw_seed(game, case["step"], case["purpose"], reversed(reveals)) == seed
    for kind, draw in DRAWS.items():
        stream = DrawStream(seed)
        values = [list(draw_values(draw, stream.below)) for _ in range(len(case[kind]["values"]))]
        flat = values if isinstance(draw, Shuffle) else [v[0] for v in values]
        assert flat == case[kind]["values"], kind
        assert stream.words_used == case[kind]["words_used"], kind
    stream = DrawStream(seed)
    awkward = case["below_2_31_plus_1"]
    assert [stream.below(2**31 + 1) for _ in awkward["values"]] == awkward["values"]
    assert stream.words_used == awkward["words_used"]


# --------------------------------------------------------------------------- lobby record


def test_lobby_domain() -> None:
    assert bytes.fromhex(load("lobby.json")["domain"]) == GAME_DOMAIN


@pytest.mark.parametrize("case", cases("lobby.json", "records"))
def test_lobby_record_and_game_id_are_reproduced(case: dict[str, Any]) -> None:
    data = bytes.fromhex(case["hex"])
    assert wire.pack(untyped(case["record"])) == data
    record = LobbyRecord.decode(data)
    assert record.encode() == data
    assert record.game_id.hex() == case["game_id"]
    assert record.game_id == hashlib.sha256(GAME_DOMAIN + data).digest()
    assert [s.fingerprint for s in record.seats] == case["fingerprints"]


@pytest.mark.parametrize("case", cases("lobby.json", "must_fail"))
def test_lobby_record_must_fail(case: dict[str, Any]) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        LobbyRecord.decode(bytes.fromhex(case["hex"]))
    assert info.value.code == case["code"]


# --------------------------------------------------------------------------- (f) logs


@pytest.fixture(autouse=True)
def toy_engine() -> Iterator[None]:
    module, class_name = load("log.json")["engine_module"]
    register_engine("toy", module, class_name)
    yield
    unregister_engine("toy")


def test_valid_log_verifies_complete() -> None:
    valid = load("log.json")["valid"]
    data = (VECTORS / valid["file"]).read_bytes()
    assert len(data) == valid["size"]
    assert hashlib.sha256(data).hexdigest() == valid["sha256"]
    report = verify_log(data)
    assert report.valid, report.failure
    assert report.complete
    got = report.to_json()
    assert got.pop("failure") is None
    assert got == valid["expected"]


@pytest.mark.parametrize("case", cases("log.json", "must_fail"))
def test_tampered_log_fails_at_the_recorded_entry(case: dict[str, Any]) -> None:
    report = verify_log((VECTORS / case["file"]).read_bytes())
    assert report.failure is not None, "tampering went unnoticed"
    assert report.failure.entry == case["failure_entry"], report.failure
    assert case["reason_contains"] in report.failure.reason
    if "blames_include" in case:
        seat, code = case["blames_include"]
        assert any(b[0] == seat and b[2] == code for b in report.blames), report.blames


TOY_LOGS = [
    load("log.json")["valid"],
    load("log.json")["flood"],
    *cases("log.json", "must_fail"),
]


@pytest.mark.parametrize("case", TOY_LOGS, ids=lambda c: c["file"])
def test_lantag_verify_without_the_toy_engine_answers_as_the_index_says(
    case: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    # As shipped, no lanTag has the toy engine: `lantag verify` checks these logs with the
    # rules as the log records them (SPEC §9.2).  The valid logs are authentic (exit 3);
    # every tampered one fails at the entry its index names, as with the engine.
    from lanTag.cli.entry import main as lantag_main
    from tests.support.no_engines import no_engines

    with no_engines():
        code = lantag_main(["verify", "--json", str(VECTORS / case["file"])])
    said = json.loads(capsys.readouterr().out)
    assert code == case["exit_without_the_rules"]
    assert said["replayed"] is False
    assert said["needs"] == "a full replay needs toy rules 1 (this lanTag does not have that game)"
    if code == 1:
        assert said["failure"]["entry"] == case["failure_entry"], said["failure"]
    else:
        assert said["failure"] is None and said["steps"] > 0


def test_the_first_nudge_over_the_cap_is_a_logged_proof_of_a_flood() -> None:
    """SPEC §5.3: the flood vector's log holds the kept NUDGEs of one seat and step and
    then the first one over the cap, the proof; its replay blames the seat `flood`."""
    from lanTag.session.steps import REQUEST_LIMITS

    flood = load("log.json")["flood"]
    data = (VECTORS / flood["file"]).read_bytes()
    assert len(data) == flood["size"]
    assert hashlib.sha256(data).hexdigest() == flood["sha256"]
    assert flood["cap"] == REQUEST_LIMITS[MsgType.NUDGE]
    entries = parse_log(data).entries
    nudges = [
        (e.index, m.payload[1])
        for e in entries
        if e.kind == EntryKind.MSG
        and (m := parse_unverified(e.data)).type is MsgType.NUDGE
        and (m.seat, m.step) == (flood["seat"], flood["step"])
    ]
    assert [i for i, _ in nudges] == flood["entries"]  # every one the seat sent for the step
    assert len(nudges) == flood["cap"] + 1 and flood["proof_entry"] == nudges[-1][0]
    assert len({seq for _, seq in nudges}) == len(nudges)  # distinct: none is a repeat
    report = verify_log(data)  # every signature checked, the game replayed
    assert report.valid and report.complete, report.failure
    blames = [[seat, step, code] for seat, step, code, _reason in report.blames]
    assert blames == flood["blames"]
    assert [flood["seat"], flood["step"], "flood"] in blames


def test_every_log_file_is_listed_and_the_vectors_are_small() -> None:
    data = load("log.json")
    listed = {data["valid"]["file"], data["flood"]["file"], *(c["file"] for c in data["must_fail"])}
    assert {p.name for p in VECTORS.glob("*.log")} == listed
    assert sum(p.stat().st_size for p in VECTORS.iterdir()) < 300 * 1024


# --------------------------------------------------------------------------- generator


def test_generator_reproduces_the_stored_pure_vectors() -> None:
    """wire/messages/commit/chain/draws files are exactly what the generator writes today.

    (The log files are not regenerated here: a change in the session's traffic may change
    the bytes of a new game without making the stored log any less valid.)
    """
    from scripts import gen_vectors as gen

    for name, make in gen.PURE.items():
        assert gen.dumps(make()) == (VECTORS / name).read_bytes(), f"{name} is stale"


# --------------------------------------------------------------------------- evidence


@pytest.mark.parametrize("case", cases("evidence.json", "pairs"))
def test_a_pair_of_signed_messages_proves_what_the_vector_says(case: dict[str, Any]) -> None:
    from lanTag.session.messages import contradiction

    key = bytes.fromhex(case["public_key"])
    first = parse_unverified(bytes.fromhex(case["first"]))
    second = parse_unverified(bytes.fromhex(case["second"]))
    assert first.seat == second.seat == case["seat"]
    for msg in (first, second):
        assert verify_signature(msg, key, Verifier())  # evidence only counts when signed
    assert contradiction(first, second) == case["verdict"]


@pytest.mark.parametrize("case", cases("evidence.json", "acknowledgements"))
def test_a_seats_round_acknowledgements_prove_what_the_vector_says(case: dict[str, Any]) -> None:
    # Protocol 6 (SPEC §5.7, "Many cheaters"): a seat other than the equivocator that named a
    # vector holding each version of its COMMIT signed conflicting acknowledgements.
    from lanTag.session.round_evidence import acknowledgements, conflicting_acks, families

    key = bytes.fromhex(case["public_key"])
    acks = [parse_unverified(bytes.fromhex(raw)) for raw in case["acknowledgements"]]
    commits = [parse_unverified(bytes.fromhex(raw)) for raw in case["commits"]]
    other = parse_unverified(bytes.fromhex(case["other"]))
    assert all(m.seat == case["seat"] and verify_signature(m, key, Verifier()) for m in acks)
    seat = case["equivocator"]
    assert other.seat == seat and other.slot == commits[seat].slot and other != commits[seat]
    digests = {c.seat: c.digest for c in commits}
    ours, swapped = families(digests, set(case["live"]), seat, other.digest)
    named = acknowledgements(acks)
    proof = None if case["seat"] == seat else conflicting_acks(named, ours, swapped)
    assert ("equivocation" if proof is not None else None) == case["verdict"]
