"""Import rules between lanTag modules.

No lanTag module imports a private name (``_name``) of another lanTag module: what two
modules share is public and documented in the module that defines it.
"""

from __future__ import annotations

import ast
import fnmatch
from importlib.machinery import PathFinder
from pathlib import Path

import pytest

import lanTag

PACKAGE_ROOT = Path(lanTag.__path__[0])


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute module name of a (possibly relative) ``from`` import."""
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def private_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    """``module`` imports of another lanTag module's private names, as readable lines."""
    found: list[str] = []
    module_aliases: dict[str, str] = {}  # local name -> lanTag module it is bound to
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("lanTag") and alias.asname:
                    module_aliases[alias.asname] = alias.name
                if any(_is_private(part) for part in alias.name.split(".")):
                    found.append(f"{module}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            source_module = _absolute(module, is_package, node.level, node.module)
            if not source_module.startswith("lanTag") or source_module == module:
                continue
            for alias in node.names:
                if _is_private(alias.name):
                    found.append(f"{module}: from {source_module} import {alias.name}")
                else:
                    module_aliases[alias.asname or alias.name] = f"{source_module}.{alias.name}"
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in module_aliases
            and _is_private(node.attr)
            and _is_module(module_aliases[node.value.id])
        ):
            found.append(f"{module}: {module_aliases[node.value.id]}.{node.attr}")
    return found


def _is_module(dotted: str) -> bool:
    relative = Path(*dotted.split(".")[1:])
    base = PACKAGE_ROOT / relative
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def lantag_modules() -> list[Path]:
    return sorted(PACKAGE_ROOT.rglob("*.py"))


def test_no_module_imports_another_modules_private_names() -> None:
    found: list[str] = []
    for path in lantag_modules():
        source = path.read_text(encoding="utf-8")
        found += private_imports(source, module_name(path), path.name == "__init__.py")
    assert not found, "make these public (and documented) where they are defined:\n" + "\n".join(
        found
    )


def test_private_import_check_sees_every_form() -> None:
    source = (
        "from lanTag.session.core import _supersedes, STEP_WINDOW\n"
        "from .messages import _FITS\n"
        "from lanTag import wire\n"
        "import lanTag.session.referee as r\n"
        "from __future__ import annotations\n"
        "x = wire._check(1) + r._hidden(2) + wire.packb(3)\n"
    )
    assert private_imports(source, "lanTag.session.agreement") == [
        "lanTag.session.agreement: from lanTag.session.core import _supersedes",
        "lanTag.session.agreement: from lanTag.session.messages import _FITS",
        "lanTag.session.agreement: lanTag.wire._check",
        "lanTag.session.agreement: lanTag.session.referee._hidden",
    ]
    # A module's own private names, and non-lanTag modules, are its own business.
    assert private_imports("from os import _exit\nfrom . import _x\n", "lanTag.session", True) == []


# Test support (tests/support/, the cheating peer among it) and the tools (scripts/) are not
# part of the product: the wheel ships lanTag only, so a lanTag module importing them would
# break every install.
OUTSIDE_THE_PRODUCT = ("tests", "scripts")


def outside_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    """The modules of ``tests`` or ``scripts`` that ``source`` imports (lazy ones too)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [_absolute(module, is_package, node.level, node.module)]
        else:
            continue
        found += [name for name in names if name.split(".")[0] in OUTSIDE_THE_PRODUCT]
    return found


def test_lantag_never_imports_tests_or_scripts() -> None:
    found = [
        f"{module_name(path)}: {name}"
        for path in lantag_modules()
        for name in outside_imports(
            path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py"
        )
    ]
    assert found == []


def test_the_outside_import_check_sees_every_form() -> None:
    source = (
        "import tests.support.table\n"
        "from tests.support import adversary\n"
        "def f():\n"
        "    import scripts.gen_vectors as g\n"
        "from . import tests\n"  # lanTag.session.tests: lanTag's own
        "import lanTag.testsuite, testscripts\n"
    )
    assert outside_imports(source, "lanTag.session.core") == [
        "tests.support.table",
        "tests.support",
        "scripts.gen_vectors",
    ]


def test_test_support_is_not_in_the_product() -> None:
    # Issue #37: lanTag/testing/ moved to tests/support/, so ``import lanTag.testing`` fails.
    # Asked of this tree's lanTag folder: an editable install of another checkout answers
    # for lanTag's children too.  A stale lanTag/testing/ (a __pycache__ a checkout left)
    # would import as a namespace package: delete it.
    assert PathFinder.find_spec("lanTag.testing", list(lanTag.__path__)) is None
    assert PathFinder.find_spec("lanTag.rules", list(lanTag.__path__)) is not None
    import tests.support.adversary

    assert tests.support.adversary.Adversary.__module__ == "tests.support.adversary"


def test_the_wheel_ships_lanTag_only() -> None:
    # What setuptools packages, read from pyproject.toml as the build reads it.
    tomllib = pytest.importorskip("tomllib")
    setuptools = pytest.importorskip("setuptools")
    config = tomllib.loads((PACKAGE_ROOT.parent / "pyproject.toml").read_text(encoding="utf-8"))
    find = config["tool"]["setuptools"]["packages"]["find"]
    finder = (
        setuptools.find_namespace_packages
        if find.get("namespaces", True)
        else (setuptools.find_packages)
    )
    packages = finder(
        str(PACKAGE_ROOT.parent), include=find["include"], exclude=find.get("exclude", ())
    )
    assert "lanTag" in packages and "lanTag.games.tagem" in packages
    assert [p for p in packages if p.split(".")[0] != "lanTag"] == []
    assert "lanTag.testing" not in packages


# The tools and the tests import each other by name (``scripts.gen_vectors``,
# ``tests.support.table``) from the repository root: no module edits the import path or
# loads a file by its path (issue #37).
PATH_LOADERS = ("sys.path.insert", "sys.path.append", "spec_from_file_location")


def path_loads(source: str) -> list[str]:
    """The calls in ``source`` that edit ``sys.path`` or load a module from a file path."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            if name.endswith(PATH_LOADERS):
                found.append(name)
    return found


def test_tools_and_tests_import_by_name() -> None:
    root = PACKAGE_ROOT.parent
    found = [
        f"{path.relative_to(root)}: {call}"
        for folder in ("scripts", "tests")
        for path in sorted((root / folder).rglob("*.py"))
        for call in path_loads(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_path_load_check_sees_every_form() -> None:
    source = (
        "import sys, importlib.util\n"
        "sys.path.insert(0, str(ROOT))\n"
        "def f():\n"
        "    sys.path.append(HERE)\n"
        "    return importlib.util.spec_from_file_location('x', 'x.py')\n"
        "print('sys.path.insert(0, x)')\n"
    )
    assert path_loads(source) == [
        "sys.path.insert",
        "sys.path.append",
        "importlib.util.spec_from_file_location",
    ]


# Import direction between layers (docs/ARCHITECTURE.md).  A module's layer comes from its
# path under lanTag/: a pattern with ``*`` (a role inside every game's package) wins, else
# the longest matching path.  Every entry names a file or folder that exists
# (test_every_layer_entry_names_a_path).
LAYER_OF_PATH = {
    "__init__.py": "base",
    "errors.py": "base",
    "wire.py": "base",
    "identity.py": "base",
    "files.py": "base",
    "private_chat.py": "base",
    # What this install runs (`lantag --version`): asks the registry and the session.
    "versions.py": "versions",
    # The engine API every game implements and the game registry.
    "rules/": "rules",
    # One package per game: its engine and the engine's helpers are rules; the parts that
    # read an engine sit in the layer of what they serve, file by file.
    "games/": "rules",
    "games/*/view.py": "views",
    "games/*/bot.py": "bots",
    "games/*/bot_*.py": "bots",
    "games/*/paint.py": "ui",
    "games/*/metrics.py": "sim",
    # What people see of a state (view dict, text board, purposes in words), by engine id.
    "views/": "views",
    "fair/": "fair",
    "bots/": "bots",
    "session/": "session",
    "log/": "log",
    "net/": "net",
    "sim/": "sim",
    "peer/": "peer",
    "ui/": "ui",
    "cli/": "cli",
    "__main__.py": "cli",
}

CORE = {"base", "rules", "fair", "bots", "session", "log"}
# What each layer may import besides itself.  session and log need each other: the session
# appends to a log chain (log/entries.py), the verifier replays a Session (log/verify.py).
MAY_IMPORT: dict[str, set[str]] = {
    "base": set(),
    "rules": {"base"},
    "fair": {"base"},
    "bots": {"base", "rules"},
    "session": {"base", "rules", "fair", "bots", "log"},
    "log": {"base", "rules", "fair", "session"},
    "net": {"base"},
    "views": {"base", "rules"},
    "sim": {"base", "rules", "bots", "views"},
    "versions": CORE,
    "peer": CORE | {"net", "versions", "views"},
    "ui": CORE | {"net", "peer", "versions", "views"},
    "cli": CORE | {"net", "peer", "sim", "ui", "versions", "views"},
}
# Known exceptions, each with its reason; nothing else may cross a layer upwards.
ALLOWED_UPWARD = {
    # The host setup form accepts exactly the games the CLI accepts: it shares the CLI's
    # option parsing, UserError and game-setup checks instead of a copy.
    ("ui/host_form.py", "cli"),
    ("ui/host_setup.py", "cli"),
}


def layer_of(relative: str) -> str:
    """The layer of a path under lanTag/ (``session/core.py``): a matching ``*`` pattern's,
    else its longest matching table entry's."""
    for pattern, layer in LAYER_OF_PATH.items():
        if "*" in pattern and fnmatch.fnmatchcase(relative, pattern):
            return layer
    best = ""
    for prefix in LAYER_OF_PATH:
        if "*" in prefix:
            continue
        if (relative == prefix or (prefix.endswith("/") and relative.startswith(prefix))) and len(
            prefix
        ) > len(best):
            best = prefix
    if not best:
        raise AssertionError(f"lanTag/{relative} has no layer: add it to LAYER_OF_PATH")
    return LAYER_OF_PATH[best]


def module_file(dotted: str) -> str | None:
    """``lanTag.session.core`` -> ``session/core.py`` (or ``pkg/__init__.py``); None if absent."""
    parts = dotted.split(".")[1:]
    if not parts:
        return "__init__.py"
    base = PACKAGE_ROOT.joinpath(*parts)
    if base.with_suffix(".py").is_file():
        return "/".join(parts) + ".py"
    if (base / "__init__.py").is_file():
        return "/".join([*parts, "__init__.py"])
    return None


def imported_files(source: str, module: str, is_package: bool) -> set[str]:
    """Every lanTag module file ``module`` imports (lazy and TYPE_CHECKING imports included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node.level, node.module)
            targets = [base]
            targets += [f"{base}.{alias.name}" for alias in node.names]
        for dotted in targets:
            if dotted.split(".")[0] != "lanTag":
                continue
            path = module_file(dotted)
            if path is not None:
                found.add(path)
    return found


def upward_imports() -> list[str]:
    found: list[str] = []
    for path in lantag_modules():
        relative = path.relative_to(PACKAGE_ROOT).as_posix()
        layer = layer_of(relative)
        source = path.read_text(encoding="utf-8")
        for target in imported_files(source, module_name(path), path.name == "__init__.py"):
            other = layer_of(target)
            if other == layer or other in MAY_IMPORT[layer]:
                continue
            if (relative, other) in ALLOWED_UPWARD:
                continue
            found.append(f"lanTag/{relative} ({layer}) imports lanTag/{target} ({other})")
    return sorted(found)


def test_every_module_has_a_layer() -> None:
    layers = {layer_of(path.relative_to(PACKAGE_ROOT).as_posix()) for path in lantag_modules()}
    assert layers <= MAY_IMPORT.keys()
    assert {"rules", "session", "net", "peer", "ui", "cli"} <= layers


def test_imports_only_go_down_the_layers() -> None:
    found = upward_imports()
    assert not found, "imports against docs/ARCHITECTURE.md's layers:\n" + "\n".join(found)


def test_core_never_imports_the_outer_layers() -> None:
    # The brief's two rules, stated on their own: engines never import views (rules never
    # imports ui), and the pure core never imports net, ui, cli or peer.
    for layer in ("rules", "fair", "session", "log"):
        assert not MAY_IMPORT[layer] & {"net", "ui", "cli", "peer", "sim", "views"}
    for relative, _ in ALLOWED_UPWARD:
        assert layer_of(relative) not in CORE


def test_layer_check_sees_lazy_and_relative_imports() -> None:
    source = (
        "def f():\n"
        "    from lanTag.ui import app\n"
        "from .messages import Signed\n"
        "import lanTag.net.udp\n"
        "from lanTag.rules.base import State\n"
    )
    found = imported_files(source, "lanTag.session.core", False)
    assert found == {
        "ui/__init__.py",
        "ui/app.py",
        "session/messages.py",
        "net/udp.py",
        "rules/base.py",
    }
    assert {layer_of(path) for path in found} == {"ui", "session", "net", "rules"}


def engine_imports_of_readers(sources: dict[str, str] | None = None) -> list[str]:
    """Modules of the rules layer (the engine API, every game's engine and its helpers)
    that import a module of a layer above them: a view, a painter, a bot, a screen...
    ``sources``: path under lanTag/ -> source text (default: every module of lanTag)."""
    if sources is None:
        sources = {
            path.relative_to(PACKAGE_ROOT).as_posix(): path.read_text(encoding="utf-8")
            for path in lantag_modules()
        }
    found: list[str] = []
    for relative, source in sorted(sources.items()):
        if layer_of(relative) != "rules":
            continue
        path = PACKAGE_ROOT / relative
        for target in imported_files(source, module_name(path), path.name == "__init__.py"):
            if layer_of(target) not in MAY_IMPORT["rules"] | {"rules"}:
                found.append(f"lanTag/{relative} imports lanTag/{target} ({layer_of(target)})")
    return sorted(found)


def test_engines_never_import_views_or_ui() -> None:
    # The view of a game reads its engine; an engine never reads its view (or anything
    # drawn from it), so rewording a view can never change a state hash
    # (docs/rules/VERSIONS.md).  Checked file by file: a game's package holds both.
    assert not engine_imports_of_readers(), "\n".join(engine_imports_of_readers())
    assert "rules" in MAY_IMPORT["views"] and "views" not in MAY_IMPORT["rules"]
    for game in ("prototag", "assassination", "boardtag", "stomptag", "tagem"):
        assert layer_of(f"games/{game}/engine.py") == "rules"
        assert layer_of(f"games/{game}/view.py") == "views"
        assert layer_of(f"games/{game}/bot.py") == "bots"
        assert layer_of(f"games/{game}/paint.py") == "ui"
        assert layer_of(f"games/{game}/metrics.py") == "sim"
    assert layer_of("games/tagem/bot_hunt.py") == "bots"
    assert layer_of("games/__init__.py") == layer_of("games/tagem/__init__.py") == "rules"


def stale_layer_entries(table: dict[str, str], root: Path) -> list[str]:
    """Entries of ``table`` (a LAYER_OF_PATH) naming no file or folder under ``root``; a
    ``*`` pattern is stale when it matches no module."""
    relatives = [p.relative_to(root).as_posix() for p in sorted(root.rglob("*.py"))]
    stale = []
    for entry in table:
        if "*" in entry:
            exists = any(fnmatch.fnmatchcase(r, entry) for r in relatives)
        else:
            exists = (root / entry).exists()
        if not exists:
            stale.append(entry)
    return stale


def test_every_layer_entry_names_a_path() -> None:
    # A table entry for a file that is gone would hide a new file of that name in the
    # wrong layer; a pattern must name at least one module.
    assert stale_layer_entries(LAYER_OF_PATH, PACKAGE_ROOT) == []


def test_the_stale_entry_check_sees_a_missing_path(tmp_path: Path) -> None:
    root = tmp_path / "lanTag"
    (root / "games" / "a").mkdir(parents=True)
    (root / "games" / "a" / "view.py").write_text("", encoding="utf-8")
    (root / "wire.py").write_text("", encoding="utf-8")
    table = {
        "wire.py": "base",
        "games/": "rules",
        "games/*/view.py": "views",
        "gone.py": "base",  # a file that no longer exists
        "old/": "net",  # a folder that no longer exists
        "games/*/paint.py": "ui",  # a pattern no module matches
    }
    assert stale_layer_entries(table, root) == ["gone.py", "old/", "games/*/paint.py"]


def test_every_shipped_game_is_one_package() -> None:
    from lanTag.rules.registry import engine_ids
    from lanTag.views.registry import view_ids

    assert set(view_ids()) == set(engine_ids())
    games = PACKAGE_ROOT / "games"
    assert {p.parent.name for p in games.glob("*/__init__.py")} == set(engine_ids())
    for game in engine_ids():
        for part in ("engine.py", "view.py", "paint.py", "bot.py", "rules.md"):
            assert (games / game / part).is_file(), f"games/{game}/{part}"
    # No game's module left in the shared packages.
    for shared in ("rules", "views", "bots"):
        names = [p.stem for p in (PACKAGE_ROOT / shared).glob("*.py")]
        assert [n for n in names for game in engine_ids() if n.startswith(game)] == []


def test_engine_import_check_sees_an_engine_importing_its_view() -> None:
    source = "def render(self):\n    from lanTag.games.tagem import view\n"
    found = imported_files(source, "lanTag.games.tagem.engine", False)
    assert "games/tagem/view.py" in found
    assert layer_of("games/tagem/view.py") not in MAY_IMPORT["rules"]
    # The whole check, on an engine that imports its view lazily and a screen.
    engine = (PACKAGE_ROOT / "games" / "tagem" / "engine.py").read_text(encoding="utf-8")
    assert engine_imports_of_readers({"games/tagem/engine.py": engine}) == []
    bad = engine + "\n" + source + "from lanTag.ui import boards\n"
    assert engine_imports_of_readers({"games/tagem/engine.py": bad}) == [
        "lanTag/games/tagem/engine.py imports lanTag/games/tagem/view.py (views)",
        "lanTag/games/tagem/engine.py imports lanTag/ui/__init__.py (ui)",
        "lanTag/games/tagem/engine.py imports lanTag/ui/boards.py (ui)",
    ]


def import_cycles(sources: dict[str, str]) -> list[list[str]]:
    """Import cycles among the modules ``sources`` holds (path under lanTag/ -> source),
    lazy and TYPE_CHECKING imports included: each cycle once, as the paths it runs through."""
    graph: dict[str, list[str]] = {}
    for relative, source in sources.items():
        path = PACKAGE_ROOT / relative
        targets = imported_files(source, module_name(path), path.name == "__init__.py")
        graph[relative] = sorted(t for t in targets if t in sources and t != relative)
    cycles: list[list[str]] = []
    seen: set[frozenset[str]] = set()

    def walk(node: str, trail: list[str]) -> None:
        for target in graph[node]:
            if target in trail:
                cycle = trail[trail.index(target) :]
                if frozenset(cycle) not in seen:
                    seen.add(frozenset(cycle))
                    cycles.append(cycle)
            else:
                walk(target, [*trail, target])

    for start in sorted(graph):
        walk(start, [start])
    return cycles


def test_no_game_module_imports_its_engine_back() -> None:
    # A game's package reads in one direction: board and pieces, the state's fields, the
    # helpers that read them (codec, checks, position), then the engine; view, painter,
    # bot and figures on top.  No cycle, not even one mypy alone sees.
    for package in sorted((PACKAGE_ROOT / "games").glob("*/__init__.py")):
        sources = {
            p.relative_to(PACKAGE_ROOT).as_posix(): p.read_text(encoding="utf-8")
            for p in package.parent.glob("*.py")
        }
        assert import_cycles(sources) == [], package.parent.name


def test_the_cycle_check_sees_a_cycle() -> None:
    # Stand-ins for Tag 'em's modules, the codec importing the engine for a type only.
    sources = {
        "games/tagem/engine.py": "from lanTag.games.tagem.codec import state_to_obj\n",
        "games/tagem/codec.py": "if TYPE_CHECKING:\n    from lanTag.games.tagem import engine\n",
        "games/tagem/board.py": "",
    }
    assert import_cycles(sources) == [["games/tagem/codec.py", "games/tagem/engine.py"]]
    sources["games/tagem/codec.py"] = "from lanTag.games.tagem.board import DIRS\n"
    assert import_cycles(sources) == []


# Issue #19's "done when": a layout a newcomer can read.
ROOT_MODULE_LIMIT = 6  # besides __init__.py and __main__.py
ARCHITECTURE_PAGE = PACKAGE_ROOT.parent / "docs" / "ARCHITECTURE.md"


def root_modules(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))


def names_used_three_times(paths: list[Path]) -> dict[str, int]:
    """Module file names (``__init__``/``__main__`` aside) that name three or more modules.

    A game's package (``games/<id>/``) is left out: there a name is a role every game
    shares (``engine.py``, ``view.py``, ``bot.py``), the way ``__init__.py`` is."""
    counts: dict[str, int] = {}
    for path in paths:
        if path.parent.parent.name == "games":
            continue
        if path.name not in ("__init__.py", "__main__.py"):
            counts[path.name] = counts.get(path.name, 0) + 1
    return {name: n for name, n in counts.items() if n >= 3}


def packages_missing_from(page: str, root: Path) -> list[str]:
    packages = sorted(
        p.parent.relative_to(root.parent).as_posix() for p in root.glob("*/__init__.py")
    )
    return [package for package in packages if f"`{package}/`" not in page]


def test_the_root_holds_at_most_six_modules() -> None:
    assert len(root_modules(PACKAGE_ROOT)) <= ROOT_MODULE_LIMIT, root_modules(PACKAGE_ROOT)


def test_no_module_name_is_used_three_times() -> None:
    assert names_used_three_times(lantag_modules()) == {}


def test_the_architecture_page_names_every_package() -> None:
    page = ARCHITECTURE_PAGE.read_text(encoding="utf-8")
    assert packages_missing_from(page, PACKAGE_ROOT) == []


def folders_without_init(root: Path) -> list[str]:
    """Folders under ``root`` that hold modules but no ``__init__.py``: setuptools' package
    finder (pyproject.toml) leaves such a folder out of the wheel."""
    folders = {p.parent for p in root.rglob("*.py")}
    return sorted(
        f.relative_to(root.parent).as_posix() for f in folders if not (f / "__init__.py").is_file()
    )


def test_every_folder_of_modules_is_a_package() -> None:
    assert folders_without_init(PACKAGE_ROOT) == []


def test_the_layout_checks_see_what_they_look_for(tmp_path: Path) -> None:
    root = tmp_path / "lanTag"
    for relative in ("__init__.py", "a.py", "b.py", "x/__init__.py", "x/lobby.py", "y/__init__.py"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("", encoding="utf-8")
    assert root_modules(root) == ["a.py", "b.py"]
    lobbies = [Path("lanTag/lobby.py"), Path("lanTag/x/lobby.py"), Path("lanTag/y/lobby.py")]
    assert names_used_three_times([*lobbies, Path("lanTag/x/__init__.py")]) == {"lobby.py": 3}
    assert names_used_three_times(lobbies[:2]) == {}
    engines = [Path(f"lanTag/games/{game}/engine.py") for game in ("a", "b", "c")]
    assert names_used_three_times(engines) == {}
    assert names_used_three_times([Path(f"lanTag/{p}/engine.py") for p in "abc"]) == {
        "engine.py": 3
    }
    assert packages_missing_from("`lanTag/x/` holds the x", root) == ["lanTag/y"]
    assert folders_without_init(root) == []
    (root / "z").mkdir()
    (root / "z" / "core.py").write_text("", encoding="utf-8")
    assert folders_without_init(root) == ["lanTag/z"]
