"""The host setup form as a value: the game, its options, map, seats, bots, name, password.

:class:`HostForm` is frozen (every change returns a new form) and ``to_config``
validates it with the very code `lantag host` uses for its flags
(:func:`lanTag.cli.game_setup.host_config`), so the form and the CLI accept the same games.
The screen around it is :mod:`lanTag.ui.host_setup`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from lanTag.bots import bot_names
from lanTag.cli.game_setup import host_config, map_engines, takes_map
from lanTag.peer.join_handshake import HostConfig
from lanTag.rules.base import Game, OptionError, OptionSpec
from lanTag.rules.registry import engine_ids, get_game

MAX_SEATS = 64  # what `lantag host` accepts for --seats and --bots


def _text(spec: OptionSpec, value: int | bool | str) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


@dataclass(frozen=True, slots=True)
class Field:
    """One line of the form: ``key`` names it for commands ("engine", "opt:mode", "seats"...)."""

    key: str
    label: str
    value: str
    hint: str
    typed: bool  # Enter edits it as text (names, numbers, paths)


@dataclass(frozen=True, slots=True)
class HostForm:
    """What the host chose so far.  Option values are kept as the text `--option` takes."""

    engine: str = "prototag"
    options: tuple[tuple[str, str], ...] = ()
    map_path: str = ""
    seats: int = 2
    bots: int = 0
    bot: str = "heuristic2"
    name: str = ""
    password: str = ""
    focus: int = 0
    note: str = ""  # a remark from pre-filling (flags the form could not use)

    @classmethod
    def prefill(
        cls,
        option_pairs: Mapping[str, str] | None = None,
        *,
        engine: str | None = None,
        map_path: str = "",
        seats: int = 2,
        bots: int = 0,
        bot: str = "heuristic2",
        name: str = "",
        password: str = "",
    ) -> HostForm:
        """A form from `lantag host` flags.  Without ``engine`` it starts on the first game
        that knows every given option (and takes maps when a map is given)."""
        pairs = dict(option_pairs or {})
        if engine is None:
            engine = engine_ids()[0]
            for candidate in engine_ids():
                names = {s.name for s in get_game(candidate).option_specs}
                if set(pairs) <= names and (not map_path or takes_map(candidate)):
                    engine = candidate
                    break
        form = cls(engine=engine, map_path=map_path, seats=seats, bots=bots, bot=bot)
        form = replace(form, name=name, password=password, options=form._defaults())
        skipped = []
        for key, text in pairs.items():
            try:
                form = form.set_option(key, text)
            except OptionError as exc:
                skipped.append(str(exc))
        return replace(form, note="; ".join(skipped))

    # ------------------------------------------------------------------ reading

    def game(self) -> type[Game]:
        return get_game(self.engine)

    def _defaults(self) -> tuple[tuple[str, str], ...]:
        return tuple((s.name, _text(s, s.default)) for s in self.game().option_specs)

    def option(self, name: str) -> str:
        given = dict(self.options).get(name)
        if given is not None:
            return given
        spec = self._spec(name)
        return _text(spec, spec.default)

    def _spec(self, name: str) -> OptionSpec:
        for spec in self.game().option_specs:
            if spec.name == name:
                return spec
        raise OptionError(f"{self.engine} has no option {name!r}")

    def max_people(self) -> int:
        return min(self.game().max_seats, MAX_SEATS)

    def fields(self) -> tuple[Field, ...]:
        game = self.game()
        out = [
            Field(
                "engine",
                "game",
                f"◀ {game.display_name} ▶",
                f"{game.min_seats}-{game.max_seats} players. {game.summary}",
                False,
            )
        ]
        for spec in game.option_specs:
            span = f"[{spec.min}..{spec.max}] " if spec.min is not None else ""
            span += f"({'/'.join(spec.choices)}) " if spec.choices else ""
            span += "(yes/no) " if isinstance(spec.default, bool) else ""
            typed = isinstance(spec.default, int) and not isinstance(spec.default, bool)
            typed = typed or (isinstance(spec.default, str) and not spec.choices)
            out.append(
                Field(
                    f"opt:{spec.name}", spec.name, self.option(spec.name), span + spec.help, typed
                )
            )
        if takes_map(self.engine):
            out.append(
                Field(
                    "map",
                    "map file",
                    self.map_path or "(none: the map option)",
                    "a map file path; it replaces the shipped map (docs/maps.md)",
                    True,
                )
            )
        players = self.seats + self.bots
        short = (
            f" — {game.display_name} needs {game.min_seats}-{game.max_seats} players in all"
            if not game.min_seats <= players <= game.max_seats
            else ""
        )
        out += [
            Field("seats", "seats", str(self.seats), f"people, yours included{short}", True),
            Field("bots", "bots", str(self.bots), f"bot seats ({players} players in all)", True),
            Field("bot", "bot kind", self.bot, f"({'/'.join(bot_names())})", False),
            Field("name", "name", self.name or "(default: <you>'s game)", "shown to others", True),
            Field(
                "password",
                "password",
                "•" * len(self.password) if self.password else "(none)",
                "joiners must type it; empty: anyone can join",
                True,
            ),
            Field("host", "[ host ]", "", "Enter or s: open the lobby with these settings", False),
        ]
        return tuple(out)

    def focused(self) -> Field:
        fields = self.fields()
        return fields[min(self.focus, len(fields) - 1)]

    def text_of(self, key: str) -> str:
        """A field's current value as editable text."""
        if key.startswith("opt:"):
            return self.option(key[4:])
        return str(
            {
                "map": self.map_path,
                "seats": self.seats,
                "bots": self.bots,
                "bot": self.bot,
                "name": self.name,
                "password": self.password,
                "engine": self.engine,
            }.get(key, "")
        )

    # ------------------------------------------------------------------ changing

    def move(self, delta: int) -> HostForm:
        return replace(self, focus=(self.focus + delta) % len(self.fields()))

    def focus_on(self, key: str) -> HostForm:
        keys = [f.key for f in self.fields()]
        return replace(self, focus=keys.index(key))

    def next_engine(self, delta: int = 1) -> HostForm:
        """The next game; its options start at their defaults, the map only if it takes one."""
        ids = engine_ids()
        engine = ids[(ids.index(self.engine) + delta) % len(ids)] if self.engine in ids else ids[0]
        return self.set_engine(engine)

    def set_engine(self, engine: str) -> HostForm:
        game = get_game(engine)  # OptionError names the known games
        form = replace(self, engine=game.id, note="")
        form = replace(form, options=form._defaults())
        if not takes_map(game.id):
            form = replace(form, map_path="")
        # Keep the seat count playable where the new game allows fewer players.
        seats = max(1, min(form.seats, form.max_people()))
        bots = max(0, min(form.bots, form.max_people() - seats))
        return replace(form, seats=seats, bots=bots, focus=0)

    def set_option(self, name: str, text: str) -> HostForm:
        """Set an option from `--option` text; OptionError (form unchanged) if it is bad."""
        spec = self._spec(name)
        value = _text(spec, spec.parse(text))
        options = tuple((k, value if k == name else v) for k, v in self.options)
        return replace(self, options=options)

    def step_option(self, name: str, delta: int) -> HostForm:
        spec = self._spec(name)
        current = spec.parse(self.option(name))
        if isinstance(current, bool):
            return self.set_option(name, "no" if current else "yes")
        if isinstance(current, int):
            low = spec.min if spec.min is not None else current + delta
            high = spec.max if spec.max is not None else current + delta
            return self.set_option(name, str(max(low, min(high, current + delta))))
        if spec.choices:
            index = spec.choices.index(current) if current in spec.choices else -1
            return self.set_option(name, spec.choices[(index + delta) % len(spec.choices)])
        return self

    def set_count(self, key: str, value: int) -> HostForm:
        """Seats or bots, exactly as given (to_config says if the game cannot take them)."""
        return replace(self, seats=value) if key == "seats" else replace(self, bots=value)

    def step(self, key: str, delta: int) -> HostForm:
        """←/→ on a field: cycle a game or choice, step a number within its range."""
        if key == "engine":
            return self.next_engine(delta)
        if key.startswith("opt:"):
            return self.step_option(key[4:], delta)
        if key == "seats":
            return replace(
                self, seats=max(1, min(self.max_people() - self.bots, self.seats + delta))
            )
        if key == "bots":
            return replace(
                self, bots=max(0, min(self.max_people() - self.seats, self.bots + delta))
            )
        if key == "bot":
            kinds = bot_names()
            index = kinds.index(self.bot) if self.bot in kinds else -1
            return replace(self, bot=kinds[(index + delta) % len(kinds)])
        return self

    def set_text(self, key: str, text: str) -> HostForm:
        """A field typed as text.  Raises OptionError or ValueError with a one-line reason."""
        if key.startswith("opt:"):
            return self.set_option(key[4:], text)
        if key in ("seats", "bots"):
            if not text.strip().isdigit():
                raise ValueError(f"{key}: expected a whole number, got {text.strip()!r}")
            return self.set_count(key, int(text))
        if key == "engine":
            return self.set_engine(text.strip())
        if key == "map":
            if text.strip() and not takes_map(self.engine):
                raise ValueError(f"a map file is only for {', '.join(map_engines())}")
            return replace(self, map_path=text.strip())
        if key == "bot":
            if text.strip() not in bot_names():
                raise ValueError(f"unknown bot {text.strip()!r} (bots: {', '.join(bot_names())})")
            return replace(self, bot=text.strip())
        if key == "name":
            return replace(self, name=text.strip())
        if key == "password":
            return replace(self, password=text)
        raise ValueError(f"{key} is not a text field")

    def to_config(self, nickname: str, turn_timeout: float = 120.0) -> HostConfig:
        """The HostConfig `lantag host` would build from the same flags (UserError if not)."""
        map_path = str(Path(self.map_path).expanduser()) if self.map_path else None
        return host_config(
            self.engine,
            dict(self.options),
            map_path,
            seats=self.seats,
            bots=self.bots,
            bot=self.bot,
            name=self.name,
            password=self.password,
            turn_timeout=turn_timeout,
            nickname=nickname,
        )
