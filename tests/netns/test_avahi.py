"""Interop with Avahi, the mDNS stack of most Linux desktops, on the namespaced LAN.

A private D-Bus system bus and avahi-daemon run inside lab host h2 (avahi in
its own mount namespace with a tmpfs on /run, so it neither sees nor touches
the machine's /run/avahi-daemon; D-Bus on a socket in the test's tmp dir).
Then: `avahi-browse` sees a game `lantag host` advertises from h1, TXT and
all; and `lantag list` sees a game Avahi publishes.  Skipped with the reason
when avahi-daemon, avahi-utils or dbus are not installed or cannot run here.
CI needs: apt-get install -y avahi-daemon avahi-utils dbus (see docs/NETLAB.md).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lanTag.session.compatibility import rules_version_of
from lanTag.session.messages import PROTOCOL_VERSION
from lanTag.versions import lantag_version
from tests.netns.lab import Lan, needs_netns, wait_until

pytestmark = [pytest.mark.netns, needs_netns]

TOOLS = ("avahi-daemon", "avahi-browse", "avahi-publish", "dbus-daemon", "unshare", "mount")
MISSING = [tool for tool in TOOLS if shutil.which(tool) is None]
pytestmark.append(
    pytest.mark.skipif(
        bool(MISSING),
        reason=f"avahi tests skipped: {', '.join(MISSING)} not installed "
        "(apt-get install -y avahi-daemon avahi-utils dbus)",
    )
)

BUS_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
"""

AVAHI_CONF = """[server]
use-ipv4=yes
use-ipv6=no
allow-interfaces=eth0
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
"""


class Avahi:
    def __init__(self, lan: Lan, host: str, env: dict[str, str]) -> None:
        self.lan = lan
        self.host = host
        self.env = env

    def run(self, argv: list[str], guard: float = 20.0) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.lan.lab.exec_argv(self.host, argv),  # type: ignore[attr-defined]
            env=self.env,
            capture_output=True,
            text=True,
            timeout=guard,
            check=False,
        )

    def start(self, argv: list[str], name: str) -> tuple[subprocess.Popen[bytes], str]:
        err = self.lan.tmp / f"{name}.err"
        with err.open("wb") as stream:
            proc = subprocess.Popen(
                self.lan.lab.exec_argv(self.host, argv),  # type: ignore[attr-defined]
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=stream,
                stderr=subprocess.STDOUT,
            )
        self.lan.procs.append(proc)
        return proc, str(err)


def _wait_or_skip(
    predicate: Callable[[], bool], proc: subprocess.Popen[bytes], log: str, what: str
) -> None:
    deadline = time.monotonic() + 20.0  # hang guard
    while not predicate():
        if proc.poll() is not None or time.monotonic() > deadline:
            tail = Path(log).read_text(encoding="utf-8", errors="replace")[-400:]
            pytest.skip(f"{what} could not run here: {tail.strip() or 'no output'}")
        time.sleep(0.05)


@pytest.fixture
def avahi(lan: Lan) -> Iterator[Avahi]:
    """dbus-daemon + avahi-daemon in h2; yields a runner for avahi tools there."""
    work = lan.tmp / "avahi"
    work.mkdir()
    socket = work / "system_bus_socket"
    (work / "bus.conf").write_text(BUS_CONF.format(socket=socket))
    (work / "avahi-daemon.conf").write_text(AVAHI_CONF)
    env = {
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
        "DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={socket}",
    }
    runner = Avahi(lan, "h2", env)
    bus, bus_log = runner.start(
        ["dbus-daemon", f"--config-file={work / 'bus.conf'}", "--nofork", "--nopidfile"], "dbus"
    )
    _wait_or_skip(socket.exists, bus, bus_log, "dbus-daemon")
    script = (
        "mount -t tmpfs lantag-avahi /run && mkdir -p /run/avahi-daemon && "
        f"exec avahi-daemon -f {work / 'avahi-daemon.conf'} "
        "--no-drop-root --no-chroot --no-rlimits --no-proc-title"
    )
    daemon, daemon_log = runner.start(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script], "avahi-daemon"
    )
    _wait_or_skip(
        lambda: (
            "Server startup complete"
            in Path(daemon_log).read_text(encoding="utf-8", errors="replace")
        ),
        daemon,
        daemon_log,
        "avahi-daemon",
    )
    yield runner


def _unescape(label: str) -> str:
    """avahi-browse -p escapes as \\DDD (decimal) and \\. / \\\\."""
    return re.sub(r"\\(\d{3}|.)", lambda m: chr(int(m[1])) if m[1].isdigit() else m[1], label)


def test_avahi_browse_sees_a_lantag_game_with_its_txt_records(lan: Lan, avahi: Avahi) -> None:
    alice = lan.peer("alice", "h1")
    fp = alice.fingerprint()
    alice.start(
        [
            "host",
            "--headless",
            "--game",
            "stomptag",
            "--seats",
            "3",
            "--name",
            "Avahi game",
            "--password",
            "sesame",
        ]
    )
    port = alice.port()
    resolved: list[list[str]] = []

    def browse() -> bool:
        out = avahi.run(["avahi-browse", "--resolve", "--terminate", "--parsable", "_lantag._udp"])
        resolved[:] = [
            line.split(";", 9)
            for line in out.stdout.splitlines()
            if line.startswith("=") and fp in line
        ]
        return bool(resolved)

    wait_until(browse, "avahi-browse to resolve the game", 30)
    [fields] = resolved
    kind, iface, proto, name, stype, domain, hostname, address, txt_port, txt = fields
    assert (kind, iface, proto, stype, domain) == ("=", "eth0", "IPv4", "_lantag._udp", "local")
    assert _unescape(name) == f"Avahi game {fp}-{port}"
    assert hostname == f"lantag-{fp}-{port}.local"
    assert (address, int(txt_port)) == (alice.addr, port)
    records = dict(item.split("=", 1) for item in re.findall(r'"([^"]*)"', txt))
    assert records["rev"].isdigit()  # counted up by every update of the advert
    assert records == {
        "v": str(PROTOCOL_VERSION),
        "rules": str(rules_version_of("stomptag")),
        "rev": records["rev"],
        "lt": lantag_version(),
        "engine": "stomptag",
        "name": "Avahi game",
        "seats": "1/3",
        "pw": "1",
        "fp": fp,
        "state": "lobby",
        "port": str(port),
    }


def test_lantag_list_sees_a_game_published_by_avahi(lan: Lan, avahi: Avahi) -> None:
    fp = "0123456789abcdef"
    txt = [
        "v=1",
        "engine=boardtag",
        "name=From Avahi",
        "seats=2/4",
        "pw=0",
        f"fp={fp}",
        "state=lobby",
        "port=4242",
    ]
    bad = ["v=1", "engine=Not An Engine", "name=Broken", "seats=9/4", "pw=2", "fp=xyz"]
    good, good_log = avahi.start(
        ["avahi-publish", "-s", f"From Avahi {fp}-4242", "_lantag._udp", "4242", *txt], "publish"
    )
    avahi.start(["avahi-publish", "-s", "Broken 1", "_lantag._udp", "4343", *bad], "bad")
    wait_until(
        lambda: "Established" in Path(good_log).read_text(encoding="utf-8"), "avahi-publish", 30
    )
    carol = lan.peer("carol", "h3")
    games = [g for g in lan.list_games(carol) if g["port"] in (4242, 4343)]
    assert games == [
        {
            "instance": f"From Avahi {fp}-4242._lantag._udp.local.",
            "name": "From Avahi",
            "engine": "boardtag",
            "version": 1,
            "seats_taken": 2,
            "seats_total": 4,
            "password": False,
            "fingerprint": fp,
            "state": "lobby",
            "port": 4242,
            "addresses": [lan.lab.addr("h2")],  # type: ignore[attr-defined]
            # a protocol-1 advert (no versions in its TXT): listed, and said to be unjoinable
            "rules": 0,
            "revision": 0,
            "release": "",
            "position": "",  # no position in its TXT: a game from the start
            "position_note": "",
            "incompatible": f"the host runs lanTag protocol 1, you have {PROTOCOL_VERSION}: the "
            "host should "
            "upgrade lanTag (or you install the host's release)",
            "same_name": "",  # no other advert of that name
        }
    ]  # the record with invalid TXT is ignored, not shown, not fatal
    assert good.poll() is None
