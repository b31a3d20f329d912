"""The joiner's side of the lobby handshake (messages: lanTag.peer.join_handshake).

Before it proves anything (a password, its seat) the joiner checks who answered: the key
must be the one of the advert it picked (``expect_fingerprint``: an impostor advert
copying the host's fingerprint is refused, both fingerprints named), and a host nickname
it played with before under another key (``known_hosts``, trust on first use) stops the
join until the user accepts the new key (``accept_host_key``).
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable, Mapping
from typing import Any

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.identity import Identity, Verifier, fingerprint
from lanTag.peer.join_handshake import (
    JOIN_DOMAIN,
    SEAT_HELD,
    START_DOMAIN,
    HostKeyChanged,
    LobbyEvent,
    PasswordNeeded,
    Refused,
    RosterChanged,
    RosterEntry,
    Started,
    Waiting,
    Welcomed,
    are_texts,
    is_count,
    lobby_message,
    my_rules,
    parse_lobby_message,
)
from lanTag.peer.names import clean_nickname, look_alike
from lanTag.peer.pake import PAKE_MESSAGE, joiner_confirmation, joiner_pake, start_seal, transcript
from lanTag.session.compatibility import mismatch, rules_version_of
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import PROTOCOL_VERSION
from lanTag.session.transport import Addr
from lanTag.versions import lantag_version


def impostor_line(pinned: str, answered: str) -> str:
    return (
        f"the host answered with key {answered}, not {pinned} from the advert you picked: "
        "not joining (another machine may be posing as that game; ask the host for "
        "`lantag id` and join by HOST:PORT)"
    )


TWO_ON_ONE_LAPTOP = (
    "each player needs an identity of their own: to play a second seat from this laptop, "
    "run that lantag with XDG_CONFIG_HOME set to another folder "
    "(e.g. XDG_CONFIG_HOME=~/lantag-p2 lantag join ADDRESS:PORT)"
)


def refusal_words(reason: str) -> str:
    """The host's refusal as the joiner reads it: a key already seated (a second terminal
    on the same laptop, same identity) is told how to play two seats from one laptop."""
    if reason == SEAT_HELD:
        return f"{reason} — {TWO_ON_ONE_LAPTOP}"
    return reason


class JoinLobby:
    """A joiner's side: hello, answer the challenge, wait for the roster and the start."""

    def __init__(
        self,
        host: Addr,
        identity: Identity,
        anchor: bytes,
        nickname: str,
        *,
        password: str = "",
        spectator: bool = False,
        chain_length: int = 0,
        expect_fingerprint: str = "",
        known_hosts: Mapping[str, str] | None = None,
        trust_changed_key: bool = False,
        random_bytes: Callable[[int], bytes] = os.urandom,
        follows: bytes = b"",
        host_key: bytes = b"",
    ) -> None:
        # The next game of a series (lanTag.peer.series): its start must name ``follows``
        # as the previous game and be signed by the same ``host_key``.
        self.follows, self.expected_host = follows, host_key
        self.host = host
        self.chain_length = chain_length  # of our anchor's chain (0: not checked)
        self.identity = identity
        self.anchor = anchor
        self.nickname = nickname
        self.password = password
        self.spectator = spectator
        self.expect_fingerprint = expect_fingerprint  # the advert's: pinned ("" for none)
        self.known_hosts = dict(known_hosts or {})  # host nickname -> fingerprint seen
        self.trust_changed_key = trust_changed_key  # warn (HostKeyChanged) but go on
        self._random = random_bytes
        self.host_key = b""
        self.host_nickname = ""
        self.shown_position = b""  # the start position the host's welcome showed
        self._challenge = b""
        self._pake_b = b""
        self._pake_key: bytes | None = None
        self._transcript = b""
        self._held = False  # waiting for accept_host_key()
        self.outbox: list[tuple[Addr, bytes]] = [(host, self._hello())]
        # Our last hello or join while the host has not answered it (None: answered):
        # said again when our link to the host restarted (``resend``).
        self._unanswered: bytes | None = self.outbox[0][1]
        self._join_sent = False  # our join is the unanswered message (else our hello)
        self.events: list[LobbyEvent] = []
        self.your_seat: int | None = None
        self.started: Started | None = None
        self.tried: list[Addr] = [host]  # addresses of the host said hello to (also_try)

    def also_try(self, addr: Addr) -> None:
        """Say hello to another advertised address of the host, until one answers: the
        first address to answer becomes ``host`` (a host with several adapters)."""
        if self.host_key or addr in self.tried:
            return
        self.tried.append(addr)
        self.outbox.append((addr, self._hello()))

    def receive(self, payload: bytes, addr: Addr, now: float = 0.0) -> None:
        if addr != self.host:
            if addr not in self.tried:
                raise RemoteProtocolError(
                    "not-in-roster", f"lobby message from {addr}, not the host"
                )
            if self.host_key:
                return  # another address of the host answering late: joined already
            self.host = addr  # the first address to answer wins
        kind, fields = parse_lobby_message(payload)
        if kind in ("roster", "refuse", "wait", "start"):
            self._unanswered = None
        if kind == "welcome" and len(fields) >= 10:
            self._welcome(fields)
        elif kind == "roster" and len(fields) == 3:
            entries, total, seat = fields
            if not (
                isinstance(entries, list)
                and all(are_texts(e, 3) for e in entries)
                and is_count(total)
                and type(seat) is int
            ):
                raise RemoteProtocolError("malformed", "bad roster")
            roster = tuple(RosterEntry(clean_nickname(n), f, b) for n, f, b in entries)
            self.your_seat = seat if seat >= 0 else None
            self.events.append(RosterChanged(roster, total, self.your_seat))
        elif kind == "refuse" and len(fields) == 1 and isinstance(fields[0], str):
            self.events.append(Refused(refusal_words(fields[0])))
        elif kind == "wait" and len(fields) == 1 and isinstance(fields[0], str):
            self.events.append(Waiting(fields[0]))
        elif kind == "start" and len(fields) == 5:
            self._start(fields)
        else:
            raise RemoteProtocolError("malformed", f"unexpected lobby message {kind!r}")

    def _welcome(self, fields: list[Any]) -> None:
        host_key, challenge, engine, name, seats, pw, taken = fields[:7]
        protocol, rules, release = fields[7:10]
        if not (
            type(protocol) is int
            and type(rules) is int
            and isinstance(release, str)
            and isinstance(engine, str)
        ):
            raise RemoteProtocolError("malformed", "bad versions in welcome")
        told = mismatch(engine, protocol, rules, PROTOCOL_VERSION, rules_version_of(engine))
        if told:  # the host should have refused us: never take a seat anyway (an older
            # host's welcome has fewer fields: the versions are read first)
            self.events.append(Refused(told))
            return
        if len(fields) not in (12, 13):
            raise RemoteProtocolError("malformed", "bad welcome")
        host_nickname, pake_b = fields[10:12]
        position = fields[12] if len(fields) == 13 else b""
        if not isinstance(position, bytes) or (len(fields) == 13 and not position):
            raise RemoteProtocolError("malformed", "bad welcome")
        if self.host_key and (host_key, challenge) == (self.host_key, self._challenge):
            return  # the same welcome again (hello sent to two of the host's addresses)
        joining = self._unanswered is not None and self._join_sent
        if self.host_key and host_key == self.host_key and joining:
            # The host forgot our hello before our join came (a crowd of hellos, or our
            # link restarted) and welcomed us again: join again, for its new challenge.
            self._challenge, self._pake_b, self._pake_key = challenge, pake_b, None
            self._go_on(name)
            return
        if self.host_key:
            raise RemoteProtocolError("out-of-turn", "a second welcome with another key")
        if not (
            isinstance(host_key, bytes)
            and len(host_key) == 32
            and isinstance(challenge, bytes)
            and len(challenge) == 32
            and isinstance(name, str)
            and is_count(seats)
            and is_count(taken)
            and isinstance(pw, bool)
            and isinstance(host_nickname, str)
            and isinstance(pake_b, bytes)
            and len(pake_b) == (PAKE_MESSAGE if pw else 0)
        ):
            raise RemoteProtocolError("malformed", "bad welcome")
        if self.expected_host and host_key != self.expected_host:
            self.events.append(Refused("another host answered for the next game"))
            return
        answered = fingerprint(host_key)
        if self.expect_fingerprint and answered != self.expect_fingerprint:
            # Pinned: the key of the advert we chose, or nothing (never a join, no proof).
            self.host_key = host_key  # answered: stop saying hello elsewhere
            self.events.append(Refused(impostor_line(self.expect_fingerprint, answered)))
            return
        self.host_key, self._challenge, self._pake_b = host_key, challenge, pake_b
        self._unanswered = None
        self.host_nickname = clean_nickname(host_nickname)
        self.shown_position = position
        self.events.append(Welcomed(engine, name, seats, taken, pw, answered, position))
        changed = self._key_changed(answered)
        if changed is not None:
            self.events.append(changed)
            if not self.trust_changed_key:
                self._held = True
                return
        self._go_on(name)

    def _key_changed(self, answered: str) -> HostKeyChanged | None:
        """The loud warning, if the host's nickname (or one it looks like: another script's
        letters, case, invisible characters) had another key when we played with it."""
        nickname = self.host_nickname
        known = self.known_hosts.get(nickname)
        if known is not None:
            return None if known == answered else HostKeyChanged(nickname, known, answered)
        other = look_alike(nickname, self.known_hosts)
        if other is None or self.known_hosts[other] == answered:
            return None
        return HostKeyChanged(nickname, self.known_hosts[other], answered, looks_like=other)

    def _go_on(self, name: str = "") -> None:
        if self._pake_b and not self.password:
            self.events.append(PasswordNeeded(str(name)))
        else:
            self._send_join()

    @property
    def held_for_key(self) -> bool:
        """Waiting for the user to accept a changed host key (HostKeyChanged)."""
        return self._held

    def accept_host_key(self) -> None:
        """The user accepts a changed host key (HostKeyChanged): go on with the join."""
        if self._held:
            self._held = False
            self._go_on()

    def _hello(self) -> bytes:
        """hello with this lanTag's versions, so the host refuses us before a seat if need be."""
        return lobby_message(
            "hello",
            self.nickname,
            self.spectator,
            PROTOCOL_VERSION,
            my_rules(),
            lantag_version()[:32],
        )

    def resend(self) -> None:
        """Our link to the host restarted (what was in flight either way is gone): say
        our unanswered hello or join again.  The host answers a repeated join of a joiner
        it holds with the roster or "wait" (HostLobby), a repeated hello with the same
        welcome."""
        if self._unanswered is not None and self.started is None:
            self.outbox.append((self.host, self._unanswered))

    def give_password(self, password: str) -> None:
        """The password (asked for, or another try after "wrong password")."""
        self.password = password
        if self._pake_key is None and self._pake_b:
            self._send_join()
            return
        # A PAKE exchange answers one guess: another try needs a new welcome, from the
        # same host key (pinned now if it was not already).
        if self.host_key and not self.expect_fingerprint:
            self.expect_fingerprint = fingerprint(self.host_key)
        self.host_key, self._challenge, self._pake_b, self._pake_key = b"", b"", b"", None
        self._unanswered, self._join_sent = self._hello(), False
        self.outbox.append((self.host, self._unanswered))

    def leave(self) -> None:
        self.outbox.append((self.host, lobby_message("leave")))

    def _send_join(self) -> None:
        pk = self.identity.public_key
        pake_a, confirm = b"", b""
        if self._pake_b:
            answer = joiner_pake(self.password, self.host_key, self._pake_b, self._random)
            if answer is None:
                self.events.append(Refused("the host sent a broken password exchange"))
                return
            pake_a, key = answer
            self._transcript = transcript(
                self.host_key,
                pk,
                self._challenge,
                pake_a,
                self._pake_b,
                self.anchor,
                self.nickname,
                self.spectator,
            )
            self._pake_key = key
            confirm = joiner_confirmation(key, self._transcript)
        body = wire.pack([pk, self.anchor, self.nickname, pake_a, self.spectator])
        signature = self.identity.signer().sign(JOIN_DOMAIN + self._challenge + body)
        self._unanswered = lobby_message(
            "join", pk, self.anchor, self.nickname, pake_a, confirm, self.spectator, signature
        )
        self._join_sent = True
        self.outbox.append((self.host, self._unanswered))

    def _start(self, fields: list[Any]) -> None:
        body, addr_list, watch_list, signature, seal = fields
        if not (isinstance(body, bytes) and isinstance(signature, bytes)):
            raise RemoteProtocolError("malformed", "bad start")
        if not isinstance(seal, bytes):
            raise RemoteProtocolError("malformed", "bad start")
        if not Verifier().verify(self.host_key, signature, START_DOMAIN + body):
            raise RemoteProtocolError("bad-signature", "start not signed by the host")
        if self._pake_key is not None and not hmac.compare_digest(
            seal, start_seal(self._pake_key, self._transcript, body)
        ):
            # Mutual: a host that did not know the password cannot seal the game.
            self.events.append(Refused("the host did not prove it knows the password"))
            return
        record = LobbyRecord.decode(body)
        if record.start_position != self.shown_position:
            self.events.append(
                Refused("the host started from another position than the one it showed")
            )
            return
        if self.follows and record.previous_game != self.follows:
            self.events.append(Refused("the host's next game does not follow the game we played"))
            return
        engine = record.engine
        mine = rules_version_of(engine)
        told = mismatch(engine, record.protocol, record.rules_version, PROTOCOL_VERSION, mine)
        if told:
            self.events.append(Refused(told))
            return
        seat = next(
            (i for i, s in enumerate(record.seats) if s.public_key == self.identity.public_key),
            None,
        )
        if seat is not None and record.seats[seat].anchor != self.anchor:
            raise RemoteProtocolError("malformed", "the start record carries a wrong anchor")
        if seat is not None and self.chain_length and record.chain_length != self.chain_length:
            self.events.append(
                Refused(
                    f"the host fixed a chain length of {record.chain_length}; this peer's chain "
                    f"has {self.chain_length} links (use the same lantag version)"
                )
            )
            return
        if seat is None and not self.spectator:
            self.events.append(Refused("the host started without us"))
            return
        peers: dict[int, Addr] = {int(s): (str(h), int(p)) for s, h, p in addr_list}
        peers[0] = self.host
        watchers = tuple((str(h), int(p)) for h, p in watch_list)
        self.started = Started(record, seat, peers, watchers)
        self.events.append(self.started)
