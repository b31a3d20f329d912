"""A host with several adapters is joined by name from another namespace (issue #23).

The host's namespace holds its LAN veth (10.77.0.1) plus a second veth pair, inside
the same namespace, carrying 10.100.0.6 and 169.254.12.7 (this kernel has no dummy
links): all three are advertised.  The joiner must go to the one on its own subnet,
say which one answered, and play the game; the host's hint names the addresses people
can type (not the link-local one).  Hang guards only; skipped without namespaces.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.netns.lab import Lan, built_lan, needs_netns, netlab, verify

pytestmark = [pytest.mark.netns, needs_netns]

EXTRA = ("10.100.0.6", "169.254.12.7")


def _extra_adapters(lab: object) -> None:
    """h1 gets a second adapter pair: one on another /24, one link-local."""
    ns = lab.ns("h1")  # type: ignore[attr-defined]
    netlab._ip("-n", ns, "link", "add", "xv0", "type", "veth", "peer", "name", "xv1")
    netlab._ip("-n", ns, "addr", "add", f"{EXTRA[0]}/24", "dev", "xv0")
    netlab._ip("-n", ns, "addr", "add", f"{EXTRA[1]}/16", "dev", "xv1")
    netlab._ip("-n", ns, "link", "set", "xv0", "up")
    netlab._ip("-n", ns, "link", "set", "xv1", "up")


@pytest.fixture
def multi_nic_lan(tmp_path: Path) -> Iterator[Lan]:
    yield from built_lan(tmp_path, 2, "plat", _extra_adapters)


def test_a_host_with_extra_adapters_is_joined_by_name(multi_nic_lan: Lan) -> None:
    lan = multi_nic_lan
    alice, bob = lan.peer("alice", "h1"), lan.peer("bob", "h2")
    alice.fingerprint()
    bob.fingerprint()
    alice.start(
        [
            "host",
            "--headless",
            "--start-when-full",
            "--game",
            "prototag",
            "--seats",
            "2",
            "--name",
            "Multi NIC",
            "--log",
            str(alice.log),
        ]
    )
    port = alice.port()
    hint = next(line for line in alice.err().splitlines() if "others run:" in line)
    assert f"lantag join {alice.addr}:{port} (or {EXTRA[0]}:{port})" in hint, hint
    assert EXTRA[1] not in hint  # link-local: nobody can type it usefully
    bob.start(["join", "Multi NIC", "--wait", "3", "--headless", "--log", str(bob.log)])
    codes = [p.wait() for p in (alice, bob)]
    assert codes == [0, 0], [p.err()[-400:] for p in (alice, bob)]
    err = bob.err()
    # every advertised address, in the order tried: own subnet, ordinary, link-local
    tried = f"contacting {alice.addr}:{port}, {EXTRA[0]}:{port}, {EXTRA[1]}:{port}"
    assert tried in err, err
    assert f"the host answered on {alice.addr}:{port}" in err, err
    assert "game over after" in bob.out()
    assert verify(bob.log).complete


def test_a_join_to_an_address_without_a_route_says_so(multi_nic_lan: Lan) -> None:
    """h2 has no route to 10.9.9.9: every hello fails with ENETUNREACH, and the one line
    at the join timeout names the address as unreachable (wrong address)."""
    bob = multi_nic_lan.peer("bob", "h2")
    result = bob.run(["join", "10.9.9.9:4000", "--headless", "--timeout", "2"])
    lines = [line for line in result.stderr.splitlines() if line.startswith("lantag:")]
    assert result.returncode == 1 and len(lines) == 1, result.stderr
    assert lines[0].startswith("lantag: no answer from 10.9.9.9:4000 within 2 s — ")
    assert "10.9.9.9 is unreachable from this laptop (no route): wrong address?" in lines[0]
