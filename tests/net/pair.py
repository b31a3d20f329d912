"""Two LinkEndpoints on a SimNetwork, recording what each application receives."""

from __future__ import annotations

from dataclasses import dataclass, field

from lanTag.net.endpoint import Addr, LinkEndpoint
from lanTag.net.faults import NetSimConfig
from lanTag.net.link import LinkConfig, LinkLayer
from lanTag.net.sim_network import SimNetwork

A: Addr = ("10.9.0.1", 4000)
B: Addr = ("10.9.0.2", 4000)


@dataclass
class Pair:
    net: SimNetwork
    a: LinkEndpoint
    b: LinkEndpoint
    got: dict[Addr, list[bytes]] = field(default_factory=dict)

    def layer(self, addr: Addr) -> LinkLayer:
        return (self.a if addr == A else self.b).layer

    def replace(self, addr: Addr, seed: int, config: LinkConfig | None = None) -> LinkEndpoint:
        """A fresh process at ``addr`` (new epochs, empty state)."""
        endpoint = _endpoint(self, addr, seed, config)
        self.net.add(addr, endpoint)
        if addr == A:
            self.a = endpoint
        else:
            self.b = endpoint
        return endpoint


def _endpoint(pair: Pair, addr: Addr, seed: int, config: LinkConfig | None) -> LinkEndpoint:
    pair.got[addr] = []
    return LinkEndpoint(LinkLayer(seed, config), lambda _src, m: pair.got[addr].append(m))


def make_pair(
    faults: str | NetSimConfig | None = None, config: LinkConfig | None = None, trace: bool = False
) -> Pair:
    cfg = NetSimConfig.parse(faults) if isinstance(faults, str) else faults
    pair = Pair(SimNetwork(cfg, trace=trace), None, None)  # type: ignore[arg-type]
    pair.replace(A, 1, config)
    pair.replace(B, 2, config)
    return pair
