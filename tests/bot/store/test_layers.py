"""The store's modules only look down: the interface (backend) knows no engine, the engines know the
interface, and only the opening layer (and the facade above it) knows the engines. Read from the source
with ast, function-level imports included, so a circle closed by a late import still shows."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

STORE = Path(__file__).resolve().parents[3] / "bot" / "store"


def store_imports() -> dict[str, set[str]]:
    """Each bot.store module with the bot.store modules it imports anywhere in its source."""
    names = {path.stem for path in STORE.glob("*.py") if path.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name in names:
        found: set[str] = set()
        for node in ast.walk(ast.parse((STORE / f"{name}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bot.store."):
                found.add(node.module.split(".")[2])
            elif isinstance(node, ast.ImportFrom) and node.module == "bot.store":
                found.update(alias.name for alias in node.names if alias.name in names)
                found.add("__init__")
            elif isinstance(node, ast.Import):
                found.update(alias.name.split(".")[2] for alias in node.names
                             if alias.name.startswith("bot.store.") and len(alias.name.split(".")) > 2)
        graph[name] = found - {name}
    return graph


def circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle (as the path that closes it), or None."""
    state: dict[str, str] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = "open"
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return [*path[path.index(target):], target] if target in path else [node, target]
            if target not in state and (found := visit(target, [*path, target])):
                return found
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [start])):
            return found
    return None


def test_no_import_circle_inside_the_store() -> None:
    found = circle(store_imports())
    assert found is None, "import circle in bot/store: " + " -> ".join(found or [])


def test_the_interface_knows_no_engine_and_only_the_opening_knows_both() -> None:
    graph = store_imports()
    assert graph["backend"] == set()
    assert "opening" not in graph["sqlite_backend"] | graph["postgres_backend"]
    assert {"sqlite_backend", "postgres_backend"} <= graph["opening"]
    assert [name for name, targets in graph.items() if targets & {"sqlite_backend", "postgres_backend"}] == \
        ["opening"], "only the opening layer names the engines"


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
])
def test_the_circle_finder_finds_a_circle(graph, expected) -> None:
    assert circle(graph) == expected
