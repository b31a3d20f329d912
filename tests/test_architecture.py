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
        "from .core import _FITS\n"
        "from lanTag import cli\n"
        "import lanTag.cli as c\n"
        "from __future__ import annotations\n"
        "x = cli._options(1) + c._host_port(2) + cli.build_parser()\n"
    )
    assert private_imports(source, "lanTag.session.machine") == [
        "lanTag.session.machine: from lanTag.session.core import _supersedes",
        "lanTag.session.machine: from lanTag.session.core import _FITS",
        "lanTag.session.machine: lanTag.cli._options",
        "lanTag.session.machine: lanTag.cli._host_port",
    ]
    # A module's own private names, and non-lanTag modules, are its own business.
    assert private_imports("from os import _exit\nfrom . import _x\n", "lanTag.session", True) == []
