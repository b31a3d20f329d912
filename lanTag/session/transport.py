"""What the session needs from the layer below it (see lanTag.net.link for the reliable one)."""

from __future__ import annotations

from typing import Protocol

Addr = tuple[str, int]


class Transport(Protocol):
    def send(self, addr: Addr, payload: bytes, now: float) -> None: ...

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> list[bytes]: ...

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]: ...

    def next_timer(self) -> float | None: ...

    def handle_timer(self, now: float) -> None: ...


class HearsPeers(Protocol):
    """Optional extra of a transport: when anything at all last came from an address.

    ``last_heard(addr)`` is the ``now`` of the last frame the layer below took from
    ``addr`` (keepalives and acks included), or None when it cannot tell.  A live peer's
    links speak at least every second even while its player thinks; a killed process
    says nothing.  The session uses it only to vote earlier (SPEC §5.3): never on the wire.
    """

    def last_heard(self, addr: Addr) -> float | None: ...


class PlainTransport:
    """One payload per datagram, no reliability: for lossless simulations and replays."""

    def __init__(self) -> None:
        self._out: list[tuple[bytes, Addr]] = []

    def send(self, addr: Addr, payload: bytes, now: float) -> None:
        self._out.append((payload, addr))

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> list[bytes]:
        return [data]

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        out, self._out = self._out, []
        return out

    def next_timer(self) -> float | None:
        return None

    def handle_timer(self, now: float) -> None:
        return None

    def last_heard(self, addr: Addr) -> float | None:
        return None  # no links, no keepalives: silence says nothing
