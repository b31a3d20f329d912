"""A namespaced LAN for multi-host lanTag tests: N hosts on one Linux bridge.

    python -m scripts.netlab up 3                # hosts h1..h3 = 10.77.0.1..3/24
    python -m scripts.netlab exec h2 -- lantag list --wait 3
    python -m scripts.netlab status
    python -m scripts.netlab down

Layout (all of it outside the machine's own network namespace, so nothing
leaks onto the real LAN and nothing needs cleaning up there):

    netns LAB-sw:  bridge br0 (multicast snooping off), ports p1..pN
    netns LAB-hI:  lo (up) + eth0 = 10.77.0.I/24, multicast on, a 224.0.0.0/4
                   route via eth0; eth0 is the other end of the veth pair pI

``--lab NAME`` (default ``ltlab``) prefixes every namespace, so several labs
can exist side by side (the tests use a unique name per test).  ``down``
deletes every namespace of the lab, which removes the bridge and veths with
them; processes still running inside them are killed first (by pid, from
``ip netns pids``).

Needs root (CAP_SYS_ADMIN + CAP_NET_ADMIN) and iproute2 (``ip``).  Also
importable: ``up()``, ``down()``, ``Lab``, ``problem()`` (why a lab cannot be
built here, or None).  See docs/NETLAB.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

SUBNET = "10.77.0"
PREFIX_LEN = 24
DEFAULT_LAB = "ltlab"
MAX_HOSTS = 200
IP_TIMEOUT = 20.0  # hang guard for one `ip` invocation


class NetlabError(RuntimeError):
    """An `ip` command failed; the message has the command and its stderr."""


@dataclass(frozen=True)
class Lab:
    name: str
    count: int

    @property
    def switch(self) -> str:
        return f"{self.name}-sw"

    @property
    def hosts(self) -> list[str]:
        return [f"h{i}" for i in range(1, self.count + 1)]

    def ns(self, host: str | int) -> str:
        """Namespace of ``host``: ``"h2"``, ``2`` or ``"10.77.0.2"``."""
        return f"{self.name}-h{_index(host)}"

    def addr(self, host: str | int) -> str:
        return f"{SUBNET}.{_index(host)}"

    def exec_argv(self, host: str | int, argv: Sequence[str]) -> list[str]:
        """``argv`` wrapped to run inside ``host``'s namespace."""
        return ["ip", "netns", "exec", self.ns(host), *argv]


def _index(host: str | int) -> int:
    text = str(host)
    if text.startswith(SUBNET + "."):
        text = text[len(SUBNET) + 1 :]
    text = text.removeprefix("h")
    if not text.isdigit() or not 1 <= int(text) <= MAX_HOSTS:
        raise ValueError(f"not a lab host: {host!r} (use h1, 2 or {SUBNET}.3)")
    return int(text)


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    cmd = ["ip", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=IP_TIMEOUT, check=False)
    if check and proc.returncode != 0:
        raise NetlabError(f"{' '.join(cmd)}: {proc.stderr.strip() or f'exit {proc.returncode}'}")
    return proc


def _sysctl(ns: str, key: str, value: str) -> None:
    # Written through /proc inside the namespace: no dependency on procps' sysctl.
    path = "/proc/sys/" + key.replace(".", "/")
    _ip("netns", "exec", ns, "sh", "-c", f"echo {value} > {path}", check=False)


def namespaces() -> list[str]:
    proc = _ip("netns", "list", check=False)
    return [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]


def lab_namespaces(name: str) -> list[str]:
    return [ns for ns in namespaces() if ns.startswith(f"{name}-")]


def up(count: int, name: str = DEFAULT_LAB) -> Lab:
    """Build the lab (after removing any old lab of that name); on failure nothing is left."""
    if not 1 <= count <= MAX_HOSTS:
        raise ValueError(f"host count must be 1..{MAX_HOSTS}")
    lab = Lab(name, count)
    down(name)
    try:
        sw = lab.switch
        _ip("netns", "add", sw)
        _ip("-n", sw, "link", "set", "lo", "up")
        _ip("-n", sw, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        _ip("-n", sw, "link", "set", "br0", "up")
        for i in range(1, count + 1):
            ns, port = lab.ns(i), f"p{i}"
            _ip("netns", "add", ns)
            _sysctl(ns, "net.ipv6.conf.all.disable_ipv6", "1")
            _sysctl(ns, "net.ipv6.conf.default.disable_ipv6", "1")
            _ip("-n", sw, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns)
            _ip("-n", sw, "link", "set", port, "master", "br0")
            _ip("-n", sw, "link", "set", port, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "addr", "add", f"{lab.addr(i)}/{PREFIX_LEN}", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "multicast", "on")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")
        _wait_carrier(lab)
    except BaseException:
        down(name)
        raise
    return lab


def _wait_carrier(lab: Lab, timeout: float = 10.0) -> None:
    """Hang guard: wait until every eth0 reports LOWER_UP (veth carrier follows its peer)."""
    deadline = time.monotonic() + timeout
    for host in lab.hosts:
        while "LOWER_UP" not in _ip("-n", lab.ns(host), "link", "show", "eth0").stdout:
            if time.monotonic() > deadline:
                raise NetlabError(f"{host}: eth0 has no carrier after {timeout:.0f}s")
            time.sleep(0.05)


def kill_processes(name: str) -> int:
    """SIGKILL every process still running in the lab's namespaces; returns how many."""
    killed = 0
    for ns in lab_namespaces(name):
        out = _ip("netns", "pids", ns, check=False).stdout
        for pid in {int(p) for p in out.split() if p.isdigit()}:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
    return killed


def down(name: str = DEFAULT_LAB) -> None:
    """Remove the lab: its processes, namespaces, bridge and veths.  Idempotent."""
    kill_processes(name)
    for ns in lab_namespaces(name):
        _ip("netns", "del", ns, check=False)


def status(name: str = DEFAULT_LAB) -> str:
    found = lab_namespaces(name)
    if not found:
        return f"lab {name}: down"
    lines = [f"lab {name}:"]
    for ns in sorted(found):
        if ns.endswith("-sw"):
            ports = _ip("-n", ns, "-br", "link", "show", "master", "br0", check=False).stdout
            names = [line.split()[0].split("@")[0] for line in ports.splitlines() if line.strip()]
            lines.append(f"  {ns}: bridge br0, ports {' '.join(names) or '-'}")
        else:
            addr = _ip("-n", ns, "-br", "-4", "addr", "show", "eth0", check=False).stdout.strip()
            pids = _ip("netns", "pids", ns, check=False).stdout.split()
            lines.append(f"  {ns}: {addr or 'no eth0'}; {len(pids)} process(es)")
    return "\n".join(lines)


def problem() -> str | None:
    """Why a lab cannot be built on this machine, or None (builds and removes a tiny probe)."""
    if not sys.platform.startswith("linux"):
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return "network namespaces need root (run the netns tests as root)"
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not installed (apt-get install iproute2)"
    probe = f"ltprobe{uuid.uuid4().hex[:6]}"
    try:
        up(2, probe)
    except (NetlabError, OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot build network namespaces here: {exc}"
    finally:
        down(probe)
    return None


# --------------------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m scripts.netlab", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--lab", default=DEFAULT_LAB, help=f"namespace prefix (default {DEFAULT_LAB})")
    sub = p.add_subparsers(dest="cmd", required=True)
    u = sub.add_parser("up", help="create N hosts on one bridge (replaces an old lab)")
    u.add_argument("count", type=int)
    sub.add_parser("down", help="kill the lab's processes and delete its namespaces")
    sub.add_parser("status", help="show the lab's namespaces, addresses and processes")
    e = sub.add_parser("exec", help="run a command in a host's namespace: exec h1 -- cmd...")
    e.add_argument("host")
    e.add_argument("command", nargs=argparse.REMAINDER)
    sub.add_parser("check", help="say whether a lab can be built here (exit 1 if not)")
    args = p.parse_args(argv)
    try:
        if args.cmd == "up":
            lab = up(args.count, args.lab)
            for host in lab.hosts:
                print(f"{host}  {lab.addr(host)}/{PREFIX_LEN}  netns {lab.ns(host)}")
        elif args.cmd == "down":
            down(args.lab)
        elif args.cmd == "status":
            print(status(args.lab))
        elif args.cmd == "check":
            why = problem()
            print(why or "ok: network namespaces, bridges and veths work here")
            return 1 if why else 0
        else:
            command = args.command[1:] if args.command[:1] == ["--"] else args.command
            if not command:
                p.error("exec needs a command: exec h1 -- lantag list")
            ns = Lab(args.lab, MAX_HOSTS).ns(args.host)
            if ns not in namespaces():
                print(f"netlab: {ns} does not exist (netlab.py up N first)", file=sys.stderr)
                return 2
            os.execvp("ip", ["ip", "netns", "exec", ns, *command])
    except (NetlabError, ValueError) as exc:
        print(f"netlab: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
