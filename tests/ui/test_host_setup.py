"""The host setup form: the pure HostForm, the screen driven by keys and by named commands,
and a real host opened on loopback from what the form returned."""

from __future__ import annotations

import argparse
import asyncio
from importlib import resources
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.cli import game_setup
from lanTag.cli import play_commands as cli_commands
from lanTag.cli.entry import UserError, build_parser
from lanTag.peer.join_handshake import HostConfig, HostLobby, Welcomed
from lanTag.peer.runtime import bot_identity, open_host, open_join
from lanTag.rules.base import OptionError
from lanTag.rules.registry import engine_ids
from lanTag.ui import host_setup
from lanTag.ui.host_setup import HostForm, SetupModel, host_setup_screen, run_host_setup, run_setup
from lanTag.ui.lobby_screens import HOST, browse_or_host
from lanTag.ui.snapshot import screen_text
from tests.ui.fakes import eventually

DOWN, UP, RIGHT, LEFT, ENTER, BACKSPACE = "\x1b[B", "\x1b[A", "\x1b[C", "\x1b[D", "\r", "\x7f"


def _skirmish() -> str:
    return (resources.files("lanTag.games.tagem") / "maps" / "skirmish.map").read_text("utf-8")


# ----------------------------------------------------------------------------- the pure form


def test_prefill_starts_on_the_game_that_knows_the_given_options() -> None:
    form = HostForm.prefill({"mode": "ctf"}, seats=3, bots=1, name="Friday")
    assert form.engine == "tagem" and form.option("mode") == "ctf" and not form.note
    assert form.option("pawns") == "5"  # the others at their defaults
    assert (form.seats, form.bots, form.name) == (3, 1, "Friday")
    plain = HostForm.prefill()
    assert plain.engine == engine_ids()[0]
    odd = HostForm.prefill({"nope": "1"})
    assert "no option 'nope'" in odd.note


def test_next_engine_walks_the_registry_and_resets_the_options() -> None:
    form = HostForm.prefill(engine="tagem", map_path="x.map").set_option("pawns", "3")
    seen = [form.engine]
    for _ in engine_ids():
        form = form.next_engine()
        seen.append(form.engine)
    assert (
        seen[1:]
        == [*engine_ids()[engine_ids().index("tagem") + 1 :], *engine_ids()][: len(engine_ids())]
    )
    back = HostForm.prefill(engine="prototag").next_engine(-1)
    assert back.engine == engine_ids()[-1]
    tagem = HostForm.prefill(engine="tagem", map_path="x.map").set_option("pawns", "3")
    other = tagem.set_engine("boardtag")
    assert other.map_path == "" and dict(other.options) == {"max_rounds": "15", "run_order": "left"}
    assert other.set_engine("tagem").option("pawns") == "5"
    # Stomptag needs three players: the seats field says so (hosting would refuse).
    stomp = HostForm.prefill(engine="prototag").set_engine("stomptag").focus_on("seats")
    assert stomp.seats == 2 and "needs 3-256 players" in stomp.focused().hint


def test_options_step_within_their_ranges_and_reject_bad_text() -> None:
    form = HostForm.prefill(engine="tagem")
    assert form.step("opt:mode", 1).option("mode") == "ctf"
    assert form.step("opt:mode", -1).option("mode") == "ctcf"  # choices wrap
    assert form.set_option("pawns", "9").step("opt:pawns", 1).option("pawns") == "9"  # the max
    assert form.step("opt:pom", -1).option("pom") == "0"  # the min
    assess = HostForm.prefill(engine="assassination")
    assert assess.step("opt:variation_a", 1).option("variation_a") == "yes"
    with pytest.raises(OptionError, match="above the maximum 9"):
        form.set_option("pawns", "12")
    with pytest.raises(OptionError, match="expected an integer"):
        form.set_text("opt:pawns", "many")
    with pytest.raises(ValueError, match="whole number"):
        form.set_text("seats", "two")
    with pytest.raises(ValueError, match="only for tagem"):
        HostForm.prefill(engine="prototag").set_text("map", "x.map")
    assert form.option("pawns") == "5"  # a frozen value: failed edits changed nothing


def test_seat_and_bot_steppers_stay_within_the_game() -> None:
    form = HostForm.prefill(engine="boardtag", seats=2, bots=0)  # 2-6 players
    for _ in range(10):
        form = form.step("bots", 1)
    assert (form.seats, form.bots) == (2, 4)
    assert form.step("seats", 1).seats == 2  # six players already
    assert form.step("seats", -5).seats == 1


def _cli_config(argv: list[str]) -> HostConfig:
    """What `lantag host ARGV` builds (cmd_host's flag path)."""
    args = build_parser().parse_args(["host", *argv])
    return game_setup.host_config(
        args.game,
        {k: v for k, _, v in (o.partition("=") for o in args.option)},
        args.map,
        seats=args.seats,
        bots=args.bots,
        bot=args.bot,
        name=args.name,
        password=args.password,
        turn_timeout=args.turn_timeout,
        nickname="alice",
    )


def test_to_config_is_what_the_cli_builds_from_the_same_flags(tmp_path: Path) -> None:
    map_file = tmp_path / "mine.map"
    map_file.write_text(_skirmish())
    form = (
        HostForm.prefill(engine="tagem")
        .set_option("mode", "ctf")
        .set_option("pawns", "3")
        .set_text("map", str(map_file))
        .set_count("bots", 0)
        .set_text("name", "Friday tag")
        .set_text("password", "sesame")
    )
    argv = ["-g", "tagem", "-o", "mode=ctf", "-o", "pawns=3", "--map", str(map_file)]
    argv += ["--name", "Friday tag", "--password", "sesame"]
    assert form.to_config("alice") == _cli_config(argv)
    config = form.to_config("alice")
    assert config.map_text == _skirmish() and dict(config.options)["pawns"] == 3
    bots = HostForm.prefill(engine="prototag", seats=1, bots=2, bot="random").to_config("alice")
    assert bots == _cli_config(["-g", "prototag", "--seats", "1", "--bots", "2", "--bot", "random"])
    assert bots.name == "alice's Prototag" and bots.bots == ("random", "random")


@pytest.mark.parametrize(
    ("form", "message"),
    [
        (HostForm.prefill(engine="prototag", seats=9), "Prototag takes 2-8 players, not 9"),
        (HostForm.prefill(engine="tagem", map_path="/nonexistent/x.map"), "cannot read map"),
        (HostForm.prefill(engine="prototag").next_engine(3), "Stomptag takes 3-256 players"),
        (HostForm.prefill(engine="prototag", seats=0), "--seats must be between 1 and 64"),
    ],
)
def test_to_config_errors_are_one_line_user_errors(form: HostForm, message: str) -> None:
    with pytest.raises(UserError) as caught:
        form.to_config("alice")
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_broken_map_file_names_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.map"
    bad.write_text(_skirmish().replace("players: 2", "players: lots"))
    form = HostForm.prefill(engine="tagem", map_path=str(bad))
    with pytest.raises(UserError, match=r"bad\.map"):
        form.to_config("alice")


# ----------------------------------------------------------------------------- named commands


def test_named_commands_fill_the_form_and_host() -> None:
    model = SetupModel(HostForm.prefill(), "alice")
    run_setup(model, "focus", "engine")
    for _ in range(engine_ids().index("tagem")):
        run_setup(model, "value-next")
    assert model.form.engine == "tagem"
    run_setup(model, "set", "opt:pawns=12")
    assert model.message_style == "class:error" and "maximum 9" in model.message
    run_setup(model, "set", "opt:pawns=4")
    run_setup(model, "edit", "name")
    assert model.editing == "name" and model.edit.text == ""
    run_setup(model, "edit-accept", "LAN night")
    assert model.editing is None and model.form.name == "LAN night"
    run_setup(model, "focus", "seats")
    run_setup(model, "value-next")
    run_setup(model, "focus", "host")
    run_setup(model, "activate")
    assert model.done and model.result is not None
    assert model.result.engine == "tagem" and model.result.humans == 3
    assert dict(model.result.options)["pawns"] == 4 and model.result.name == "LAN night"


def test_a_rejected_host_keeps_the_form_open_with_one_error_line() -> None:
    model = SetupModel(HostForm.prefill(engine="prototag", seats=9), "alice")
    run_setup(model, "host")
    assert not model.done and model.result is None
    assert model.message == "Prototag takes 2-8 players, not 9"
    run_setup(model, "nonsense")
    assert "unknown command" in model.message
    run_setup(model, "cancel")
    assert model.done and model.result is None


# ----------------------------------------------------------------------------- the screen


@pytest.mark.parametrize("engine", engine_ids())
@pytest.mark.parametrize("size", [(80, 24), (40, 12), (120, 40), (24, 8)])
def test_the_form_fits_any_terminal_and_keeps_the_focus_in_view(
    engine: str, size: tuple[int, int]
) -> None:
    form = HostForm.prefill(engine=engine)
    form = form.focus_on("host")  # the last row: on small terminals the form must scroll
    with create_pipe_input() as inp:
        screen = host_setup_screen(form, nickname="alice", input=inp, output=DummyOutput())
        text = screen_text(screen.app, *size)
        screen.model.show_help = True
        helped = screen_text(screen.app, *size)
    for shown in (text, helped):
        lines = shown.splitlines()
        assert len(lines) == size[1] and all(len(line) <= size[0] for line in lines)
    assert "[ host ]" in text
    if size == (80, 24):
        assert "s host" in text and "Esc back" in text  # the legend
        assert "Host a game — keys" in helped


async def test_keys_pick_the_game_set_options_type_a_name_and_host() -> None:
    form = HostForm.prefill(engine="prototag")
    keys = RIGHT * engine_ids().index("tagem")  # game: → to Tag 'em
    keys += DOWN + RIGHT  # mode: ctf
    keys += DOWN + DOWN + ENTER + BACKSPACE + "3" + ENTER  # pawns: typed 3
    keys += DOWN * 7 + ENTER + "Friday" + ENTER  # name (after map, map file, seats, bots, kind)
    keys += "s"
    with create_pipe_input() as inp:
        inp.send_text(keys)
        config = await asyncio.wait_for(
            run_host_setup(form, nickname="alice", input=inp, output=DummyOutput()), 30
        )
    assert config is not None
    assert config.engine == "tagem" and config.name == "Friday" and config.humans == 2
    assert dict(config.options)["mode"] == "ctf" and dict(config.options)["pawns"] == 3


async def test_keys_show_errors_and_escape_leaves_without_hosting() -> None:
    with create_pipe_input() as inp:
        screen = host_setup_screen(
            HostForm.prefill(engine="prototag"), nickname="alice", input=inp, output=DummyOutput()
        )
        run = asyncio.ensure_future(screen.run())
        # seats: the 8th row (game, six options, seats); typed out of the game's range
        inp.send_text(DOWN * 7 + ENTER + BACKSPACE + "9" + ENTER + "s")
        await eventually(lambda: "not 9" in screen.model.message)
        assert not screen.model.done
        assert "Prototag takes 2-8 players, not 9" in screen_text(screen.app, 80, 24)
        inp.send_text("?")
        await eventually(lambda: screen.model.show_help)
        inp.send_text("q")  # closes the help, not the form
        await eventually(lambda: not screen.model.show_help)
        assert not screen.model.done
        inp.send_text(ENTER + "x" + ENTER)  # a bad number stays in the edit line
        await eventually(lambda: "whole number" in screen.model.message)
        assert screen.model.editing == "seats"
        inp.send_text("\x1b")  # Esc drops the edit...
        await eventually(lambda: screen.model.editing is None)
        inp.send_text("q")  # ...and then leaves
        await asyncio.wait_for(run, 30)
    assert screen.model.done and screen.model.result is None


async def test_h_in_the_lobby_browser_asks_to_host() -> None:
    from lanTag.net.lobby_adverts import LobbyTable

    with create_pipe_input() as inp:
        inp.send_text("h")
        picked = await asyncio.wait_for(
            browse_or_host(LobbyTable, input=inp, output=DummyOutput()), 30
        )
    assert picked == HOST


# ----------------------------------------------------------------------------- a real host


async def test_the_form_config_opens_a_real_host_that_joiners_see() -> None:
    form = (
        HostForm.prefill(engine="tagem", seats=2, bots=1)
        .set_option("mode", "ctcf")
        .set_text("name", "form game")
    )
    config = form.to_config("alice")
    host = await open_host(config, bot_identity(0), bind=("127.0.0.1", 0))
    joiner = await open_join(host.address, bot_identity(1), bind=("127.0.0.1", 0))
    try:
        lobby = host.machine.lobby
        assert isinstance(lobby, HostLobby)
        await eventually(lambda: lobby.taken == 2)
        welcomes = [e for e in joiner.machine.events if isinstance(e, Welcomed)]
        assert welcomes and welcomes[0].engine == "tagem" and welcomes[0].seats == 3
        assert welcomes[0].name == "form game" and not welcomes[0].password
        host.command(host.machine.start_game)
        session = host.machine.session
        assert session is not None
        assert dict(session.record.options)["mode"] == "ctcf"
        assert [s.bot for s in session.record.seats] == ["", "", "heuristic2"]
    finally:
        await joiner.close()
        await host.close()


async def test_lantag_host_without_game_asks_the_form_prefilled_from_the_flags(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """cmd_host: no --game and no --headless -> the form (pre-filled), then the host lobby
    runs with the HostConfig the form returned."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    asked: list[HostForm] = []
    lobbies: list[HostConfig] = []

    async def fake_form(form: HostForm, **kwargs: object) -> HostConfig:
        asked.append(form)
        return form.set_option("pawns", "2").to_config("alice")

    async def fake_lobby(handle: object, **kwargs: object) -> bool:
        lobby = handle.machine.lobby  # type: ignore[attr-defined]
        lobbies.append(lobby.config)
        return False  # the host quit in the lobby

    monkeypatch.setattr(host_setup, "run_host_setup", fake_form)
    monkeypatch.setattr("lanTag.ui.lobby_screens.run_host_screen", fake_lobby)
    argv = ["host", "-o", "mode=ctf", "--seats", "3", "--name", "x", "--no-advertise"]
    args: argparse.Namespace = build_parser().parse_args([*argv, "--bind", "127.0.0.1"])
    args.log = str(tmp_path / "h.lantag")
    assert await cli_commands.cmd_host(args) == 0
    assert len(asked) == 1 and asked[0].engine == "tagem" and asked[0].option("mode") == "ctf"
    assert (asked[0].seats, asked[0].name) == (3, "x")
    assert lobbies and lobbies[0].engine == "tagem" and dict(lobbies[0].options)["pawns"] == 2
    # With --game the flags are the whole setup: no form.
    args = build_parser().parse_args(["host", "-g", "prototag", "--no-advertise"])
    args.bind, args.log = "127.0.0.1", str(tmp_path / "g.lantag")
    assert await cli_commands.cmd_host(args) == 0
    assert len(asked) == 1 and lobbies[-1].engine == "prototag"
