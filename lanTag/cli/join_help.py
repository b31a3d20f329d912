"""What to tell a player whose join failed: one line, naming the address and likely causes.

Kept in one place so the network side (firewall, address choice) can add causes it
detects without touching the join command.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from lanTag.session.transport import Addr

DEFAULT_JOIN_TIMEOUT = 10.0  # seconds `lantag join` waits for the host's first answer


def no_answer_line(host: Addr, seconds: float, causes: Sequence[str] = ()) -> str:
    """The host at ``host`` said nothing within ``seconds``: where, and what to check.

    ``causes`` are extra likely causes found on this machine (each a short question),
    said before the generic ones.
    """
    address, port = host
    checks = [
        *causes,
        "is the game still hosted, and still in its lobby (a started game takes no one new)?",
        f"is UDP port {port} allowed by the firewall?",
    ]
    return f"no answer from {address}:{port} within {seconds:g} s — " + " ".join(checks)


_BY_ADDRESS = (
    "ask the host for the address it printed and run: lantag join HOST:PORT "
    "(e.g. lantag join 192.168.1.20:40555).  Likely causes: the Wi-Fi filters mDNS (guest, "
    "campus and office networks often do); the host is on another subnet; on a Mac, Local "
    "Network is off for your terminal app (System Settings → Privacy & Security → Local "
    "Network)."
)


def not_found_line(name: str | None, seconds: float) -> str:
    """Nothing (or nothing of that name) was heard on mDNS for ``seconds``: the usual
    reasons, and the join that works without mDNS (the host prints its address)."""
    what = f"no game named {name!r}" if name else "no games"
    return f"{what} found on the LAN within {seconds:g} s — {_BY_ADDRESS}"


def empty_list_hint() -> str:
    """Said under an empty `lantag list`: a friend's game may be there all the same."""
    return f"a friend's game not listed? {_BY_ADDRESS}"


NO_ROUTE = frozenset({"EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ENETDOWN"})
BLOCKED = frozenset({"EPERM", "EACCES"})
CLOSED = frozenset({"ECONNREFUSED", "ECONNRESET", "ConnectionRefusedError"})

ISOLATED = (
    "the game's advert reached this laptop but the host never answered: client/AP isolation? "
    "(guest Wi-Fi often isolates devices: try a phone hotspot or a home network)"
)
"""Said when the join found the game by its mDNS advert and the host still said nothing."""


def likely_causes(
    tried: Sequence[Addr],
    unreachable: Mapping[Addr, str],
    last_error: str | None,
    platform: str = sys.platform,
    *,
    advertised: bool = False,
) -> list[str]:
    """Why the host said nothing, from what the socket saw (net/udp.py: ``pump.unreachable``
    maps an address to the error of its last send, ``pump.last_error`` is the last error
    of any kind), and this OS's usual suspects.  Each cause is a short question.

    ``advertised``: the addresses came from the host's own mDNS advert, so multicast
    crosses this network and the address is right; what drops the unicast between two
    laptops that hear each other's multicast is most often the access point isolating
    its clients (guest, campus, hotel Wi-Fi), so that is said first."""
    causes: list[str] = []
    errors = {addr: unreachable[addr] for addr in tried if addr in unreachable}
    closed = last_error in CLOSED or any(e in CLOSED for e in errors.values())
    if advertised and not closed:  # a closed port is an answer from the host's laptop
        causes.append(ISOLATED)
    no_route = [a for a, e in errors.items() if e in NO_ROUTE]
    if no_route and platform == "darwin":
        causes.append(
            "macOS refused to send (no route): is Local Network allowed for your terminal "
            "app in System Settings → Privacy & Security → Local Network?"
        )
    elif no_route:
        shown = ", ".join(a for a, _ in no_route)
        # An advertised address is the host's own: isolation (ARP unanswered), not a typo.
        guess = "" if advertised else ": wrong address?"
        causes.append(f"{shown} is unreachable from this laptop (no route){guess}")
    if any(e in BLOCKED for e in errors.values()):
        causes.append("this laptop's firewall refused to send (permission denied)?")
    if closed:
        causes.append("the host's laptop says that port is closed: wrong port, or game over?")
    if not errors and platform == "win32":
        causes.append(
            "Windows Firewall: was Python allowed on Private networks, and is this Wi-Fi "
            "set to Private (not Public) on both laptops?"
        )
    elif not errors and platform == "darwin":
        causes.append(
            "macOS: is Local Network allowed for your terminal app (System Settings → "
            "Privacy & Security → Local Network), and incoming connections for Python "
            "on the host?"
        )
    return causes


def needs_terminal_line() -> str:
    """Joining with the console but stdin is not a terminal (a pipe, a service, a CI job)."""
    return "the console needs a terminal (stdin is not one); add --headless to let a bot play"
