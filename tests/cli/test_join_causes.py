"""Why a join got no answer, in one line (issue #23): what the socket saw, and each OS's
usual suspects (firewall, macOS Local Network permission, wrong address); and, when the
game was found by its advert, client/AP isolation (issue #35)."""

from __future__ import annotations

import errno
import socket
from pathlib import Path

import pytest

from lanTag.cli.join_help import ISOLATED, likely_causes, no_answer_line, not_found_line
from lanTag.cli.play_commands import host_answered
from lanTag.net import discovery, udp
from lanTag.net.lobby_adverts import LobbyInfo
from lanTag.peer.runtime import open_join
from tests.cli.helpers import Home
from tests.net.flaky_udp import flaky_socket
from tests.net.real_table import LOCAL, me

A, B = ("10.100.0.6", 4242), ("10.77.0.1", 4242)


def test_no_route_names_the_address_or_macos_local_network() -> None:
    linux = likely_causes([A, B], {A: "ENETUNREACH"}, "ENETUNREACH", "linux")
    assert linux == ["10.100.0.6 is unreachable from this laptop (no route): wrong address?"]
    mac = likely_causes([A], {A: "EHOSTUNREACH"}, "EHOSTUNREACH", "darwin")
    assert len(mac) == 1 and "Local Network" in mac[0] and "Privacy & Security" in mac[0]


def test_a_refused_send_is_the_local_firewall_a_closed_port_is_named() -> None:
    assert likely_causes([A], {A: "EPERM"}, "EPERM", "linux") == [
        "this laptop's firewall refused to send (permission denied)?"
    ]
    closed = likely_causes([A], {}, "ECONNRESET", "win32")  # Windows: port unreachable
    assert closed[0] == "the host's laptop says that port is closed: wrong port, or game over?"


def test_silence_gives_each_os_its_firewall_question() -> None:
    assert likely_causes([A], {}, None, "linux") == []  # the generic line says firewall
    [windows] = likely_causes([A], {}, None, "win32")
    assert "Windows Firewall" in windows and "Private" in windows
    [mac] = likely_causes([A], {}, None, "darwin")
    assert "Local Network" in mac
    assert likely_causes([A], {B: "EHOSTUNREACH"}, None, "linux") == []  # B was not tried


async def test_the_join_path_sees_unreachable_sends_within_the_timeout(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every send to the host fails with EHOSTUNREACH (injected at the socket): after the
    join timeout the pump has marked the address, and the line says why."""
    dead = (LOCAL, 9)
    sock = flaky_socket(0, 0, dead={dead})

    async def bound(bind: object) -> socket.socket:
        return sock

    monkeypatch.setattr(udp, "_bound_socket", bound)
    handle = await open_join(dead, me("j"), bind=(LOCAL, 0))
    try:
        assert not await host_answered(handle, 1.0)
        assert handle.pump.unreachable == {dead: errno.errorcode[errno.EHOSTUNREACH]}
        causes = likely_causes([dead], handle.pump.unreachable, handle.pump.last_error, "linux")
        line = no_answer_line(dead, 1.0, causes)
        assert "127.0.0.1 is unreachable from this laptop (no route): wrong address?" in line
    finally:
        await handle.close()


GUEST_WIFI = "guest Wi-Fi often isolates devices: try a phone hotspot or a home network"


def test_an_advertised_host_that_never_answers_names_client_isolation_first() -> None:
    assert GUEST_WIFI in ISOLATED and "client/AP isolation" in ISOLATED
    assert likely_causes([A], {}, None, "linux", advertised=True) == [ISOLATED]
    line = no_answer_line(A, 10, likely_causes([A], {}, None, "linux", advertised=True))
    assert line.startswith("no answer from 10.100.0.6:4242 within 10 s — the game's advert")
    assert line.endswith("is UDP port 4242 allowed by the firewall?")  # still asked, after
    [first, windows] = likely_causes([A], {}, None, "win32", advertised=True)
    assert first == ISOLATED and "Windows Firewall" in windows
    assert likely_causes([A], {}, None, "linux", advertised=False) == []  # a typed address


def test_an_advertised_address_without_a_route_is_not_called_a_wrong_address() -> None:
    causes = likely_causes([A], {A: "EHOSTUNREACH"}, None, "linux", advertised=True)
    assert causes == [ISOLATED, "10.100.0.6 is unreachable from this laptop (no route)"]


def test_a_closed_port_is_the_host_laptop_answering_so_no_isolation() -> None:
    causes = likely_causes([A], {}, "ECONNREFUSED", "linux", advertised=True)
    assert causes == ["the host's laptop says that port is closed: wrong port, or game over?"]
    causes = likely_causes([A], {A: "ECONNRESET"}, None, "linux", advertised=True)
    assert ISOLATED not in causes


def friday_tag(port: int, state: str) -> LobbyInfo:
    """The advert of a 2-seat Prototag game named "Friday tag" on this host's ``port``."""
    return LobbyInfo(
        instance="Friday tag._lantag._udp.local.",
        name="Friday tag",
        engine="prototag",
        version=6,
        seats_taken=1 if state == "lobby" else 2,
        seats_total=2,
        password=False,
        fingerprint="ab" * 8,
        state=state,
        port=port,
        addresses=(LOCAL,),
    )


@pytest.mark.parametrize("by_name", [True, False])
def test_join_by_name_to_a_silent_advertised_host_names_isolation_and_exits_1(
    home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    by_name: bool,
) -> None:
    """The advert is seen (faked browse) but the host's socket never answers: the one line
    names client/AP isolation; joined by HOST:PORT (no advert), it does not."""
    from lanTag.cli.entry import main

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind((LOCAL, 0))  # open, so no port-unreachable: the packets just vanish
        port = silent.getsockname()[1]
        advert = friday_tag(port, "lobby")

        async def seen(wait: float, *args: object) -> list[LobbyInfo]:
            return [advert]

        monkeypatch.setattr(discovery, "browse", seen)
        monkeypatch.setenv("XDG_CONFIG_HOME", str(home.config))
        monkeypatch.setenv("XDG_DATA_HOME", str(home.data))
        target = "Friday tag" if by_name else f"{LOCAL}:{port}"
        assert main(["join", target, "--headless", "--wait", "0", "--timeout", "0.5"]) == 1
    failures = [x for x in capsys.readouterr().err.splitlines() if x.startswith("lantag:")]
    assert len(failures) == 1 and f"no answer from {LOCAL}:{port}" in failures[0], failures
    assert (GUEST_WIFI in failures[0]) is by_name
    assert f"UDP port {port} allowed by the firewall?" in failures[0]


def test_join_by_name_to_a_game_already_playing_says_so_at_once(
    home: Home, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The advert says "playing": the host shuts out strangers once its game started, so
    the join says that in one line (exit 1) instead of waiting for an answer that never
    comes and blaming the firewall."""
    from lanTag.cli.entry import main

    advert = friday_tag(9, "playing")

    async def seen(wait: float, *args: object) -> list[LobbyInfo]:
        return [advert]

    async def never(*args: object, **kw: object) -> object:
        raise AssertionError("contacted a host whose game is under way")

    monkeypatch.setattr(discovery, "browse", seen)
    monkeypatch.setattr("lanTag.cli.play_commands.open_join", never)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home.config))
    monkeypatch.setenv("XDG_DATA_HOME", str(home.data))
    assert main(["join", "Friday tag", "--headless", "--wait", "0"]) == 1
    failures = [x for x in capsys.readouterr().err.splitlines() if x.startswith("lantag:")]
    assert failures == [
        "lantag: “Friday tag” is already playing: nobody can join it until its game ends"
    ]
    # Joined by address there is no advert to read: the generic line names the lobby.
    assert "still in its lobby" in no_answer_line((LOCAL, 9), 10)


def test_network_doc_quotes_the_lines_lantag_prints() -> None:
    """docs/NETWORK.md "When friends can't see each other" quotes these lines verbatim."""
    doc = (Path(__file__).parents[2] / "docs" / "NETWORK.md").read_text("utf-8")
    section = doc.split("## When friends can't see each other")[1].split("\n## ")[0]
    flat = " ".join(section.split())  # the prose wraps the shorter quotes
    host = ("192.168.1.20", 40555)
    assert "lantag: " + not_found_line("Friday tag", 3.0) in section
    isolated = likely_causes([host], {}, None, "linux", advertised=True)
    assert "lantag: " + no_answer_line(host, 10, isolated) in section
    quoted = [
        *likely_causes([host], {host: "EHOSTUNREACH"}, None, "darwin"),
        *likely_causes([host], {}, None, "darwin"),
        *likely_causes([host], {}, None, "win32"),
        *likely_causes([host], {host: "EHOSTUNREACH"}, None, "linux", advertised=True)[1:],
        *likely_causes([host], {host: "EPERM"}, None, "linux"),
        *likely_causes([host], {}, "ECONNREFUSED", "linux"),
        "no games found",
        "is UDP port 40555 allowed by the firewall?",
    ]
    for line in quoted:
        assert " ".join(line.split()) in flat, line
