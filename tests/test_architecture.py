"""Import rules between lanTag modules.

No lanTag module imports a private name (``_name``) of another lanTag module: what two
modules share is public and documented in the module that defines it.
"""

from __future__ import annotations

import ast
from pathlib import Path

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


# Import direction between layers (docs/ARCHITECTURE.md).  A module's layer comes from the
# longest matching path under lanTag/ below.  The table holds the paths both before and
# after scripts/relayout.py moves the root modules into packages, so it holds on either tree.
LAYER_OF_PATH = {
    "__init__.py": "base",
    "errors.py": "base",
    "wire.py": "base",
    "identity.py": "base",
    "files.py": "base",
    "private_chat.py": "base",
    "privchat.py": "base",  # before the move
    # What this install runs (`lantag --version`): asks the registry and the session.
    "versions.py": "versions",
    "rules/": "rules",
    # What people see of a state (view dict, text board, purposes in words), by engine id.
    "views/": "views",
    "fair/": "fair",
    "bots/": "bots",
    "session/": "session",
    "log/": "log",
    "net/": "net",
    "sim/": "sim",
    "peer/": "peer",
    "testing/": "testing",
    "ui/": "ui",
    "cli/": "cli",
    "__main__.py": "cli",
    # Before the move: the root modules of the layers above.
    "bots/strength.py": "sim",
    "simulate.py": "sim",
    "simulate_metrics.py": "sim",
    "simulate_png.py": "sim",
    "peer.py": "peer",
    "runtime.py": "peer",
    "resume.py": "peer",
    "lobby.py": "peer",
    "selfplay.py": "peer",
    "cli.py": "cli",
    "commands.py": "cli",
    "commands_bots.py": "cli",
    "commands_info.py": "cli",
    "commands_logs.py": "cli",
    "commands_resume.py": "cli",
    "game_setup.py": "cli",
    "headless.py": "cli",
    "host_advert.py": "cli",
    "join_help.py": "cli",
}

CORE = {"base", "rules", "fair", "bots", "session", "log"}
# What each layer may import besides itself.  session and log need each other: the session
# appends to a log chain (log/chain.py), the verifier replays a Session (log/verify.py).
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
    "testing": CORE | {"net", "peer", "versions", "views"},
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
    """The layer of a path under lanTag/ (``session/core.py``), by its longest table entry."""
    best = ""
    for prefix in LAYER_OF_PATH:
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
        assert not MAY_IMPORT[layer] & {"net", "ui", "cli", "peer", "sim", "testing", "views"}
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


def view_imports_of_engines() -> list[str]:
    """Modules of lanTag/rules/ that import a view module (lanTag/views/, any ``*_view``)."""
    found: list[str] = []
    for path in sorted((PACKAGE_ROOT / "rules").rglob("*.py")):
        relative = path.relative_to(PACKAGE_ROOT).as_posix()
        source = path.read_text(encoding="utf-8")
        for target in imported_files(source, module_name(path), path.name == "__init__.py"):
            if target.startswith("views/") or target.endswith("_view.py"):
                found.append(f"lanTag/{relative} imports lanTag/{target}")
    return sorted(found)


def test_engines_never_import_views() -> None:
    # The view of a game reads its engine; an engine never reads its view, so rewording a
    # view can never change a state hash (docs/rules/VERSIONS.md).
    assert not view_imports_of_engines(), "\n".join(view_imports_of_engines())
    assert "rules" in MAY_IMPORT["views"] and "views" not in MAY_IMPORT["rules"]
    assert layer_of("views/prototag_view.py") == "views"


def test_every_engine_has_its_view_in_the_views_package() -> None:
    from lanTag.rules.registry import engine_ids
    from lanTag.views.registry import view_ids

    assert set(view_ids()) == set(engine_ids())
    views = {path.stem for path in (PACKAGE_ROOT / "views").glob("*_view.py")}
    assert views == {f"{engine}_view" for engine in engine_ids()}
    assert not list((PACKAGE_ROOT / "rules").glob("*_view.py"))


def test_view_import_check_sees_an_engine_importing_its_view() -> None:
    source = "def render(self):\n    from lanTag.views import tagem_view\n"
    found = imported_files(source, "lanTag.rules.tagem", False)
    assert "views/tagem_view.py" in found
    assert layer_of("views/tagem_view.py") not in MAY_IMPORT["rules"]


# Issue #19's "done when": a layout a newcomer can read.
ROOT_MODULE_LIMIT = 6  # besides __init__.py and __main__.py
ARCHITECTURE_PAGE = PACKAGE_ROOT.parent / "docs" / "ARCHITECTURE.md"


def root_modules(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))


def names_used_three_times(paths: list[Path]) -> dict[str, int]:
    """Module file names (``__init__``/``__main__`` aside) that name three or more modules."""
    counts: dict[str, int] = {}
    for path in paths:
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


def test_the_layout_checks_see_what_they_look_for(tmp_path: Path) -> None:
    root = tmp_path / "lanTag"
    for relative in ("__init__.py", "a.py", "b.py", "x/__init__.py", "x/lobby.py", "y/__init__.py"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("", encoding="utf-8")
    assert root_modules(root) == ["a.py", "b.py"]
    lobbies = [Path("lanTag/lobby.py"), Path("lanTag/x/lobby.py"), Path("lanTag/y/lobby.py")]
    assert names_used_three_times([*lobbies, Path("lanTag/x/__init__.py")]) == {"lobby.py": 3}
    assert names_used_three_times(lobbies[:2]) == {}
    assert packages_missing_from("`lanTag/x/` holds the x", root) == ["lanTag/y"]
