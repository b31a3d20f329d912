"""Resume a seat after a crash, from its own log (pure: bytes in, a Session out).

The log holds every message the peer accepted or sent, in order, plus a
"peers" note written when the game began.  Feeding those messages back
through a fresh Session rebuilds exactly the state the peer had (its own
messages re-sign to the same bytes: Ed25519 is deterministic).  The peer then
rebinds its old address and asks everyone for what it missed (SYNC).  A seat
the others already dropped by agreement asks for it back (protocol 5: a REJOIN that a live
seat's next contribution carries, SPEC §5.6) and follows the game until it is admitted;
in an older game, or when nobody can admit it, it follows as a spectator.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from lanTag.errors import LocalProtocolError
from lanTag.identity import Identity
from lanTag.log.entries import MAGICS, EntryKind, LogChain, LogFormatError, parse_log
from lanTag.rules.base import Over
from lanTag.session.handback import HANDBACK_LIMIT
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.lockstep import Session
from lanTag.session.transport import Addr, Transport

PEERS_NOTE = "peers"
RESUME_WAIT = 15.0  # seconds a resumed seat waits for a first sign of life from its peers


class GameAlreadyOver(LocalProtocolError):
    """The log itself shows the game finished: there is nothing to resume."""

    def __init__(self, steps: int, summary: str) -> None:
        super().__init__(f"the game in this log is already over after {steps} steps: {summary}")
        self.steps = steps
        self.summary = summary


@dataclass(frozen=True)
class ResumePlan:
    record: LobbyRecord
    seat: int
    peers: dict[int, Addr]
    watchers: tuple[Addr, ...]
    local_addr: Addr | None
    messages: tuple[bytes, ...]
    next_index: int
    last_hash: bytes
    whole_bytes: int  # the log's length up to its last whole entry (a crash may cut one)


def peers_note(peers: dict[int, Addr], watchers: tuple[Addr, ...], me: Addr | None) -> str:
    return json.dumps(
        {
            "peers": {str(seat): list(addr) for seat, addr in sorted(peers.items())},
            "watchers": [list(a) for a in watchers],
            "me": list(me) if me else None,
        },
        sort_keys=True,
    )


def plan_resume(data: bytes) -> ResumePlan:
    """Read what a resume needs from a log; LogFormatError / LocalProtocolError explain why not."""
    parsed = parse_log(data)
    if parsed.error:
        raise LogFormatError(f"the log is damaged: {parsed.error}")
    header = parsed.entries[0]
    magic, record_bytes, seat = header.data
    if magic not in MAGICS.values() or not isinstance(seat, int):
        raise LocalProtocolError("this log was written by a spectator: there is no seat to resume")
    record = LobbyRecord.decode(record_bytes)
    peers: dict[int, Addr] = {}
    watchers: tuple[Addr, ...] = ()
    me: Addr | None = None
    messages = []
    for entry in parsed.entries[1:]:
        if entry.kind == EntryKind.MSG:
            messages.append(entry.data)
        elif entry.kind == EntryKind.NOTE and entry.data[0] == PEERS_NOTE:
            info = json.loads(entry.data[2])
            peers = {int(s): (str(a[0]), int(a[1])) for s, a in info["peers"].items()}
            watchers = tuple((str(a[0]), int(a[1])) for a in info["watchers"])
            me = (str(info["me"][0]), int(info["me"][1])) if info["me"] else None
    if not peers and len([s for s in record.seats if not s.is_bot]) > 1:
        raise LocalProtocolError("the log does not say where the other peers are")
    last = parsed.entries[-1]
    return ResumePlan(
        record,
        seat,
        peers,
        watchers,
        me,
        tuple(messages),
        last.index + 1,
        last.hash,
        len(data) - parsed.truncated_tail,
    )


def check_not_over(plan: ResumePlan) -> None:
    """Raise GameAlreadyOver when the logged messages already decide the game's end."""
    session = Session(plan.record, seat=plan.seat, replay=True)
    for raw in plan.messages:
        session.receive_message(raw, 0.0)
    decision = session.state.decision()
    if isinstance(decision, Over):
        raise GameAlreadyOver(session.step, decision.outcome.summary)


def restore_session(
    plan: ResumePlan,
    identity: Identity,
    chain_secret: bytes,
    transport: Transport,
    now: float,
) -> Session:
    """A live Session in the state the log left it, its log going on after the last entry."""
    session = Session(
        plan.record,
        seat=plan.seat,
        identity=identity,
        chain_secret=chain_secret,
        peers=plan.peers,
        watchers=plan.watchers,
        transport=transport,
        now=now,
    )
    for raw in plan.messages:
        session.receive_message(raw, now)
    session.recovery.discard_output()  # what it would say now, it said before the crash...
    session.recovery.rebroadcast_own(max(0, session.step - 1))  # ...unless it died before sending
    session.log = LogChain(plan.next_index, plan.last_hash)
    session.note("resumed", f"at step {session.step}")
    # a choice sealed before the crash is revealed as sealed
    session.recovery.recover_sealed_choice()
    session.rejoin.ask_back(now)  # protocol 5: if dropped, ask for the seat back (§5.6)
    return session


def watch_reason(session: Session) -> str | None:
    """Why a dropped seat can only watch, in a few words; None while it waits for a live seat
    to let it back in (a resumed seat that asked back, protocol 5, SPEC §5.6)."""
    refusal = session.rejoin.refusal()
    if not session.features.handback:
        refusal = "protocol"  # (also before the session itself knows of the drop)
    elif refusal is None and session.rejoin.wants_back:  # (maybe back already when this is read)
        return None
    return {
        "protocol": f"a drop is final in a protocol-{session.record.protocol} game",
        "convicted": "a seat convicted of cheating is never given back",
        "limit": f"a seat is given back at most {_times(HANDBACK_LIMIT)} a game",
        "nobody": "every other player has left: nobody can let you back in",
        "over": "the game is over",
    }.get(refusal or "", "`lantag join --resume LOG` asks for it back")


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def dropped_seat_line(session: Session, step: int | None) -> str:
    """What a person whose seat was dropped reads, in one line: waiting to be let back in,
    or why it can only watch."""
    seat, at = session.seat, f" at step {step}" if step is not None else ""
    reason = watch_reason(session)
    if reason is None:
        return (
            f"waiting for the table to let you back in… (your seat {seat} was dropped{at}; "
            "a bot plays it meanwhile)"
        )
    return f"watching only: your seat {seat} was dropped{at}; a bot plays it ({reason})"


def back_line(seat: int, name: str, step: int, mine: bool) -> str:
    """A seat given back (protocol 5): said to its own person, and to the others."""
    if mine:
        return f"you are back in seat {seat} from step {step}"
    return f"{name} is back in seat {seat}"
