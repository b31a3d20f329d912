"""Every decoder of untrusted bytes raises only its documented, typed error.

Inputs: random bytes, random msgpack values (maps, floats, ext included), and
mutations (bit flips, truncation, splices, duplicated or deleted spans) of
real traffic captured from a game: link frames, session bundles, signed
messages, lobby messages, the lobby record and logs.
"""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.games.tagem.board import MapError, parse_map
from lanTag.identity import Identity
from lanTag.log.entries import LogFormatError, parse_log
from lanTag.log.verify import verify_log
from lanTag.net.faults import NetSimConfig, NetSimConfigError
from lanTag.net.frame import MalformedFrame, decode
from lanTag.net.link import LinkLayer
from lanTag.peer.join_handshake import HostConfig, HostLobby, JoinLobby, lobby_message
from lanTag.rules.base import Action, MalformedAction, OptionError
from lanTag.rules.registry import engine_ids, get_game
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import parse_unverified, unpack_bundle
from tests.support.table import Capture, capture_game

FUZZ = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
MAPS = sorted((Path(__file__).parents[2] / "lanTag" / "games" / "tagem" / "maps").glob("*.map"))


@functools.lru_cache(maxsize=1)
def corpus() -> Capture:
    return capture_game("tagem", 2, seed=4)


def mutate(data: bytes, ops: list[tuple[int, int, int]]) -> bytes:
    """Apply (kind, position, value) edits: flip, set, delete, insert, truncate, duplicate."""
    buf = bytearray(data)
    for kind, pos, val in ops:
        if not buf:
            buf.append(val & 0xFF)
            continue
        i = pos % len(buf)
        if kind == 0:
            buf[i] ^= 1 << (val % 8)
        elif kind == 1:
            buf[i] = val & 0xFF
        elif kind == 2:
            del buf[i : i + 1 + val % 4]
        elif kind == 3:
            buf[i:i] = bytes([val & 0xFF]) * (1 + val % 3)
        elif kind == 4:
            del buf[i:]
        else:
            buf[i:i] = buf[i : i + 1 + val % 16]
    return bytes(buf)


edits = st.lists(
    st.tuples(st.integers(0, 5), st.integers(0, 1 << 20), st.integers(0, 255)),
    min_size=1,
    max_size=6,
)

# msgpack values beyond the canonical subset: maps, floats, ext, big ints
leaves = (
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64 + 5)
    | st.floats(allow_nan=True)
    | st.text(max_size=20)
    | st.binary(max_size=40)
    | st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=8))
)
values = st.recursive(
    leaves,
    lambda kids: (
        st.lists(kids, max_size=6) | st.dictionaries(st.text(max_size=4), kids, max_size=3)
    ),
    max_leaves=20,
)


def packed(value: object) -> bytes:
    try:
        return msgpack.packb(value, use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        return b"\xc1"


def from_corpus(kind: str) -> st.SearchStrategy[bytes]:
    return st.integers(0, 10_000).map(lambda i: _pick(kind, i))


def _pick(kind: str, i: int) -> bytes:
    items: list[bytes] = getattr(corpus(), kind)
    return items[i % len(items)]


def inputs(kind: str) -> st.SearchStrategy[bytes]:
    """Random bytes, random msgpack, and mutated real samples of ``kind``."""
    real = st.tuples(from_corpus(kind), edits).map(lambda t: mutate(*t))
    return st.binary(max_size=1300) | values.map(packed) | real | from_corpus(kind)


# ------------------------------------------------------------------ wire and messages


@FUZZ
@given(data=inputs("messages"))
def test_wire_unpack_raises_only_remote_protocol_error(data: bytes) -> None:
    for limit in (wire.DATAGRAM_BUDGET, 64 * 1024):
        try:
            wire.unpack(data, limit=limit)
        except RemoteProtocolError as exc:
            assert exc.code in ("malformed", "noncanonical", "oversized")


@FUZZ
@given(data=inputs("messages"))
def test_parse_unverified_raises_only_remote_protocol_error(data: bytes) -> None:
    try:
        msg = parse_unverified(data)
    except RemoteProtocolError as exc:
        assert exc.code in ("malformed", "noncanonical", "oversized", "version", "unknown-type")
    else:
        assert msg.raw == data


@FUZZ
@given(data=inputs("payloads"))
def test_unpack_bundle_raises_only_remote_protocol_error(data: bytes) -> None:
    try:
        items = unpack_bundle(data, 64 * 1024)
    except RemoteProtocolError:
        return
    assert all(isinstance(m, bytes) for m in items)


@FUZZ
@given(data=inputs("messages"))
def test_action_from_msgpack_raises_only_malformed_action(data: bytes) -> None:
    try:
        obj = wire.unpack(data)
    except RemoteProtocolError:
        return
    with contextlib.suppress(MalformedAction):
        Action.from_msgpack(obj)


@FUZZ
@given(ops=edits, value=values)
def test_lobby_record_decode_raises_only_remote_protocol_error(
    ops: list[tuple[int, int, int]], value: object
) -> None:
    for data in (mutate(corpus().record, ops), packed(value)):
        try:
            record = LobbyRecord.decode(data)
        except RemoteProtocolError:
            continue
        assert record.encode() == data


# ------------------------------------------------------------------ links


@FUZZ
@given(data=inputs("datagrams"))
def test_frame_decode_raises_only_malformed_frame(data: bytes) -> None:
    with contextlib.suppress(MalformedFrame):
        decode(data)


@FUZZ
@given(datagrams=st.lists(inputs("datagrams"), max_size=12))
def test_link_layer_never_raises_on_any_datagram(datagrams: list[bytes]) -> None:
    layer = LinkLayer(12345)
    now = 0.0
    for d in datagrams:
        now += 0.01
        for payload in layer.receive_datagram(d, ("10.9.0.1", 9), now):
            assert isinstance(payload, bytes)
        layer.handle_timer(now)
        layer.datagrams_to_send(now)


# ------------------------------------------------------------------ logs


@settings(FUZZ, max_examples=40)
@given(ops=edits, cut=st.integers(2, 60))
def test_parse_log_and_verify_log_raise_only_log_format_error(
    ops: list[tuple[int, int, int]], cut: int
) -> None:
    log = corpus().logs[0]
    entries = parse_log(log).entries
    prefix = b"".join(e.raw for e in entries[: min(cut, len(entries))])
    data = mutate(prefix, ops)
    try:
        parsed = parse_log(data)
    except LogFormatError:
        return
    if not parsed.entries:
        assert parsed.error  # and verify_log says "not a lanTag log" (RELIABILITY §6, 1)
    try:
        report = verify_log(data)
    except LogFormatError:  # e.g. the header's record no longer decodes
        return
    if report.valid:
        assert report.steps <= len(entries)


@FUZZ
@given(data=st.binary(max_size=2000) | values.map(packed))
def test_parse_log_on_random_bytes(data: bytes) -> None:
    with contextlib.suppress(LogFormatError):
        verify_log(data)  # garbage is "not a lanTag log", never an IndexError (§6, 1)


# ------------------------------------------------------------------ rules input


def _map_texts() -> list[str]:
    assert MAPS, "the shipped maps moved: the fuzzer would start from no map"
    return [p.read_text() for p in MAPS]


@FUZZ
@given(
    base=st.integers(0, 100),
    ops=edits,
    noise=st.text(alphabet=st.characters(codec="utf-8"), max_size=200),
)
def test_parse_map_raises_only_map_error(
    base: int, ops: list[tuple[int, int, int]], noise: str
) -> None:
    texts = _map_texts()
    mutated = mutate(texts[base % len(texts)].encode(), ops).decode("utf-8", errors="replace")
    for text in (mutated, noise, mutated + noise):
        with contextlib.suppress(MapError):
            parse_map(text)


@FUZZ
@given(
    engine=st.sampled_from(engine_ids()),
    pairs=st.dictionaries(
        st.text(max_size=15) | st.sampled_from(["board_size", "mode", "map", "max_rounds", "pom"]),
        st.text(max_size=12)
        | st.integers(-(10**30), 10**30).map(str)
        | st.sampled_from(["yes", "no", "auto", "skirmish", " 7 ", "-1", "1e3", "0x10"]),
        max_size=4,
    ),
)
def test_parse_options_of_every_engine_raises_only_option_error(
    engine: str, pairs: dict[str, str]
) -> None:
    game = get_game(engine)
    for key in [s.name for s in game.option_specs]:
        single = {key: pairs.get(key, next(iter(pairs.values()), ""))}
        for attempt in (pairs, single):
            try:
                options = game.parse_options(attempt)
            except OptionError:
                continue
            # a validated set of options must give a game (or a typed refusal)
            with contextlib.suppress(OptionError, MapError):
                game.new_state(game.min_seats, options)


def test_netsim_spec_parser_raises_only_its_error() -> None:
    for text in ["loss=2", "x", "delay=1", "seed=a", "partition=1s", "loss=0.1,loss=0.2", "=", ""]:
        with contextlib.suppress(NetSimConfigError):
            NetSimConfig.parse(text)


# ------------------------------------------------------------------ lobby messages


def _lobbies() -> tuple[HostLobby, JoinLobby]:
    host_id, joiner_id = Identity(bytes([1]) * 32), Identity(bytes([2]) * 32)
    host = HostLobby(
        HostConfig("prototag", "fuzz", 3), host_id, bytes(32), "host", lambda n: bytes(n)
    )
    joiner = JoinLobby(("10.9.0.1", 1), joiner_id, bytes([3]) * 32, "joiner")
    return host, joiner


LOBBY_SAMPLES = [
    lobby_message("hello", "nick", False),
    lobby_message("join", bytes(32), bytes(32), "n", b"", False, bytes(64)),
    lobby_message("leave"),
    lobby_message("refuse", "full"),
    lobby_message("welcome", bytes(32), bytes(32), "prototag", "g", 3, False, 1),
    lobby_message("roster", [["a", "fp", ""], ["b", "fp2", "random"]], 3, 1),
    lobby_message("start", b"rec", [[1, "10.0.0.2", 5000]], [], bytes(64)),
]


@FUZZ
@given(
    sample=st.sampled_from(LOBBY_SAMPLES),
    ops=edits,
    tail=st.lists(values, max_size=7),
    kind=st.sampled_from(["hello", "join", "leave", "refuse", "welcome", "roster", "start", "x"]),
)
def test_host_lobby_raises_only_remote_protocol_error(
    sample: bytes, ops: list[tuple[int, int, int]], tail: list[object], kind: str
) -> None:
    host, _ = _lobbies()
    structured = packed(["lt-lobby", 1, kind, *tail])
    for data in (sample, mutate(sample, ops), structured):
        with contextlib.suppress(RemoteProtocolError):
            host.receive(data, ("10.9.0.2", 2))


@FUZZ
@given(
    ops=edits,
    tail=st.lists(values, max_size=7),
    kind=st.sampled_from(["welcome", "roster", "refuse", "start"]),
)
def test_join_lobby_raises_only_remote_protocol_error(
    ops: list[tuple[int, int, int]], tail: list[object], kind: str
) -> None:
    _, joiner = _lobbies()
    structured = packed(["lt-lobby", 1, kind, *tail])
    for data in [structured, *(mutate(s, ops) for s in LOBBY_SAMPLES)]:
        with contextlib.suppress(RemoteProtocolError):
            joiner.receive(data, ("10.9.0.1", 1))
