"""Consensus is facts, not words: no engine state holds prose (docs/rules/VERSIONS.md).

Random playouts of every engine walk every encoded state and fail on any string that
is not a fact code (``FACT_CODE``): event sentences, status lines and summaries belong
in the view modules.  Rewording those views leaves every state hash as it was.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest

from lanTag.games.assassination import view as assassination_view
from lanTag.games.boardtag import view as boardtag_view
from lanTag.games.prototag import view as prototag_view
from lanTag.games.stomptag import view as stomptag_view
from lanTag.games.tagem import view as tagem_view
from lanTag.games.tagem.board import canonical_map, parse_map
from lanTag.rules.base import (
    FACT_CODE,
    LEGACY_PURPOSES,
    Chance,
    Die,
    Game,
    Simultaneous,
    State,
    is_fact_code,
)
from lanTag.rules.playout import random_input
from lanTag.rules.registry import engine_ids, get_game
from lanTag.views.registry import game_view

GAMES = 12


def _playout(game: type[Game], seed: int) -> Iterator[State]:
    rng = random.Random(seed)
    state = game.new_state(rng.randint(game.min_seats, min(game.max_seats, 6)), {})
    for _ in range(600):
        yield state
        if state.is_over:
            return
        state = state.apply(random_input(state, rng.randrange))


def _prose(obj: Any, where: str = "") -> Iterator[str]:
    """Every string in ``obj`` that is not a fact code, with its path."""
    if isinstance(obj, str):
        if not is_fact_code(obj):
            yield f"{where}: {obj[:60]!r}"
    elif isinstance(obj, list | tuple):
        for i, item in enumerate(obj):
            yield from _prose(item, f"{where}[{i}]")
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield from _prose(key, f"{where}.key")
            yield from _prose(value, f"{where}.{key}")


def _state_prose(engine: str, state: State) -> list[str]:
    obj = msgpack.unpackb(state.encode(), raw=False)
    assert obj[0] == engine
    fields = obj[1]
    if engine == "tagem":
        # The map is game data in the map-file format (glyph rows): kept as facts only,
        # its comments stripped, so the one string allowed is a canonical map.
        text = fields[0]
        assert canonical_map(parse_map(text)).text == text
        assert not any(line.lstrip().startswith("#") for line in text.split("grid:")[0].split("\n"))
        fields = fields[1:]
    return list(_prose(fields))


@pytest.mark.parametrize("engine", engine_ids())
def test_random_playouts_hold_no_prose_in_any_encoded_state(engine: str) -> None:
    game = get_game(engine)
    states = 0
    for seed in range(GAMES):
        for state in _playout(game, seed):
            states += 1
            prose = _state_prose(engine, state)
            assert not prose, f"{engine} seed {seed}: prose in the state: {prose[:3]}"
    assert states > GAMES * 5


@pytest.mark.parametrize("engine", engine_ids())
def test_every_purpose_and_secret_kind_is_a_fact_code(engine: str) -> None:
    game = get_game(engine)
    seen: set[str] = set()
    for seed in range(GAMES):
        for state in _playout(game, seed):
            decision = state.decision()
            if isinstance(decision, Chance):
                seen.add(decision.purpose)
            elif isinstance(decision, Simultaneous):
                seen.add(decision.kind)
    assert seen
    legacy = seen & LEGACY_PURPOSES
    assert not legacy or engine == "stomptag", legacy  # docs/rules/VERSIONS.md
    assert all(is_fact_code(p) for p in seen - LEGACY_PURPOSES), sorted(seen)


def test_the_walker_finds_prose() -> None:
    """The check above is live: a sentence anywhere in a structure is reported."""
    assert list(_prose([1, ["rolls", ("ok", "seat 2 rolls 3")]]))
    assert not list(_prose([1, ["rolls", ("ok", "die/3/assassin", 7)]]))


@pytest.mark.parametrize(
    "purpose", ["die/3/assassin", "start-roll/0.2", "rps", "attack/0.1.-1/2.3.0", "a" * 40]
)
def test_chance_accepts_fact_code_purposes(purpose: str) -> None:
    assert Chance((Die((1, 2)),), purpose).purpose == purpose
    assert FACT_CODE.fullmatch(purpose)


@pytest.mark.parametrize(
    "purpose",
    [
        "seat 2's D6 roll",
        "die roll for seat 0 (victim)",
        "Die/3",
        "-die",
        "",
        "a" * 41,
        "die\n",
        "dé/3",
    ],
)
def test_chance_refuses_a_purpose_that_is_not_a_fact_code(purpose: str) -> None:
    with pytest.raises(ValueError, match="not a fact code"):
        Chance((Die((1, 2)),), purpose)
    with pytest.raises(ValueError, match="not a fact code"):
        Simultaneous((0, 1), purpose)


# ---------------------------------------------------------------- rewording keeps hashes


def _hashes(engine: str) -> list[bytes]:
    return [s.state_hash() for seed in range(3) for s in _playout(get_game(engine), seed)]


def _texts(engine: str) -> list[str]:
    out = []
    shown = game_view(engine)
    for seed in range(3):
        for s in _playout(get_game(engine), seed):
            out.append(shown.render(s))
            view = shown.view(s, 0)
            out.append(repr(view.get("events", view.get("last_event"))))
            if isinstance(d := s.decision(), Chance):
                out.append(shown.purpose_text(d.purpose))
    return out


# module, the word tables to reword
_WORDINGS = {
    "prototag": (prototag_view, ["_EVENT_TEXTS", "_RPS_RESULTS"]),
    "assassination": (assassination_view, ["_EVENT_TEXTS"]),
    "boardtag": (boardtag_view, ["_EVENT_TEXTS"]),
    "tagem": (tagem_view, []),
    "stomptag": (stomptag_view, ["_EVENT_TEXTS"]),
}


@pytest.mark.parametrize("engine", list(_WORDINGS))
def test_rewording_the_views_leaves_state_hashes_unchanged(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, tables = _WORDINGS[engine]
    hashes, texts = _hashes(engine), _texts(engine)
    for table in tables:
        reworded = {k: "REWORDED " + v for k, v in getattr(module, table).items()}
        monkeypatch.setattr(module, table, reworded)
    words = "describe_event" if engine == "stomptag" else "event_text"
    original = getattr(module, words)

    def reworded_event(*args: Any) -> str:
        return "REWORDED " + original(*args)

    monkeypatch.setattr(module, words, reworded_event)
    if engine != "stomptag":  # its purposes are not worded (docs/rules/VERSIONS.md)
        monkeypatch.setattr(module, "purpose_text", lambda purpose: "REWORDED " + purpose)
    assert _texts(engine) != texts  # the words did change...
    assert _hashes(engine) == hashes  # ...and no state hash did
