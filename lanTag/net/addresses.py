"""Which of a host's addresses to try first, and which to tell people to type.

A laptop at a game night often has more IPv4 addresses than its LAN one: WSL2 /
Hyper-V / docker bridges (172.16/12), Tailscale or a carrier NAT (100.64/10), an
APIPA address (169.254/16) on an unplugged adapter, a VPN.  A joiner orders the
advertised addresses (:func:`rank_addresses`): one on the subnet of one of its own
interfaces first, then ordinary addresses, then those known virtual ranges, then
link-local, then loopback.  The command races them (``lantag join``: staggered, first
answer wins).  The host's hint lists the addresses people can type
(:func:`typeable_addresses`), the one on the default route first.

Pure functions of their inputs, plus :func:`local_networks` / :func:`default_route_ipv4`
that read this machine's interfaces.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Iterable, Sequence

__all__ = [
    "default_route_ipv4",
    "local_ipv4",
    "local_networks",
    "rank_addresses",
    "typeable_addresses",
]

IPv4Net = ipaddress.IPv4Network

# Ranges of adapters that are rarely the LAN everybody shares (docker, WSL2/Hyper-V,
# Tailscale/CGNAT).  Tried after ordinary addresses, never skipped.
VIRTUAL = (IPv4Net("172.16.0.0/12"), IPv4Net("100.64.0.0/10"))
LINK_LOCAL = IPv4Net("169.254.0.0/16")
LOOPBACK = IPv4Net("127.0.0.0/8")


def _ipv4(text: str) -> ipaddress.IPv4Address | None:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    return address if isinstance(address, ipaddress.IPv4Address) else None


def _tier(address: ipaddress.IPv4Address, networks: Sequence[IPv4Net]) -> int:
    """0 on a local subnet, 1 ordinary, 2 known virtual range, 3 link-local, 4 loopback."""
    if address in LOOPBACK:
        return 4
    if address in LINK_LOCAL:
        return 3
    if any(address in net for net in networks if not _special(net)):
        return 0
    if any(address in net for net in VIRTUAL):
        return 2
    return 1


def _special(net: IPv4Net) -> bool:
    """Subnets that prove nothing about sharing a LAN (every laptop has them)."""
    return net.subnet_of(LOOPBACK) or net.subnet_of(LINK_LOCAL) or net.prefixlen == 32


def rank_addresses(addresses: Iterable[str], networks: Sequence[IPv4Net] = ()) -> list[str]:
    """``addresses`` (IPv4 text; anything else is dropped) in the order to try them,
    given the joiner's own ``networks``.  Stable within a tier: the host's order."""
    seen: dict[str, ipaddress.IPv4Address] = {}
    for text in addresses:
        address = _ipv4(text)
        if address is not None and str(address) not in seen:
            seen[str(address)] = address
    return sorted(seen, key=lambda text: _tier(seen[text], networks))


def typeable_addresses(
    addresses: Iterable[str], default: str | None, networks: Sequence[IPv4Net] = ()
) -> list[str]:
    """The host's addresses worth telling people: the default-route one first, then the
    rest by :func:`rank_addresses`, without loopback and link-local (nobody can type
    those usefully from another laptop); loopback alone when there is nothing else."""
    ranked = rank_addresses(addresses, networks)
    useful = [a for a in ranked if _tier(ipaddress.IPv4Address(a), networks) < 3]
    if default in useful:
        useful.remove(default)
        useful.insert(0, default)
    return useful or ["127.0.0.1"]


def local_networks() -> list[IPv4Net]:
    """This machine's IPv4 subnets (from its interfaces)."""
    import ifaddr

    found: list[IPv4Net] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):
                with contextlib.suppress(ValueError):
                    found.append(IPv4Net(f"{ip.ip}/{ip.network_prefix}", strict=False))
    return found


def local_ipv4() -> list[str]:
    """This machine's IPv4 addresses, loopback excluded."""
    import ifaddr

    return [
        str(ip.ip)
        for adapter in ifaddr.get_adapters()
        for ip in adapter.ips
        if isinstance(ip.ip, str) and not ip.ip.startswith("127.")
    ]


def default_route_ipv4() -> str | None:
    """The address this machine would send from to the internet (no packet is sent:
    connecting a UDP socket only picks the route); None without a default route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("192.0.2.1", 9))  # TEST-NET-1: never answered, only routed
            address = str(sock.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith(("0.", "127.")) else address
