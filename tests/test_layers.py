"""Layers point one way: games ← core ← adapter ← composition roots (bot.app, and the playground,
which also wires the emulator); nothing but bot.__main__ imports the playground; no import cycles
in games/, bot/ or emulator/.

Walks every import statement of the project's packages (inside functions and TYPE_CHECKING
blocks too: a hidden import is still a dependency) and checks who may import whom. Cycles count
every import, type-only ones too: two modules that need each other, even only to name each
other's types, are one module in two files.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "bot", "emulator")

# The layer of a module, by its longest matching prefix.
LAYERS = {
    "bot": "namespace",  # bot/__init__.py: imports nothing
    "games": "games",
    "bot.core": "core",
    "bot.adapter": "adapter",
    "bot.app": "root",
    "bot.playground": "playground",  # a second composition root: emulator + bot + web page
    "bot.__main__": "main",
    "emulator": "emulator",
}
# Which layers each layer may import (its own included).
ALLOWED = {
    "namespace": set(),
    "games": {"games"},
    "core": {"games", "core"},
    "adapter": {"games", "core", "adapter"},
    "root": {"games", "core", "adapter", "root"},
    "playground": {"games", "core", "root", "emulator", "playground"},
    "main": {"games", "core", "root", "playground", "main"},
    "emulator": {"emulator"},
}
# No module of these packages grows past this many lines (the emulator was one 3,100-line file).
MAX_LINES = {"emulator": 600}
# Third-party packages a layer must never import.
FORBIDDEN_LIBRARIES = {
    "games": {"discord", "aiosqlite", "asyncpg", "asyncio", "aiohttp"},
    "core": {"discord", "aiohttp"},
}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, root: Path, modules: set[str]) -> set[str]:
    """Every module ``path`` imports (absolute names; relative imports resolved). ``from
    package import module`` counts as importing the module (not the package's __init__).
    Imports inside functions and ``if TYPE_CHECKING:`` blocks count like any other."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for level, module, names in import_statements(path.read_text(encoding="utf-8")):
        if level is None:  # import a, b.c
            found.update(names)
            continue
        if level:
            base = package.split(".")
            base = base[: len(base) - level + 1]
            target = ".".join([*base, module] if module else base)
        else:
            target = module
        for alias in names:
            submodule = f"{target}.{alias}"
            found.add(submodule if submodule in modules else target)
    return found


@functools.cache
def import_statements(source: str) -> tuple[tuple[int | None, str, tuple[str, ...]], ...]:
    """(level, module, names) of every import statement of ``source`` (level None: a plain
    ``import``). Parsed once per text: the checks read the project, then copies of it."""
    found: list[tuple[int | None, str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.append((None, "", tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or "", tuple(a.name for a in node.names)))
    return tuple(found)


def project_modules(root: Path) -> dict[str, Path]:
    return {
        module_name(path, root): path
        for package in PACKAGES
        if (root / package).is_dir()
        for path in (root / package).rglob("*.py")
    }


def project_graph(root: Path) -> dict[str, set[str]]:
    """Module → the project modules it imports."""
    files = project_modules(root)
    names = set(files)
    return {
        name: {m for m in imports_of(path, root, names) if m in files and m != name}
        for name, path in files.items()
    }


def library_imports(root: Path) -> set[tuple[str, str]]:
    """(module, top-level library) for every import of something outside the project."""
    files = project_modules(root)
    return {
        (name, imported.split(".")[0])
        for name, path in files.items()
        for imported in imports_of(path, root, set(files))
        if imported.split(".")[0] not in PACKAGES
    }


def layer_of(module: str) -> str | None:
    best = max(
        (p for p in LAYERS if module == p or module.startswith(p + ".")), key=len, default=None
    )
    return LAYERS[best] if best else None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, set()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def problems(root: Path) -> list[str]:
    graph = project_graph(root)
    found: list[str] = []
    for module, imported in sorted(graph.items()):
        layer = layer_of(module)
        if layer is None:
            found.append(f"{module} belongs to no layer")
            continue
        for target in sorted(imported):
            target_layer = layer_of(target)
            if target_layer is not None and target_layer not in ALLOWED[layer]:
                found.append(f"{module} ({layer}) imports {target} ({target_layer})")
    for module, library in sorted(library_imports(root)):
        layer = layer_of(module)
        if layer in FORBIDDEN_LIBRARIES and library in FORBIDDEN_LIBRARIES[layer]:
            found.append(f"{module} ({layer}) imports {library}")
    found += [f"import cycle: {' ↔ '.join(c)}" for c in cycles(graph)]
    for package, limit in MAX_LINES.items():
        for path in sorted((root / package).rglob("*.py")):
            count = len(path.read_text(encoding="utf-8").splitlines())
            if count > limit:
                found.append(f"{module_name(path, root)} has {count} lines (at most {limit})")
    return found


def test_layers_point_one_way_and_nothing_imports_in_a_circle() -> None:
    assert problems(ROOT) == []


@pytest.mark.heavy
def test_the_check_fails_on_a_wrong_import_and_on_a_cycle(tmp_path: Path) -> None:
    """The checker must be able to fail: a copy of the project with planted wrong imports."""
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            target = tmp_path / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert problems(tmp_path) == []
    sessions = tmp_path / "bot" / "core" / "sessions.py"
    sessions.write_text(
        sessions.read_text(encoding="utf-8") + "\n\ndef _late() -> None:\n"
        "    from bot.adapter.tables import TableSync  # noqa\n",
        encoding="utf-8",
    )
    engine = tmp_path / "games" / "engine.py"
    engine.write_text(engine.read_text(encoding="utf-8") + "\nimport discord  # noqa\n")
    # A cycle made only of a type-only import and one inside a function.
    models = tmp_path / "emulator" / "models.py"
    models.write_text(
        models.read_text(encoding="utf-8") + "\nif TYPE_CHECKING:\n"
        "    from .emulator import DiscordEmulator  # noqa\n"
    )
    payloads = tmp_path / "emulator" / "payloads.py"
    payloads.write_text(payloads.read_text(encoding="utf-8") + "\n" + "# filler\n" * 600)
    found = problems(tmp_path)
    assert "bot.core.sessions (core) imports bot.adapter.tables (adapter)" in found
    assert "games.engine (games) imports discord" in found
    assert any(p.startswith("import cycle:") and "bot.core.sessions" in p for p in found)
    assert any(p.startswith("import cycle:") and "emulator.models" in p for p in found)
    assert any(p.startswith("emulator.payloads has ") for p in found)
