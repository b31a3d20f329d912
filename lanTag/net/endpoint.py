"""The interface every sans-IO datagram machine offers to a driver.

Drivers (the in-memory :mod:`lanTag.net.sim_network` and the asyncio pump in
:mod:`lanTag.net.udp`) follow one loop: after every received datagram and
every timer tick they call :meth:`~DatagramMachine.datagrams_to_send` and
re-arm a timer for :meth:`~DatagramMachine.next_timer`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeAlias

if TYPE_CHECKING:
    from lanTag.net.link import LinkLayer

__all__ = ["Addr", "DatagramMachine", "LinkEndpoint"]

Addr: TypeAlias = tuple[str, int]


class DatagramMachine(Protocol):
    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> object:
        """Consume one datagram from ``addr``; the return value is the machine's own business."""

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        """Everything the machine wants on the wire now."""

    def next_timer(self) -> float | None:
        """When :meth:`handle_timer` must next run (same clock as ``now``), or None."""

    def handle_timer(self, now: float) -> None:
        """Advance timers up to ``now``; output is then collected by :meth:`datagrams_to_send`."""


class LinkEndpoint:
    """A :class:`LinkLayer` plus an application callback: a complete machine for tests/tools."""

    def __init__(self, layer: LinkLayer, on_message: Callable[[Addr, bytes], None]) -> None:
        self.layer = layer
        self._on_message = on_message

    def send(self, addr: Addr, payload: bytes, now: float) -> None:
        self.layer.send(addr, payload, now)

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> list[bytes]:
        messages = self.layer.receive_datagram(data, addr, now)
        for message in messages:
            self._on_message(addr, message)
        return messages

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        return self.layer.datagrams_to_send(now)

    def next_timer(self) -> float | None:
        return self.layer.next_timer()

    def handle_timer(self, now: float) -> None:
        self.layer.handle_timer(now)
