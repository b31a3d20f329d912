"""What the game screen reads of a peer: its machine (session and event deque) and handle.

Protocols only: :class:`lanTag.peer.runtime.PeerHandle` is the real one; tests pass small
fakes (tests/ui/fakes.py).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from lanTag.peer.join_handshake import LobbyEvent
from lanTag.session import events as ev
from lanTag.session.lockstep import Session


class MachineLike(Protocol):
    """What the screens read from a PeerMachine (tests pass a small fake)."""

    @property
    def session(self) -> Session | None: ...

    @property
    def events(self) -> deque[ev.Event | LobbyEvent]: ...


class GameHandle(Protocol):
    """The parts of :class:`lanTag.peer.runtime.PeerHandle` the game screen uses."""

    @property
    def machine(self) -> MachineLike: ...

    @property
    def log_path(self) -> Path | None: ...

    def now(self) -> float: ...

    def command(self, fn: Callable[[float], None]) -> None: ...
