"""A joiner on another subnet (issue #35): the advert never arrives, the address does.

The lab's switch namespace becomes a router: h1 stays on the bridge (10.77.0.1/24),
h2's port leaves the bridge and is routed as 10.78.0.0/24.  Multicast (mDNS) is
link-local and never crosses a router, so `lantag join NAME` from h2 finds nothing
and must say how to join by address (exit 1, a network condition); the join by the
address the host printed then plays the game, which shows the routing works and it
is only discovery that is missing.  Hang guards only; skipped without namespaces.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.netns.lab import Lan, built_lan, needs_netns, netlab, verify

pytestmark = [pytest.mark.netns, needs_netns]

ROUTER_LAN, ROUTER_OTHER, JOINER = "10.77.0.254", "10.78.0.254", "10.78.0.2"


def _route(lab: object) -> None:
    """h2's port leaves the bridge and is routed as 10.78.0.0/24 by the switch."""
    sw, h1, h2 = lab.switch, lab.ns("h1"), lab.ns("h2")  # type: ignore[attr-defined]
    netlab._ip("-n", sw, "link", "set", "p2", "nomaster")
    netlab._ip("-n", sw, "addr", "add", f"{ROUTER_LAN}/24", "dev", "br0")
    netlab._ip("-n", sw, "addr", "add", f"{ROUTER_OTHER}/24", "dev", "p2")
    netlab._sysctl(sw, "net.ipv4.ip_forward", "1")
    netlab._ip("-n", h2, "addr", "flush", "dev", "eth0")
    netlab._ip("-n", h2, "addr", "add", f"{JOINER}/24", "dev", "eth0")
    netlab._ip("-n", h2, "route", "add", "default", "via", ROUTER_OTHER)
    netlab._ip("-n", h1, "route", "add", "10.78.0.0/24", "via", ROUTER_LAN)


@pytest.fixture
def routed_lan(tmp_path: Path) -> Iterator[Lan]:
    yield from built_lan(tmp_path, 2, "subn", _route)


def test_join_by_name_from_another_subnet_says_join_by_address(routed_lan: Lan) -> None:
    lan = routed_lan
    alice, bob = lan.peer("alice", "h1"), lan.peer("bob", "h2")
    alice.fingerprint()
    bob.fingerprint()
    host = ["host", "--headless", "--start-when-full", "--game", "prototag", "--seats", "2"]
    alice.start([*host, "--name", "Other subnet", "--log", str(alice.log)])
    port = alice.port()
    hint = next(line for line in alice.err().splitlines() if "others run:" in line)
    assert f"lantag join {alice.addr}:{port}" in hint, hint

    failure = bob.join_by_name_fails("Other subnet", 3)
    assert "no game named 'Other subnet' found on the LAN" in failure
    assert re.search(r"lantag join \d+\.\d+\.\d+\.\d+:\d+", failure), failure
    assert "another subnet" in failure

    # The address the host printed crosses the router: only discovery was missing.
    bob.start(["join", f"{alice.addr}:{port}", "--headless", "--log", str(bob.log)])
    codes = [p.wait() for p in (alice, bob)]
    assert codes == [0, 0], [p.err()[-400:] for p in (alice, bob)]
    assert verify(bob.log).complete
