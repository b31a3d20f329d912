"""One choice of the game to set up (lanTag.cli.game_setup.choose_game) for `lantag play`,
`lantag host` and the host setup form: a position's game, options and bytes, or the
checked game of --game/--option/--map."""

from __future__ import annotations

import pytest

from lanTag.cli.entry import UserError
from lanTag.cli.game_setup import GameChoice, StartPosition, choose_game, host_config
from lanTag.games.tagem.engine import Tagem
from lanTag.rules.registry import get_game


def _position() -> StartPosition:
    state = Tagem.new_state(2, {"mode": "ctf"})
    options = tuple(sorted(Tagem.position(state)["options"].items()))
    return StartPosition(Tagem, 2, options, state.encode())


def test_a_position_is_the_whole_choice_and_no_position_is_the_checked_flags() -> None:
    position = _position()
    # The position wins over --game/--option (refused earlier, by start_position).
    assert choose_game("prototag", {}, 2, None, position) == GameChoice(
        Tagem, position.options, None, position.state_bytes
    )
    plain = choose_game("boardtag", {"max_rounds": "5"}, 3, None, None)
    options = (("max_rounds", 5), ("run_order", "left"))
    assert plain == GameChoice(get_game("boardtag"), options, None, b"")
    with pytest.raises(UserError, match="2-6 players, not 9"):
        choose_game("boardtag", {}, 9, None, None)


def test_host_and_play_start_a_position_alike() -> None:
    position = _position()
    config = host_config(
        "prototag", {}, None, seats=1, bots=1, bot="random", name="", password="",
        turn_timeout=60.0, nickname="me", position=position,
    )  # fmt: skip
    assert (config.engine, config.options, config.map_text, config.start_position) == (
        "tagem", position.options, None, position.state_bytes
    )
