"""Move lanTag's modules into packages by layer, and rewrite every reference (issue #19).

Run from the repository root, on a clean tree, with the dev venv:

    .venv/bin/python scripts/relayout.py            # moves (git mv) and rewrites, prints both
    .venv/bin/python scripts/relayout.py --check    # prints what it would do, changes nothing

Idempotent: a second run finds nothing to move and nothing to rewrite, and says so.  It is
written to run on whatever main holds at the time, so it never patches fixed lines:

* every module move is one entry of MODULE_MOVES (old dotted name -> new dotted name);
* dotted names (``lanTag.lobby.HostLobby``, ``"lanTag.commands"`` in a registry,
  ``mock.patch("lanTag.ui.lobby.x")``, ``python -m lanTag.simulate``, ``lanTag.cli:main``
  in pyproject) are rewritten by their longest moved-module prefix, wherever they occur;
* ``from lanTag import lobby`` style imports (a moved module imported by its leaf name) are
  split into ``from lanTag.peer import join_handshake as lobby``;
* relative imports in moved test files are made absolute before the move;
* file paths (``lanTag/lobby.py``, ``session/machine.py``, ``tests/bots/test_simulate.py``)
  are rewritten in the docs, code and config;
* a few phrases of prose that name modules by their bare file names are listed in
  DOC_PHRASES (applied only where found).

A rewrite never matches text that already names a new module, so applying it twice is the
same as applying it once.  The files it reads: lanTag/, tests/, scripts/, docs/, protocol/,
README.md, pyproject.toml, .ci/ (this script excluded).  After moving anything it
re-installs the package in editable mode, so the ``lantag`` console script points at the
new entry module (``--no-reinstall`` skips that).
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SELF = Path(__file__).resolve()

# Old dotted module name -> new dotted module name.  Layers: lanTag/cli (command line),
# lanTag/ui (screens), lanTag/peer (a running peer), lanTag/sim (balance lab), then the
# pure core packages.  docs/ARCHITECTURE.md describes the result.
MODULE_MOVES: dict[str, str] = {
    # the command line: argument parser and entry point, one module per command group
    "lanTag.cli": "lanTag.cli.entry",
    "lanTag.commands": "lanTag.cli.play_commands",
    "lanTag.commands_bots": "lanTag.cli.bot_commands",
    "lanTag.commands_info": "lanTag.cli.info_commands",
    "lanTag.commands_logs": "lanTag.cli.log_commands",
    "lanTag.commands_resume": "lanTag.cli.resume_command",
    "lanTag.game_setup": "lanTag.cli.game_setup",
    "lanTag.headless": "lanTag.cli.headless",
    "lanTag.host_advert": "lanTag.cli.host_advert",
    "lanTag.join_help": "lanTag.cli.join_help",
    # a running peer: machine, sockets and identity on disk, join handshake, resume
    "lanTag.peer": "lanTag.peer.machine",
    "lanTag.runtime": "lanTag.peer.runtime",
    "lanTag.resume": "lanTag.peer.resume",
    "lanTag.lobby": "lanTag.peer.join_handshake",
    "lanTag.selfplay": "lanTag.peer.selfplay",
    # the balance lab
    "lanTag.simulate": "lanTag.sim.simulate",
    "lanTag.simulate_metrics": "lanTag.sim.metrics",
    "lanTag.simulate_png": "lanTag.sim.png",
    "lanTag.bots.strength": "lanTag.sim.bot_strength",
    # one name per idea ("lobby" x4, "machine" x2, "commands" x2 before)
    "lanTag.privchat": "lanTag.private_chat",
    "lanTag.session.machine": "lanTag.session.lockstep",
    "lanTag.session.lobby": "lanTag.session.lobby_record",
    "lanTag.net.machine": "lanTag.net.endpoint",
    "lanTag.net.lobbies": "lanTag.net.lobby_adverts",
    "lanTag.ui.lobby": "lanTag.ui.lobby_screens",
    "lanTag.ui.commands": "lanTag.ui.game_commands",
    # "versions" x2: the root one says what this install runs, this one whether two can play
    "lanTag.session.versions": "lanTag.session.compatibility",
    # what people see of a game: out of the engines' package (engines never import views)
    "lanTag.rules.prototag_view": "lanTag.views.prototag_view",
    "lanTag.rules.assassination_view": "lanTag.views.assassination_view",
    "lanTag.rules.boardtag_view": "lanTag.views.boardtag_view",
    "lanTag.rules.tagem_view": "lanTag.views.tagem_view",
    "lanTag.rules.stomptag_text": "lanTag.views.stomptag_view",
}

# Tests mirror the package layout.
TEST_MOVES: dict[str, str] = {
    "tests/bots/test_simulate.py": "tests/sim/test_simulate.py",
    "tests/bots/test_strength.py": "tests/sim/test_bot_strength.py",
    "tests/bots/test_selfplay.py": "tests/peer/test_selfplay.py",
    "tests/net/test_lobbies.py": "tests/net/test_lobby_adverts.py",
    "tests/ui/test_commands.py": "tests/ui/test_game_commands.py",
    "tests/session/test_log_verify.py": "tests/log/test_log_verify.py",
    "tests/session/test_plain_replay.py": "tests/log/test_plain_replay.py",
    "tests/session/test_verify_paths.py": "tests/log/test_verify_paths.py",
    "tests/session/test_verify_signature_pass.py": "tests/log/test_verify_signature_pass.py",
}

# New packages: created (with this docstring) when missing.
NEW_PACKAGE_INITS: dict[str, str] = {
    "lanTag/cli/__init__.py": (
        '"""The command line: ``lantag`` and its subcommands (docs/ARCHITECTURE.md)."""\n'
    ),
    "lanTag/peer/__init__.py": (
        '"""A running peer: the machine that joins sockets, session and log, the join\n'
        'handshake, resume, and the on-disk identity (docs/ARCHITECTURE.md)."""\n'
    ),
    "lanTag/sim/__init__.py": (
        '"""The balance lab: bot-vs-bot simulation and its figures (docs/balance.md)."""\n'
    ),
    "tests/sim/__init__.py": "",
    "tests/log/__init__.py": "",
    "tests/log/conftest.py": (
        '"""The log verification tests replay games of the toy engine of tests/session."""\n'
        "\n"
        "from tests.session.conftest import toy_engine\n"
        "\n"
        '__all__ = ["toy_engine"]\n'
    ),
}

# Prose that names a module by its bare file name: (file, old phrase, new phrase).
DOC_PHRASES: list[tuple[str, str, str]] = [
    (
        "README.md",
        "`lobby.py`, `peer.py`, `ui/`, `bots/`, `cli.py`.",
        "`cli/`, `ui/`, `peer/`, `sim/`, `bots/` (docs/ARCHITECTURE.md).",
    ),
    ("docs/NETWORK.md", "| `machine.py` |", "| `endpoint.py` |"),
    ("docs/NETWORK.md", "| `lobbies.py` |", "| `lobby_adverts.py` |"),
]

# Written for the layout after the move (they name the new packages by path), not rewritten.
EXCLUDED = {
    "docs/ARCHITECTURE.md",
    "tests/test_architecture.py",
    "scripts/relayout.py",
    "tests/test_relayout.py",  # its BEFORE text must keep the old names
}
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".sh", ".yml", ".yaml", ""}
SCAN_DIRS = ("lanTag", "tests", "scripts", "docs", "protocol", ".ci")
SCAN_FILES = ("README.md", "pyproject.toml")

# Every dotted rename, the moved tests included (tests import each other's helpers).
DOTTED_MOVES = MODULE_MOVES | {
    old.removesuffix(".py").replace("/", "."): new.removesuffix(".py").replace("/", ".")
    for old, new in TEST_MOVES.items()
}
NEW_MODULES = set(DOTTED_MOVES.values())
DOTTED = re.compile(r"(?<![\w.])(?:lanTag|tests)(?:\.[A-Za-z_]\w*)+")
FROM_IMPORT = re.compile(
    r"^(?P<indent>[ \t]*)from[ \t]+(?P<module>[\w.]+)[ \t]+import[ \t]+"
    r"(?P<names>\([^)]*\)|[^\n(]*?)(?P<comment>[ \t]*#[^\n]*)?$",
    re.MULTILINE,
)


def module_path(dotted: str) -> str:
    return dotted.replace(".", "/") + ".py"


def path_moves() -> dict[str, str]:
    """Every moved file as repository-relative path -> new path."""
    moves = {module_path(old): module_path(new) for old, new in MODULE_MOVES.items()}
    moves.update(TEST_MOVES)
    return moves


NEW_PACKAGES = {new.rpartition(".")[0] for new in NEW_MODULES}
IMPORTED_NAME = re.compile(r"[ \t]+import[ \t]+\(?\s*(\w+)")


def is_new_module(dotted: str) -> bool:
    """A module of the new layout: moved there, or on disk now (added after the move)."""
    if dotted in NEW_MODULES:
        return True
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def rewrite_dotted(text: str) -> str:
    """Rename every dotted reference to a moved module (longest moved prefix wins)."""

    def one(match: re.Match[str]) -> str:
        parts = match.group(0).split(".")
        if match.group(0) in NEW_PACKAGES:
            # "from lanTag.cli import entry": the new package, not the old module lanTag.cli.
            imported = IMPORTED_NAME.match(text, match.end())
            if imported and is_new_module(f"{match.group(0)}.{imported.group(1)}"):
                return match.group(0)
        for n in range(len(parts), 2, -1):
            # "lanTag.peer.series": a module added to a new package after the move.
            if ".".join(parts[: n - 1]) in NEW_PACKAGES and is_new_module(".".join(parts[:n])):
                return match.group(0)
        for n in range(len(parts), 1, -1):
            head = ".".join(parts[:n])
            if head in NEW_MODULES:
                return match.group(0)  # already the new name (keeps the rewrite idempotent)
            if head in DOTTED_MOVES:
                return ".".join([DOTTED_MOVES[head], *parts[n:]])
        return match.group(0)

    return DOTTED.sub(one, text)


def rewrite_from_imports(text: str) -> str:
    """``from pkg import leaf`` where pkg.leaf moved -> ``from newpkg import newleaf as leaf``."""

    def one(match: re.Match[str]) -> str:
        module, names = match.group("module"), match.group("names")
        items = [item.strip() for item in names.strip("()").replace("\n", " ").split(",")]
        items = [item for item in items if item and not item.startswith("#")]
        if "#" in names.strip("()"):
            return match.group(0)  # comments inside a parenthesised list: leave it alone
        moved: list[str] = []
        kept: list[str] = []
        for item in items:
            name, _, alias = item.partition(" as ")
            full = f"{module}.{name.strip()}"
            if full in DOTTED_MOVES:
                new_parent, _, new_leaf = DOTTED_MOVES[full].rpartition(".")
                local = alias.strip() or name.strip()
                suffix = "" if new_leaf == local else f" as {local}"
                moved.append(f"from {new_parent} import {new_leaf}{suffix}")
            else:
                kept.append(item)
        if not moved:
            return match.group(0)
        indent = match.group("indent")
        lines = [f"{indent}from {module} import {', '.join(kept)}"] if kept else []
        lines += [indent + line for line in moved]
        return "\n".join(lines) + (match.group("comment") or "")

    return FROM_IMPORT.sub(one, text)


def rewrite_paths(text: str) -> str:
    """File paths of moved modules and tests, with or without the ``lanTag/`` prefix."""
    for old, new in sorted(path_moves().items(), key=lambda kv: -len(kv[0])):
        text = re.sub(rf"(?<![\w/.]){re.escape(old)}(?![\w])", new, text)
        if old.startswith("lanTag/") and old.count("/") >= 2:  # session/machine.py in prose
            short_old, short_new = old.removeprefix("lanTag/"), new.removeprefix("lanTag/")
            text = re.sub(rf"(?<![\w/.]){re.escape(short_old)}(?![\w])", short_new, text)
    return text


def rewrite(text: str, is_python: bool) -> str:
    if is_python:
        text = rewrite_from_imports(text)
    return rewrite_paths(rewrite_dotted(text))


def absolute_relative_imports(path: Path) -> str | None:
    """A moved test's ``from .x import`` made absolute (its package changes with the move)."""
    text = path.read_text(encoding="utf-8")
    package = ".".join(path.relative_to(ROOT).parent.parts)

    def one(match: re.Match[str]) -> str:
        dots, rest = match.group(2), match.group(3)
        base = package.split(".")
        base = base[: len(base) - (len(dots) - 1)]
        target = ".".join([*base, rest] if rest else base)
        return f"{match.group(1)}from {target} import"

    new = re.sub(r"^([ \t]*)from[ \t]+(\.+)([\w.]*)[ \t]+import", one, text, flags=re.MULTILINE)
    return new if new != text else None


def scanned_files() -> list[Path]:
    out: list[Path] = [ROOT / name for name in SCAN_FILES if (ROOT / name).is_file()]
    for top in SCAN_DIRS:
        for path in sorted((ROOT / top).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            if path.resolve() == SELF or path.relative_to(ROOT).as_posix() in EXCLUDED:
                continue
            if path.suffix in TEXT_SUFFIXES:
                out.append(path)
    return out


def check_unambiguous() -> None:
    """Refuse a move whose old module defines a name equal to a new submodule's name.

    ``lanTag.peer.X`` means "attribute X of the old module" before the move and "module X of
    the new package" after; the two readings must never collide, or a rewrite would not be
    idempotent.
    """
    for old in MODULE_MOVES:
        path = ROOT / module_path(old)
        if not path.is_file():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined = {
            getattr(node, "name", None) for node in tree.body if hasattr(node, "name")
        } | {
            target.id
            for node in tree.body
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for new in NEW_MODULES:
            parent, _, leaf = new.rpartition(".")
            if parent == old and leaf in defined:
                raise SystemExit(f"relayout: {old} defines {leaf!r}, also a new module {new}")


def git(*args: str) -> None:
    subprocess.run(["git", *args], cwd=ROOT, check=True)


def move_files(dry_run: bool) -> list[tuple[str, str]]:
    moved: list[tuple[str, str]] = []
    for old, new in path_moves().items():
        src, dst = ROOT / old, ROOT / new
        if not src.exists():
            continue
        if dst.exists():
            raise SystemExit(f"relayout: both {old} and {new} exist; merge them by hand first")
        moved.append((old, new))
        if dry_run:
            continue
        if old.startswith("tests/"):
            fixed = absolute_relative_imports(src)
            if fixed is not None:
                src.write_text(fixed, encoding="utf-8")
        dst.parent.mkdir(parents=True, exist_ok=True)
        git("mv", old, new)
    return moved


def create_inits(dry_run: bool) -> list[str]:
    created: list[str] = []
    for rel, text in NEW_PACKAGE_INITS.items():
        path = ROOT / rel
        if path.exists() or not path.parent.is_dir():
            continue
        created.append(rel)
        if not dry_run:
            path.write_text(text, encoding="utf-8")
            git("add", rel)
    return created


def rewrite_files(dry_run: bool) -> list[str]:
    changed: list[str] = []
    phrases: dict[str, list[tuple[str, str]]] = {}
    for rel, old, new in DOC_PHRASES:
        phrases.setdefault(rel, []).append((old, new))
    for path in scanned_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(text, path.suffix == ".py")
        for old_phrase, new_phrase in phrases.get(path.relative_to(ROOT).as_posix(), []):
            new = new.replace(old_phrase, new_phrase)
        if new != text:
            changed.append(path.relative_to(ROOT).as_posix())
            if not dry_run:
                path.write_text(new, encoding="utf-8")
    return changed


def tidy_imports(changed_python: list[str]) -> None:
    """Re-sort the rewritten import blocks (ruff's isort rule); report lines now too long."""
    if not changed_python:
        return
    ruff = [sys.executable, "-m", "ruff", "check", "--no-cache"]
    subprocess.run([*ruff, "--fix", "--select", "I", "-q", *changed_python], cwd=ROOT)
    long_lines = subprocess.run(
        [*ruff, "--select", "E501", "--output-format", "concise", "-q", *changed_python],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if long_lines:
        print("relayout: lines too long after renaming (shorten by hand):\n" + long_lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="print what would change, do nothing")
    parser.add_argument("--no-reinstall", action="store_true", help="skip `pip install -e .`")
    args = parser.parse_args(argv)
    check_unambiguous()
    moved = move_files(args.check)
    # Packages must exist before files land in them; inits after, so a dry run sees none.
    created = create_inits(args.check)
    changed = rewrite_files(args.check)
    verb = "would " if args.check else ""
    for old, new in moved:
        print(f"{verb}move {old} -> {new}")
    for rel in created:
        print(f"{verb}create {rel}")
    for rel in changed:
        print(f"{verb}rewrite {rel}")
    if not (moved or created or changed):
        print("relayout: nothing to do (the layout is already in place)")
        return 0
    print(f"relayout: {len(moved)} moved, {len(created)} created, {len(changed)} rewritten")
    if not args.check:
        tidy_imports([rel for rel in changed if rel.endswith(".py")])
    if moved and not args.check and not args.no_reinstall:
        # The console script names its entry module; an editable install must learn the new one.
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "-e", str(ROOT)],
            check=True,
        )
        print("relayout: re-installed the package (editable) for the `lantag` entry point")
    return 0


if __name__ == "__main__":
    sys.exit(main())
