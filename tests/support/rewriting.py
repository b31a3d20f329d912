"""A session's transport, wrapped: every outgoing signed message goes through ``rewrite``.

Shared by the cheating peer (adversary.py) and the withholding seat (withholder.py): the
session sends its bundles as usual; each signed message in them is handed to ``rewrite``
with its address, which returns what goes out instead (nothing, the same bytes, other
bytes, more messages), packed again into bundles of at most MAX_LINK_PAYLOAD.
"""

from __future__ import annotations

from collections.abc import Callable

from lanTag.session.core import bundles
from lanTag.session.lockstep import MAX_LINK_PAYLOAD
from lanTag.session.messages import unpack_bundle
from lanTag.session.transport import Addr, Transport


class Rewriting:
    """The transport ``inner`` with every outgoing signed message passed through ``rewrite``.

    It offers none of a transport's optional extras (``last_heard``, ``congested``): the
    session above it decides as on a transport without them."""

    def __init__(self, inner: Transport, rewrite: Callable[[bytes, Addr], list[bytes]]) -> None:
        self.inner = inner
        self.rewrite = rewrite

    def send(self, addr: Addr, payload: bytes, now: float) -> None:
        out: list[bytes] = []
        for raw in unpack_bundle(payload, MAX_LINK_PAYLOAD):
            out.extend(self.rewrite(raw, addr))
        for bundle in bundles(out):
            self.inner.send(addr, bundle, now)

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> list[bytes]:
        return self.inner.receive_datagram(data, addr, now)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        return self.inner.datagrams_to_send(now)

    def next_timer(self) -> float | None:
        return self.inner.next_timer()

    def handle_timer(self, now: float) -> None:
        self.inner.handle_timer(now)


class RewritingWithExtras(Rewriting):
    """:class:`Rewriting` that also passes on the optional extras of ``inner``
    (``last_heard``, ``congested``), so the session above sees its peers' silence."""

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)
