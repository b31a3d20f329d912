"""Wi-Fi that filters mDNS, and Wi-Fi that isolates its clients (issue #35).

Both are built on the lab's bridge (scripts/netlab.py), as access points do them:

* *mDNS filtered*: the bridge floods no multicast to the laptops' ports
  (``mcast_flood off``); unicast still passes.  `lantag list` and a join by name
  find nothing and say how to join by address; the join by address plays.
* *Client isolation*: the laptops' ports are isolated from each other
  (``isolated on``) and a third port, the access point's, relays mDNS between them
  (an "mDNS gateway", as many isolating APs have): the advert reaches the joiner,
  the host's unicast never does.  The join by name must name isolation (exit 1).

Hang guards only; skipped without namespaces.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.netns.lab import Lan, built_lan, needs_netns, netlab, verify, wait_until

pytestmark = [pytest.mark.netns, needs_netns]

# The access point's mDNS gateway: every mDNS datagram from one laptop is passed on to
# the others (unicast to their port 5353, from port 5353, as such gateways do; never
# back to its sender, which would look like a name conflict to the sender's probe).
REFLECTOR = """
import socket, sys
laptops = sys.argv[1:]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", 5353))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
             socket.inet_aton("224.0.0.251") + socket.inet_aton("0.0.0.0"))
print("relaying", flush=True)
while True:
    data, (source, _port) = s.recvfrom(9000)
    if source in laptops:
        for other in laptops:
            if other != source:
                s.sendto(data, (other, 5353))
"""


def _flags(flags: dict[str, tuple[str, str]]) -> Callable[[object], None]:
    """Set bridge port flags on the switch's ports (``port: (flag, value)``)."""

    def setup(lab: object) -> None:
        for port, (flag, value) in flags.items():
            netlab._ip("-n", lab.switch, "link", "set", "dev", port,  # type: ignore[attr-defined]
                       "type", "bridge_slave", flag, value)

    return setup


@pytest.fixture
def filtered_lan(tmp_path: Path) -> Iterator[Lan]:
    off = ("mcast_flood", "off")
    yield from built_lan(tmp_path, 2, "wifi", _flags({"p1": off, "p2": off}))


@pytest.fixture
def isolating_lan(tmp_path: Path) -> Iterator[Lan]:
    on = ("isolated", "on")
    yield from built_lan(tmp_path, 3, "wifi", _flags({"p1": on, "p2": on}))  # h3: the AP


HOST = ["host", "--headless", "--start-when-full", "--game", "prototag", "--seats", "2"]


def test_mdns_filtered_list_and_join_by_name_say_join_by_address(filtered_lan: Lan) -> None:
    lan = filtered_lan
    alice, bob = lan.peer("alice", "h1"), lan.peer("bob", "h2")
    alice.fingerprint()
    bob.fingerprint()
    alice.start([*HOST, "--name", "Filtered", "--log", str(alice.log)])
    port = alice.port()

    listed = bob.run(["list", "--wait", "3"])
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() == "no games found", listed.stdout
    assert "lantag join HOST:PORT" in listed.stderr and "filters mDNS" in listed.stderr

    failure = bob.join_by_name_fails("Filtered", 3)
    assert "no game named 'Filtered' found on the LAN" in failure
    assert re.search(r"lantag join \d+\.\d+\.\d+\.\d+:\d+", failure), failure
    assert "filters mDNS" in failure

    # Unicast crosses: the address the host printed plays the game.
    bob.start(["join", f"{alice.addr}:{port}", "--headless", "--log", str(bob.log)])
    codes = [p.wait() for p in (alice, bob)]
    assert codes == [0, 0], [p.err()[-400:] for p in (alice, bob)]
    assert verify(bob.log).complete


def test_client_isolation_is_named_when_the_advert_arrives_but_the_host_never_answers(
    isolating_lan: Lan,
) -> None:
    lan = isolating_lan
    alice, bob, ap = lan.peer("alice", "h1"), lan.peer("bob", "h2"), lan.peer("ap", "h3")
    alice.fingerprint()
    bob.fingerprint()
    ap.start_python(REFLECTOR, alice.addr, bob.addr)
    wait_until(lambda: "relaying" in ap.out(), "the access point's mDNS gateway", 20)
    alice.start([*HOST, "--name", "Isolated", "--log", str(alice.log)])
    alice.port()

    games = lan.list_games(bob, wait=4)
    assert [g["name"] for g in games] == ["Isolated"], games  # the gateway relays mDNS

    failure = bob.join_by_name_fails("Isolated", 4)
    assert f"no answer from {alice.addr}:" in failure, failure
    assert "client/AP isolation" in failure and "phone hotspot" in failure
