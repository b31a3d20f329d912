"""Issue #24 items 2 and 4 through the command's own code, on real loopback sockets (and
real mDNS on 127.0.0.1 where multicast works): `join NAME` pins the advert's key and
refuses an impostor, `list` flags two adverts with one name, a known host nickname with
a new key is shown loudly and not joined, a started game remembers the key (TOFU), and
with --approve two throwaway identities cannot keep a friend from a seat."""

from __future__ import annotations

import io
import json
import secrets
from pathlib import Path

import pytest

from lanTag.cli.entry import build_parser
from lanTag.cli.headless import play_headless
from lanTag.cli.host_lobby import wait_for_table
from lanTag.cli.known_hosts import load_known_hosts, remember_host
from lanTag.cli.play_commands import cmd_join, remember_host_once_started
from lanTag.identity import Identity
from lanTag.net.lobby_adverts import LobbyInfo, format_lobbies
from lanTag.peer.join_handshake import HostConfig, HostLobby, JoinLobby, Refused
from lanTag.peer.runtime import LocalIdentity, PeerHandle, open_host, open_join, wait_until
from lanTag.ui.browser import BrowserModel

LOOP = ("127.0.0.1", 0)


def _me(nickname: str) -> LocalIdentity:
    return LocalIdentity(Identity(secrets.token_bytes(32)), nickname)


def _config(name: str = "Cafe", humans: int = 2, approve: bool = False) -> HostConfig:
    return HostConfig("prototag", name, humans, chain_length=16, approve=approve)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path


def test_known_hosts_round_trip_in_utf8_and_damaged_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "data" / "known_hosts"
    assert load_known_hosts(path) == {}
    assert remember_host("Zoë", "0123456789abcdef", path)
    assert remember_host("bob smith", "fedcba9876543210", path)
    assert remember_host("Zoë", "1111111111111111", path)  # a new key replaces the old
    with path.open("a", encoding="utf-8") as f:
        f.write("not a line\nXYZ bob\n")
    assert load_known_hosts(path) == {"Zoë": "1111111111111111", "bob smith": "fedcba9876543210"}
    assert "Zoë" in path.read_text(encoding="utf-8")
    assert not remember_host("bad\nname", "0123456789abcdef", path)


def _info(instance: str, fp: str, name: str = "Cafe") -> LobbyInfo:
    return LobbyInfo(instance, name, "prototag", 3, 1, 2, False, fp, "lobby", 4000, ("127.0.0.1",))


def test_list_and_browser_flag_two_adverts_with_one_name() -> None:
    real, fake, other = _info("a", "1" * 16), _info("b", "2" * 16), _info("c", "3" * 16, "Pub")
    text = format_lobbies([real, fake, other], json=False)
    assert text.count("⚠ 2 games share this name") == 2
    assert f"host keys {'1' * 16}, {'2' * 16}" in text
    assert "Pub" in text and "3" * 16 in text  # every game's key is shown
    rows = json.loads(format_lobbies([real, fake, other], json=True))
    assert [bool(r["same_name"]) for r in rows] == [True, True, False]
    browser = BrowserModel(lambda: _table(real, fake, other))
    shown = "".join(t for _, t in browser.text())
    assert shown.count("⚠ 2 games share this name") == 2 and "1" * 16 in shown


def _table(*infos: LobbyInfo):  # type: ignore[no-untyped-def]
    from types import MappingProxyType

    from lanTag.net.lobby_adverts import LobbyTable

    return LobbyTable(MappingProxyType({i.instance: i for i in infos}))


async def _close(*handles: PeerHandle) -> None:
    for handle in handles:
        await handle.pump.close()


def _multicast_problem() -> str | None:
    from tests.net.test_discovery import _multicast_loopback_problem

    return _multicast_loopback_problem()


async def test_join_name_refuses_an_impostor_advert_with_a_copied_fingerprint(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real host's advert is gone (spoofed goodbyes); the impostor's carries the real
    fingerprint and its own port. `lantag join Cafe` picks it and refuses its key."""
    problem = _multicast_problem()
    if problem:
        pytest.skip(problem)
    import lanTag.net.discovery as discovery
    from lanTag.net.discovery import LobbyAdvert, LobbyAdvertiser

    real_browse = discovery.browse
    monkeypatch.setattr(discovery, "browse", lambda wait: real_browse(wait, ["127.0.0.1"]))
    real, impostor = _me("alice"), _me("mallory")
    real_host = await open_host(_config(), real, bind=LOOP)
    fake_host = await open_host(_config(), impostor, bind=LOOP)
    advert = LobbyAdvert(
        name="Cafe", engine="prototag", fingerprint=real.identity.fingerprint,
        port=fake_host.address[1], seats_taken=1, seats_total=2, rules=1,
    )
    try:
        async with LobbyAdvertiser(advert, ["127.0.0.1"]):
            args = build_parser().parse_args(
                ["join", "Cafe", "--headless", "--bind", "127.0.0.1", "--wait", "2",
                 "--log", str(home / "j.log")]
            )
            code = await cmd_join(args)
        err = capsys.readouterr().err
        assert code == 1, err
        assert (
            f"refused: the host answered with key {impostor.identity.fingerprint}, not "
            f"{real.identity.fingerprint} from the advert you picked" in err
        )
        assert isinstance(fake_host.machine.lobby, HostLobby)
        assert fake_host.machine.lobby.taken == 1  # no join reached the impostor
    finally:
        await _close(real_host, fake_host)


async def test_a_changed_host_key_is_shown_loudly_and_not_joined(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    remember_host("alice", "0123456789abcdef")
    host = await open_host(_config(), _me("alice"), bind=LOOP)
    try:
        port = host.address[1]
        args = build_parser().parse_args(
            ["join", f"127.0.0.1:{port}", "--headless", "--bind", "127.0.0.1",
             "--log", str(home / "j.log")]
        )
        code = await cmd_join(args)
        err = capsys.readouterr().err
        assert code == 1
        assert "WARNING: THE HOST'S KEY HAS CHANGED" in err
        assert "0123456789abcdef" in err and host.machine.identity.fingerprint in err
        assert "not joining" in err
        assert host.machine.lobby.taken == 1  # type: ignore[union-attr]
    finally:
        await _close(host)


async def test_a_started_game_remembers_the_hosts_key(home: Path) -> None:
    alice = _me("alice")
    host = await open_host(_config(), alice, bind=LOOP)
    joiner = await open_join(host.address, _me("ann"), bind=LOOP, chain_length=16)
    task = None
    try:
        import asyncio

        task = asyncio.create_task(remember_host_once_started(joiner))
        lobby = host.machine.lobby
        assert await wait_until(lambda: lobby.taken == 2, 20.0)  # type: ignore[union-attr]
        assert load_known_hosts() == {}  # seated is not enough: a started game
        host.command(host.machine.start_game)
        await asyncio.wait_for(task, 20.0)
        assert load_known_hosts() == {"alice": alice.identity.fingerprint}
    finally:
        if task is not None:
            task.cancel()
        await _close(joiner, host)


async def test_two_throwaway_identities_cannot_keep_a_friend_from_the_seat() -> None:
    """--approve: the squatters came first and are refused (a clear line, exit 1); the
    friend is let in, the table is full and the game starts with the friend."""
    host = await open_host(_config(approve=True), _me("host"), bind=LOOP)
    lobby = host.machine.lobby
    assert isinstance(lobby, HostLobby)
    squatters = [
        await open_join(host.address, _me(f"squat{i}"), bind=(f"127.0.0.{2 + i}", 0),
                        chain_length=16)
        for i in range(2)
    ]
    friend = None
    try:
        assert await wait_until(lambda: len(lobby.waiting()) == 2, 20.0)
        assert lobby.taken == 1  # waiting is not sitting
        friend = await open_join(host.address, _me("friend"), bind=("127.0.0.4", 0),
                                 chain_length=16)
        assert await wait_until(lambda: len(lobby.waiting()) == 3, 20.0)
        err = io.StringIO()
        await wait_for_table(host, lobby, lobby.config, stdin=io.StringIO("n\nno\ny\n"), err=err)
        prompts = err.getvalue()
        for who, nick in zip((*squatters, friend), ("squat0", "squat1", "friend"), strict=True):
            assert f"{nick} (key {who.machine.identity.fingerprint}" in prompts
        assert prompts.count("let them in? [y/n]") == 3
        host.command(host.machine.start_game)
        for squatter in squatters:
            assert await wait_until(
                lambda s=squatter: any(isinstance(e, Refused) for e in s.machine.events), 20.0
            )
            assert await play_headless(squatter) == 1
        friend_lobby = friend.machine.lobby
        assert isinstance(friend_lobby, JoinLobby)
        assert await wait_until(lambda: friend.machine.session is not None, 20.0)
        assert friend_lobby.started is not None and friend_lobby.started.seat == 1
    finally:
        await _close(*squatters, host, *([friend] if friend else []))


async def test_a_refused_or_kicked_joiner_is_told_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    host = await open_host(_config(approve=True, humans=3), _me("host"), bind=LOOP)
    lobby = host.machine.lobby
    assert isinstance(lobby, HostLobby)
    a = await open_join(host.address, _me("a"), bind=LOOP, chain_length=16)
    b = await open_join(host.address, _me("b"), bind=LOOP, chain_length=16)
    try:
        assert await wait_until(lambda: len(lobby.waiting()) == 2, 20.0)
        first, second = lobby.waiting()
        host.command(lambda now: lobby.refuse_joiner(first.addr))
        host.command(lambda now: lobby.approve_joiner(second.addr))
        host.command(lambda now: lobby.kick(1))
        for handle in (a, b):
            assert await wait_until(
                lambda h=handle: any(isinstance(e, Refused) for e in h.machine.events), 20.0
            )
            assert await play_headless(handle) == 1
        err = capsys.readouterr().err
        assert "refused: the host did not let you in" in err
        assert "refused: kicked by the host" in err
        assert lobby.taken == 1
    finally:
        await _close(a, b, host)


@pytest.mark.parametrize(
    ("approve", "password", "told"), [(False, "", True), (True, "", False), (False, "pw", False)]
)
async def test_the_headless_lobby_of_an_open_table_says_it_can_be_squatted(
    approve: bool, password: str, told: bool
) -> None:
    from lanTag.peer.doorstep import OPEN_TABLE_NOTE

    config = HostConfig("prototag", "Cafe", 1, chain_length=16, approve=approve, password=password)
    host = await open_host(config, _me("alice"), bind=LOOP)
    try:
        lobby = host.machine.lobby
        assert isinstance(lobby, HostLobby)
        err = io.StringIO()
        await wait_for_table(host, lobby, config, stdin=io.StringIO(""), err=err)
        assert (f"lobby: {OPEN_TABLE_NOTE}\n" in err.getvalue()) is told
    finally:
        await _close(host)


@pytest.mark.parametrize("impostor", ["alice\u200b", "\u0430lice"])  # zero-width, Cyrillic a
async def test_a_look_alike_of_a_known_host_is_shown_loudly_and_not_joined(
    home: Path, capsys: pytest.CaptureFixture[str], impostor: str
) -> None:
    """Issue #38 item 5: someone played with the real alice; an impostor with its own key
    and a look-alike nickname is not joined without the changed-key warning."""
    remember_host("alice", "0123456789abcdef")
    host = await open_host(_config(), _me(impostor), bind=LOOP)
    try:
        args = build_parser().parse_args(
            ["join", f"127.0.0.1:{host.address[1]}", "--headless", "--bind", "127.0.0.1",
             "--log", str(home / "j.log")]
        )
        code = await cmd_join(args)
        err = capsys.readouterr().err
        assert code == 1
        assert "WARNING: THE HOST'S KEY HAS CHANGED" in err and "not joining" in err
        assert "0123456789abcdef" in err and host.machine.identity.fingerprint in err
        assert host.machine.lobby.taken == 1  # type: ignore[union-attr]
    finally:
        await _close(host)


async def test_the_headless_lobby_rolls_a_guessing_crowd_into_counting_lines() -> None:
    """Issue #38 item 7: 560 'wrong password' events from 20 addresses, all at once, make
    one line and one counting line, not 560."""
    from collections import deque
    from types import SimpleNamespace

    from lanTag.peer.join_handshake import JoinerRefused

    events = deque(
        JoinerRefused(f"{n} wrong passwords from 127.0.0.{2 + s}")
        for n in range(28)
        for s in range(20)
    )

    class Lobby:
        calls = 0

        @property
        def taken(self) -> int:  # full once the events were read (and the roll-up due)
            self.calls += 1
            return 2 if self.calls > 3 else 1

        def waiting(self) -> list[object]:
            return []

    config = HostConfig("prototag", "Cafe", 2, password="pw")
    err = io.StringIO()
    handle = SimpleNamespace(machine=SimpleNamespace(events=events))
    await wait_for_table(handle, Lobby(), config, err=err)  # type: ignore[arg-type]
    lines = err.getvalue().splitlines()
    assert lines[0] == "lobby: 0 wrong passwords from 127.0.0.2"
    assert len(lines) == 2 and lines[1].endswith("(and 558 more like it)"), lines
