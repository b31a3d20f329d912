"""Lobby browser, host and join screens, headless, with real peers on the simulated LAN."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.net.lobby_adverts import LobbyTable, ServiceAdded, ServiceRemoved
from lanTag.peer.join_handshake import RosterChanged, Started
from lanTag.session.compatibility import rules_version_of
from lanTag.ui.lobby_screens import (
    BrowserModel,
    browser_screen,
    host_screen,
    join_screen,
    run_lobby_browser,
)
from lanTag.ui.snapshot import screen_text
from lanTag.wire import PROTOCOL_VERSION
from tests.ui.fakes import NetHandle, eventually, ui_table


def _advert(
    name: str, engine: str = "prototag", pw: str = "0", state: str = "lobby"
) -> ServiceAdded:
    props = {
        b"v": str(PROTOCOL_VERSION).encode(),
        b"rules": str(rules_version_of(engine)).encode(),
        b"engine": engine.encode(),
        b"name": name.encode(),
        b"seats": b"1/4",
        b"pw": pw.encode(),
        b"fp": b"0123456789abcdef",
        b"state": state.encode(),
        b"port": b"4000",
    }
    return ServiceAdded(f"{name} 0123._lantag._udp.local.", props, ("192.168.1.9",))


class Tables:
    def __init__(self) -> None:
        self.table = LobbyTable()

    def add(self, event: ServiceAdded | ServiceRemoved) -> None:
        self.table = self.table.apply(event)


async def test_browser_lists_games_and_enter_picks_the_selected_one() -> None:
    source = Tables()
    source.add(_advert("alpha"))
    source.add(_advert("bravo", "tagem", pw="1"))
    with create_pipe_input() as inp:
        inp.send_text("j\r")
        picked = await asyncio.wait_for(
            run_lobby_browser(lambda: source.table, input=inp, output=DummyOutput()), 30
        )
    assert picked is not None and picked.name == "bravo" and picked.password


async def test_browser_quits_with_none_and_draws_the_table() -> None:
    source = Tables()
    source.add(_advert("alpha", "boardtag", pw="1"))
    with create_pipe_input() as inp:
        screen = browser_screen(source, input=inp, output=DummyOutput())
        text = screen_text(screen.app, 80, 24)
        assert "alpha" in text and "Board Tag" in text and "locked" in text and "1/4" in text
        inp.send_text("q")
        await asyncio.wait_for(screen.run(), 30)
    assert screen.model.result is None and screen.model.done


def test_browser_model_follows_the_live_table_and_keeps_the_selection() -> None:
    source = Tables()
    model = BrowserModel(source)
    assert model.lobbies == () and not model.refresh()
    source.add(_advert("charlie"))
    source.add(_advert("delta"))
    assert model.refresh()
    model.move(1)
    assert model.lobbies[model.selected].name == "delta"
    source.add(_advert("alpha"))  # sorts in front: the selection must stay on delta
    assert model.refresh()
    assert model.lobbies[model.selected].name == "delta"
    source.add(ServiceRemoved(model.lobbies[model.selected].instance))
    model.refresh()
    assert model.lobbies[model.selected].name == "charlie"
    model.pick()
    assert model.done and model.result is not None and model.result.name == "charlie"


async def _with_network(handle: NetHandle, screen: Awaitable[None]) -> None:
    """Run a screen while the simulated network moves along in small steps."""
    task = asyncio.ensure_future(screen)
    while not task.done():
        handle.pump(0.05)
        await asyncio.sleep(0.005)
    await task


async def test_host_sees_joiners_kicks_and_starts() -> None:
    table = ui_table("prototag", 3, seed=11)
    handle = NetHandle(table)
    with create_pipe_input() as inp:
        screen = host_screen(handle, input=inp, output=DummyOutput())
        run = asyncio.ensure_future(_with_network(handle, screen.run()))
        await eventually(lambda: len(screen.model.roster) == 3)
        assert "p2" in screen_text(screen.app, 80, 24)
        inp.send_text("k2\r")
        await eventually(lambda: len(screen.model.roster) == 2)
        assert [e.nickname for e in screen.model.roster] == ["host", "p1"]
        inp.send_text("k9\r")
        await eventually(lambda: "no joiner" in screen.model.message)
        # The hint bar's keys act as the form's do: s alone, no Enter.
        hint = "s start · q quit · a<n>/r<n> let in/refuse, k<n> kick seat n: then Enter"
        assert hint in screen_text(screen.app, 80, 24)
        inp.send_text("s")  # one human seat is empty: asks again
        await eventually(lambda: screen.model.confirm_short)
        assert "s again starts without the empty seats" in screen_text(screen.app, 80, 24)
        inp.send_text("s")
        await asyncio.wait_for(run, 30)
    assert screen.model.started
    assert table.peers[0].session is not None and len(table.peers[0].session.record.seats) == 2
    # The host screen leaves game events queued for the game screen.
    assert not any(isinstance(e, RosterChanged) for e in table.peers[0].events)


async def test_host_q_alone_stops_hosting_and_typed_words_still_type() -> None:
    table = ui_table("prototag", 2, seed=11)
    handle = NetHandle(table)
    with create_pipe_input() as inp:
        screen = host_screen(handle, input=inp, output=DummyOutput())
        run = asyncio.ensure_future(_with_network(handle, screen.run()))
        await eventually(lambda: len(screen.model.roster) == 2)
        inp.send_text("k1")  # a command with a number is typed: k, then 1, wait for Enter
        await eventually(lambda: screen.model.line.text == "k1")
        inp.send_text("\x7f\x7f")  # Backspace twice: an empty line again
        await eventually(lambda: screen.model.line.text == "")
        inp.send_text("q")
        await asyncio.wait_for(run, 30)
    assert screen.model.done and not screen.model.started
    assert [e.nickname for e in screen.model.roster] == ["host", "p1"]


def test_a_rematch_lobby_with_an_open_seat_starts_with_a_bot_in_it() -> None:
    # A game night's next game (fill_empty): the joiner went home, the host alone is
    # below Prototag's two players; the open seat goes to a bot, after one confirmation.
    import dataclasses

    from lanTag.ui.lobby_screens import HostModel

    table = ui_table("prototag", 2, seed=12)
    lobby = table.peers[0].lobby
    lobby.config = dataclasses.replace(lobby.config, fill_empty="heuristic2")  # type: ignore[union-attr]
    handle = NetHandle(table, index=0)
    model = HostModel(handle)  # (the joiner never said hello: its seat is open)
    text = "".join(t for _, t in model.text())
    assert "(open)" in text and "a seat still open at the start: a heuristic2 bot" in text
    model.run_line("s")
    assert not model.started and "needs at least" not in model.message
    assert model.message == "1 seat(s) still open: s again starts with a heuristic2 bot in each"
    model.run_line("s")
    assert model.started
    session = table.peers[0].session
    assert session is not None
    assert [(s.nickname, s.bot) for s in session.record.seats] == [
        ("host", ""),
        ("heuristic2-bot-1", "heuristic2"),
    ]


async def test_joiner_gives_the_password_and_waits_for_the_start() -> None:
    table = ui_table("prototag", 2, password="sesame", seed=4)
    joiner = table.peers[1]
    joiner.lobby.password = ""  # type: ignore[union-attr]  # this player must type it
    handle = NetHandle(table, index=1)
    with create_pipe_input() as inp:
        screen = join_screen(handle, input=inp, output=DummyOutput())
        run = asyncio.ensure_future(_with_network(handle, screen.run()))
        await eventually(lambda: screen.model.need_password)
        await eventually(lambda: screen.app.layout.has_focus(screen.model.password))
        inp.send_text("wrong\r")
        await eventually(lambda: screen.model.refused == "wrong password")
        await eventually(lambda: screen.app.layout.has_focus(screen.model.password))
        assert "refused: wrong password" in screen_text(screen.app, 80, 24)
        inp.send_text("sesame\r")
        await eventually(lambda: screen.model.your_seat == 1)
        assert "you are seat 1" in screen.model.message
        table.peers[0].start_game(table.net.now)
        await asyncio.wait_for(run, 30)
    assert screen.model.started and joiner.session is not None
    assert not any(isinstance(e, Started) for e in joiner.events)  # consumed by the screen
    assert all(not isinstance(e, RosterChanged) for e in joiner.events)


async def test_joiner_can_leave_before_the_start() -> None:
    table = ui_table("prototag", 2, seed=6)
    handle = NetHandle(table, index=1)
    with create_pipe_input() as inp:
        screen = join_screen(handle, input=inp, output=DummyOutput())
        run = asyncio.ensure_future(_with_network(handle, screen.run()))
        await eventually(lambda: screen.model.your_seat == 1)
        inp.send_text("q")
        await asyncio.wait_for(run, 30)
    assert not screen.model.started
    table.net.run_for(1.0)
    rosters = [e for e in table.peers[0].events if isinstance(e, RosterChanged)]
    assert rosters and len(rosters[-1].roster) == 1  # the host saw us go


async def test_host_lets_in_or_refuses_waiting_joiners_by_key() -> None:
    """--approve on the console: each joiner waits in a list (nickname and key); a<n>
    lets the n-th in, r<n> refuses it (issue #24 item 2)."""
    table = ui_table("prototag", 3, seed=12)
    table.peers[0].lobby.config.approve = True  # type: ignore[union-attr]
    handle = NetHandle(table)
    with create_pipe_input() as inp:
        screen = host_screen(handle, input=inp, output=DummyOutput())
        run = asyncio.ensure_future(_with_network(handle, screen.run()))
        lobby = screen.model.lobby
        await eventually(lambda: len(lobby.waiting()) == 2)
        assert len(screen.model.roster) == 1  # nobody sits before the host's yes
        text = screen_text(screen.app, 100, 30)
        assert "waiting for your yes" in text
        keys = {w.nickname: w.fingerprint for w in lobby.waiting()}
        assert all(fp in text for fp in keys.values())
        first, second = (w.nickname for w in lobby.waiting())
        inp.send_text("r1\r")
        await eventually(lambda: len(lobby.waiting()) == 1)
        inp.send_text("a1\r")
        await eventually(lambda: len(screen.model.roster) == 2)
        assert [e.nickname for e in screen.model.roster] == ["host", second]
        inp.send_text("q\r")
        await asyncio.wait_for(run, 30)
    refused = table.peers[1 if first == "p1" else 2]
    table.net.run_for(1.0)
    assert any(
        getattr(e, "reason", "") == "the host did not let you in" for e in refused.events
    )


async def test_joiner_is_warned_loudly_of_a_changed_host_key_and_may_go_on() -> None:
    table = ui_table("prototag", 2, seed=5)
    joiner = table.peers[1]
    joiner.lobby.known_hosts = {"host": "0123456789abcdef"}  # type: ignore[union-attr]
    handle = NetHandle(table, index=1)
    with create_pipe_input() as inp:
        screen = join_screen(handle, input=inp, output=DummyOutput())
        run = asyncio.ensure_future(_with_network(handle, screen.run()))
        await eventually(lambda: screen.model.key_changed is not None)
        text = screen_text(screen.app, 100, 30)
        assert "WARNING: THE HOST'S KEY HAS CHANGED" in text and "0123456789abcdef" in text
        assert table.peers[0].identity.fingerprint in text
        assert screen.model.your_seat is None  # nothing sent before the answer
        await eventually(lambda: screen.app.layout.has_focus(screen.model.password))
        inp.send_text("yes\r")
        await eventually(lambda: screen.model.your_seat == 1)
        inp.send_text("q")
        await asyncio.wait_for(run, 30)


def test_an_open_table_says_it_can_be_squatted_and_offers_approve() -> None:
    """Issue #38 item 3: without --approve or a password the host's lobby says a stranger
    on the Wi-Fi can take a seat and names --approve; with either it does not."""
    from lanTag.peer.doorstep import OPEN_TABLE_NOTE
    from lanTag.ui.lobby_screens import HostModel

    table = ui_table("prototag", 2, seed=15)
    model = HostModel(NetHandle(table))
    shown = "".join(text for _, text in model.text())
    assert OPEN_TABLE_NOTE in shown and "--approve" in OPEN_TABLE_NOTE
    for change in ({"approve": True}, {"password": "sesame"}):
        lobby = table.peers[0].lobby
        config = lobby.config  # type: ignore[union-attr]
        old = (config.approve, config.password)
        for name, value in change.items():
            setattr(config, name, value)
        assert OPEN_TABLE_NOTE not in "".join(text for _, text in model.text())
        config.approve, config.password = old


def test_approve_typed_in_an_open_tables_lobby_makes_each_new_joiner_wait_for_a_yes() -> None:
    """The open table's note offers it: ``approve`` turns the lobby into --approve's (the
    note goes, a joiner then waits for a<n> instead of sitting down)."""
    from lanTag.peer.doorstep import APPROVE_NOW, OPEN_TABLE_NOTE
    from lanTag.ui.lobby_screens import HostModel

    table = ui_table("prototag", 2, seed=16)
    model = HostModel(NetHandle(table))
    assert APPROVE_NOW in "".join(text for _, text in model.text())
    model.run_line("approve")
    shown = "".join(text for _, text in model.text())
    assert OPEN_TABLE_NOTE not in shown and APPROVE_NOW not in shown
    assert model.lobby.config.approve and model.message.startswith("from now on")
    table.net.run_until(lambda: bool(model.lobby.waiting()), max_time=60)
    assert model.lobby.taken == 1  # nobody sat down
    assert "waiting for your yes" in "".join(text for _, text in model.text())
    model.run_line("a1")
    table.net.run_until(lambda: model.lobby.taken == 2, max_time=table.net.now + 60)
