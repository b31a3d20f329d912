"""Chat meant for one seat only (PRIVATE, SPEC §3): sealed by the caller with
lanTag.private_chat.seal, signed and sent to that seat's address alone, never logged.

A part the Session owns: it holds no state of its own; it sends through the journal's
outbox, shows what it opens as journal events, and counts a PRIVATE against the seat's
chatter cap like any other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lanTag.errors import LocalProtocolError
from lanTag.identity import Identity, Signer
from lanTag.session import events as ev
from lanTag.session.chatter import TOO_CHATTY, ChatterCap
from lanTag.session.journal import Journal
from lanTag.session.messages import MsgType, Signed, sign_message
from lanTag.session.transport import Addr


class PrivateLine:
    """Private chat of our seat: what a sealed line is bound to, sending one, opening one.

    ``where`` gives our current step and the state hash a PRIVATE carries there."""

    def __init__(
        self,
        *,
        game_id: bytes,
        protocol: int,
        seat: int | None,
        signer: Signer | None,
        identity: Identity | None,
        peers: Mapping[int, Addr],
        journal: Journal,
        chatter: ChatterCap,
        where: Callable[[], tuple[int, bytes]],
    ) -> None:
        self._game_id = game_id
        self._protocol = protocol
        self._seat = seat
        self._signer = signer
        self._identity = identity
        self._peers = peers
        self._journal = journal
        self._chatter = chatter
        self._where = where

    def aad(self, sender: int, to: int) -> bytes:
        """What a private message's encryption is bound to: this game, its sender, its reader."""
        return self._game_id + sender.to_bytes(2, "big") + to.to_bytes(2, "big")

    def send(self, to: int, sealed: tuple[bytes, bytes, bytes]) -> None:
        """Send chat sealed with lanTag.private_chat.seal to seat ``to`` only (never logged)."""
        if self._signer is None or self._seat is None:
            raise LocalProtocolError("spectators cannot chat")
        addr = self._peers.get(to)
        if addr is None or to == self._seat:
            raise LocalProtocolError(f"seat {to} is not another person at this table")
        step, state_hash = self._where()
        msg = sign_message(
            self._signer,
            MsgType.PRIVATE,
            self._game_id,
            step,
            self._seat,
            state_hash,
            (to, *sealed),
            version=self._protocol,
        )
        if not self._chatter.room(msg):
            raise LocalProtocolError(TOO_CHATTY)
        self._journal.outbox.setdefault(addr, []).append(msg.raw)

    def receive(self, msg: Signed) -> None:
        """A PRIVATE: shown when it is for our seat and opens."""
        from lanTag.private_chat import PrivateChatError, open_sealed

        to, ephemeral, nonce, ciphertext = msg.payload
        if to != self._seat or self._identity is None:
            self._journal.count("private-not-for-us")
            return
        try:
            text = open_sealed(
                self._identity.seed, ephemeral, nonce, ciphertext, self.aad(msg.seat, to)
            )
        except PrivateChatError:
            self._journal.count("private-undecryptable")
            return
        self._journal.events.append(ev.Chat(msg.seat, text, private=True))
