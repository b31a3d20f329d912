"""A series: the same table plays the next game over the same sockets and links.

When a game is over the host says what comes next, over the lobby links
(protocol/SPEC.md §6):

    next   previous_game:bin32, engine, name        host -> each seat of the game just over
    done   last_game:bin32                           host -> each seat: the series ends

On ``next`` a joiner starts a fresh lobby with the host at the same address: a new
hash chain (a chain's links are spent by the game that published its anchor), a hello
that re-checks versions, a join, the start.  Its lobby takes that start only when the
record names the game it just finished as ``previous_game`` and comes from the same
host key.  The host opens a fresh lobby whose record will name the game just over.

Pure: the machine switches here; the runtime (lanTag.peer.runtime) owns the files.
"""

from __future__ import annotations

from collections.abc import Callable

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.fair.hash_chain import HashChain
from lanTag.peer.join_handshake import TAG, VERSION, HostConfig, HostLobby, JoinLobby
from lanTag.peer.machine import PeerMachine, send_or_drop
from lanTag.peer.series_events import NextGame, SeriesDone
from lanTag.session.transport import Addr

SERIES_KINDS = ("next", "done")
MAX_SERIES_MESSAGE = 1024


SeriesEvent = NextGame | SeriesDone


def next_message(previous_game: bytes, engine: str, name: str) -> bytes:
    return wire.pack([TAG, VERSION, "next", previous_game, engine, name])


def done_message(last_game: bytes) -> bytes:
    return wire.pack([TAG, VERSION, "done", last_game])


def parse_series_message(payload: bytes) -> SeriesEvent | None:
    """The series event a lobby payload holds; None for any other lobby message.
    RemoteProtocolError for a series message of the wrong shape."""
    if len(payload) > MAX_SERIES_MESSAGE:
        return None
    try:
        obj = wire.unpack(payload, limit=MAX_SERIES_MESSAGE)
    except RemoteProtocolError:
        return None
    if not (isinstance(obj, list) and len(obj) >= 3 and obj[:2] == [TAG, VERSION]):
        return None
    kind, fields = obj[2], obj[3:]
    if kind not in SERIES_KINDS:
        return None
    if not (fields and isinstance(fields[0], bytes) and len(fields[0]) == 32):
        raise RemoteProtocolError("malformed", f"bad {kind} message")
    if kind == "done" and len(fields) == 1:
        return SeriesDone(fields[0])
    if (
        kind == "next"
        and len(fields) == 3
        and isinstance(fields[1], str)
        and isinstance(fields[2], str)
        and 0 < len(fields[1]) <= 32
    ):
        return NextGame(fields[0], fields[1], fields[2][:64])
    raise RemoteProtocolError("malformed", f"bad {kind} message")


def seat_addresses(machine: PeerMachine) -> list[Addr]:
    """The other seats' addresses in the game just played (whom ``next``/``done`` go to)."""
    session = machine.session
    if session is None:
        return []
    return [addr for seat, addr in sorted(session.peers.items()) if seat != session.seat]


def tell_seats(machine: PeerMachine, payload: bytes, now: float) -> None:
    """Send a series message to every other seat of the game just played."""
    for addr in seat_addresses(machine):
        send_or_drop(machine.link, addr, payload, now, machine.send_dropped)


def host_next_game(
    machine: PeerMachine,
    config: HostConfig,
    nickname: str,
    chain_secret: bytes,
    random_bytes: Callable[[int], bytes],
    write_log: Callable[[bytes], None] | None,
    now: float,
) -> HostLobby:
    """After a game: open the next game's lobby (its record names the game just over)
    and tell the seats it comes.  ``config.previous_game`` must be that game's id."""
    session = machine.session
    assert session is not None and session.state.is_over, "the game is not over"
    assert config.previous_game == session.game_id
    anchor = HashChain(chain_secret, config.chain_length).anchor
    lobby = HostLobby(config, machine.identity, anchor, nickname, random_bytes)
    message = next_message(session.game_id, config.engine, config.name)
    tell_seats(machine, message, now)
    machine.next_game(lobby, chain_secret, write_log, now)
    return lobby


def join_next_game(
    machine: PeerMachine,
    chain_secret: bytes,
    write_log: Callable[[bytes], None] | None,
    now: float,
) -> JoinLobby:
    """On ``next``: a fresh lobby with the same host, expecting the game that follows ours."""
    session, old = machine.session, machine.lobby
    assert session is not None and session.seat is not None
    record = session.record
    anchor = HashChain(chain_secret, record.chain_length).anchor
    # A seat resumed from its log has no lobby: the host is seat 0's peer (a game with a
    # password then asks for it again: the password is never logged).
    lobby = JoinLobby(
        old.host if isinstance(old, JoinLobby) else session.peers[0],
        machine.identity,
        anchor,
        old.nickname if isinstance(old, JoinLobby) else record.seats[session.seat].nickname,
        password=old.password if isinstance(old, JoinLobby) else "",
        chain_length=record.chain_length,
        follows=session.game_id,
        host_key=record.seats[0].public_key,
    )
    machine.next_game(lobby, chain_secret, write_log, now)
    return lobby
