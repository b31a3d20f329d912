"""A seeded datagram fault injector: loss, duplication, delay, jitter, reordering, partitions.

This kernel has no netem, so faults are applied in user space, by both the
in-memory :class:`~lanTag.net.sim_network.SimNetwork` and the real asyncio pump.
Scheduling is pure apart from the injector's *own* ``random.Random(seed)``:
the same seed and the same sequence of ``schedule`` calls give the same result.

Text form (all keys optional, any order)::

    loss=0.2,dup=0.05,reorder=0.1,delay=30ms,jitter=20ms,hold=10ms,seed=7,partition=2s..3.5s

* ``loss``, ``dup``, ``reorder``: probabilities, ``0.2`` or ``20%``.
* ``delay``: fixed one-way latency; ``jitter``: extra latency uniform in [0, jitter].
* ``reorder``: the datagram is held back an extra ``hold`` (default 10ms) so later
  ones overtake it.
* ``partition=A..B``: every datagram scheduled between A and B after the
  injector's first use is lost.
* durations take ``us``, ``ms`` or ``s``.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, fields, replace

from lanTag.errors import LanTagError

__all__ = ["NetSim", "NetSimConfig", "NetSimConfigError", "NetSimStats"]


class NetSimConfigError(LanTagError, ValueError):
    """A NetSim description that does not parse; the message names the key and the problem."""


_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(us|ms|s)\s*$")
_UNIT = {"us": 1e-6, "ms": 1e-3, "s": 1.0}


def _duration(key: str, text: str) -> float:
    m = _DURATION.match(text)
    if not m:
        raise NetSimConfigError(f"{key}: {text!r} is not a duration like 30ms, 1.5s or 200us")
    return float(m.group(1)) * _UNIT[m.group(2)]


def _probability(key: str, text: str) -> float:
    body = text.strip()
    scale = 1.0
    if body.endswith("%"):
        body, scale = body[:-1], 0.01
    try:
        value = float(body) * scale
    except ValueError:
        raise NetSimConfigError(f"{key}: {text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise NetSimConfigError(f"{key}: probability {text!r} is outside [0, 1]")
    return value


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e3:g}ms"


@dataclass(frozen=True, slots=True)
class NetSimConfig:
    loss: float = 0.0
    dup: float = 0.0
    reorder: float = 0.0
    delay: float = 0.0
    jitter: float = 0.0
    hold: float = 0.010
    seed: int = 0
    partition: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        for key in ("loss", "dup", "reorder"):
            if not 0.0 <= getattr(self, key) <= 1.0:
                raise NetSimConfigError(f"{key}: probability {getattr(self, key)} outside [0, 1]")
        for key in ("delay", "jitter", "hold"):
            if getattr(self, key) < 0:
                raise NetSimConfigError(f"{key}: negative duration {getattr(self, key)}")
        if self.partition is not None and not 0 <= self.partition[0] <= self.partition[1]:
            raise NetSimConfigError(f"partition: need 0 <= start <= end, got {self.partition}")

    @classmethod
    def parse(cls, text: str) -> NetSimConfig:
        values: dict[str, object] = {}
        known = {f.name for f in fields(cls)}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, sep, raw = (s.strip() for s in item.partition("="))
            if not sep:
                raise NetSimConfigError(f"{item!r}: expected key=value")
            if key not in known:
                raise NetSimConfigError(f"unknown key {key!r}; known: {', '.join(sorted(known))}")
            if key in values:
                raise NetSimConfigError(f"{key}: given twice")
            if key in ("loss", "dup", "reorder"):
                values[key] = _probability(key, raw)
            elif key in ("delay", "jitter", "hold"):
                values[key] = _duration(key, raw)
            elif key == "seed":
                try:
                    values[key] = int(raw, 0)
                except ValueError:
                    raise NetSimConfigError(f"seed: {raw!r} is not an integer") from None
            else:
                start, dots, end = raw.partition("..")
                if not dots:
                    raise NetSimConfigError(f"partition: {raw!r} is not START..END, e.g. 2s..3.5s")
                values[key] = (_duration(key, start), _duration(key, end))
        return cls(**values)  # type: ignore[arg-type]

    def __str__(self) -> str:
        parts = [
            f"loss={self.loss:g}",
            f"dup={self.dup:g}",
            f"reorder={self.reorder:g}",
            f"delay={_fmt(self.delay)}",
            f"jitter={_fmt(self.jitter)}",
            f"hold={_fmt(self.hold)}",
            f"seed={self.seed}",
        ]
        if self.partition is not None:
            parts.append(f"partition={_fmt(self.partition[0])}..{_fmt(self.partition[1])}")
        return ",".join(parts)


@dataclass(frozen=True, slots=True)
class NetSimStats:
    scheduled: int = 0
    lost: int = 0
    partitioned: int = 0
    duplicated: int = 0
    reordered: int = 0


class NetSim:
    """One direction (or one socket's worth) of faults, with its own RNG and partition clock."""

    def __init__(self, config: NetSimConfig | None = None) -> None:
        self.config = config or NetSimConfig()
        self._rng = random.Random(self.config.seed)
        self._origin: float | None = None
        self._stats = NetSimStats()

    @classmethod
    def parse(cls, text: str) -> NetSim:
        return cls(NetSimConfig.parse(text))

    def fork(self, salt: str) -> NetSim:
        """An independent injector with the same faults and a seed derived from ``salt``.

        Derived with blake2b, not ``hash()``, so it is stable across processes.
        """
        digest = hashlib.blake2b(f"{self.config.seed}/{salt}".encode(), digest_size=8).digest()
        return NetSim(replace(self.config, seed=int.from_bytes(digest, "big")))

    @property
    def stats(self) -> NetSimStats:
        return self._stats

    def schedule(self, data: bytes, now: float) -> list[tuple[float, bytes]]:
        """When (if ever) ``data`` sent at ``now`` arrives: zero or more (deliver_at, bytes)."""
        cfg, rng, st = self.config, self._rng, self._stats
        if self._origin is None:
            self._origin = now
        # Draw every number for every datagram, so changing one probability does not
        # shift the random stream of the others.
        u_loss, u_dup, u_reorder = rng.random(), rng.random(), rng.random()
        jitters = (rng.random() * cfg.jitter, rng.random() * cfg.jitter)
        if cfg.partition is not None and cfg.partition[0] <= now - self._origin < cfg.partition[1]:
            self._stats = replace(st, scheduled=st.scheduled + 1, partitioned=st.partitioned + 1)
            return []
        if u_loss < cfg.loss:
            self._stats = replace(st, scheduled=st.scheduled + 1, lost=st.lost + 1)
            return []
        held = u_reorder < cfg.reorder
        first = now + cfg.delay + jitters[0] + (cfg.hold if held else 0.0)
        out = [(first, data)]
        duplicated = u_dup < cfg.dup
        if duplicated:
            out.append((now + cfg.delay + jitters[1], data))
        self._stats = replace(
            st,
            scheduled=st.scheduled + 1,
            duplicated=st.duplicated + duplicated,
            reordered=st.reordered + held,
        )
        return sorted(out, key=lambda item: item[0])
