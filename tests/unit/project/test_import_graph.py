"""The layer's import graph: no cycle, and the arrows run one way, up the layers below.

Every import counts: at module level, inside a function, under ``TYPE_CHECKING``. A cycle
hidden in a function or behind ``TYPE_CHECKING`` still means neither module can be read (or
moved) without the other. ``from pkg import name`` is an arrow to ``pkg.name`` when that is a
module, else to ``pkg``; relative imports are resolved against the importing module's package.
A package's ``__init__`` is not counted as imported by its submodules: that is Python's loading
order, not a dependency the code chose.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest

LAYER_ROOT = Path(__file__).resolve().parents[3] / "shared" / "python"
PACKAGE = LAYER_ROOT / "multitool"

# The layers, lowest first: a module may import its own layer and the ones below it, never above.
# A module's layer is its place: the longest prefix of its dotted name listed here.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "base types",
        (
            "multitool",
            "multitool.wire",
            "multitool.records",
            "multitool.errors",
            "multitool.text",
            "multitool.validation",
            "multitool.zones",
            "multitool.people",
            "multitool.deployment",
            "multitool.settings",
            "multitool.observability",
            "multitool.models",
            "multitool.drafts",
        ),
    ),
    ("ports", ("multitool.ports",)),
    # The tool contract: the tool context and config, the one error model of a call and of a
    # confirm, the card spec (and the consent card a call answers when the user's account is not
    # connected yet), the confirm contract, ToolSpec and the registry. Below every tool, the cards
    # and the review, so each of them reads it and none of them is read by it.
    ("tool contract", ("multitool.toolkit",)),
    ("tools", ("multitool.tools", "multitool.schemas")),
    ("cards", ("multitool.cards",)),
    (
        "review and runtimes",
        (
            "multitool.review",
            "multitool.runtimes",
        ),
    ),
    (
        "chat",
        ("multitool.chat",),
    ),
    ("api", ("multitool.api",)),
    # The Slack app: Slack's wire around the chat turns and the review the APIs serve.
    ("slack", ("multitool.slack",)),
    # One composition module per deployed function: the only place that reads the settings to
    # choose the adapters its routes (api, the action-group apps, slack) are handed.
    ("wiring", ("multitool.wiring",)),
    ("local", ("multitool.local",)),
)

# Arrows that still run up the layers, each with the reason it is not yet gone. The test fails on
# an arrow up that is not listed here, and on a listed one that no longer exists: the list only shrinks.
UPWARD_ALLOWED: Mapping[tuple[str, str], str] = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(LAYER_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The layer's modules ``name`` imports, wherever in the file the import stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in modules:  # `import a.b.c` where c is a name, not a module
                    target = target.rpartition(".")[0]
                if target:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - (node.level - 1)])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:
                    found.add(f"{source}.{alias.name}")
                elif source in modules:
                    found.add(source)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = layer_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def tangles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module: each member reaches every other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan; the layer is small enough for recursion
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(components)


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One shortest cycle per tangle, through its first module."""
    return [shortest_cycle(graph, component) for component in tangles(graph)]


def shortest_cycle(graph: Mapping[str, set[str]], component: list[str]) -> list[str]:
    start, members = component[0], set(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w == start:
                    return [*paths[v], start]
                if w not in paths:
                    paths[w] = [*paths[v], w]
                    following.append(w)
        frontier = following
    raise AssertionError(f"{component} is not strongly connected")


def layer_of(module: str) -> int:
    best: tuple[int, int] | None = None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(f"{prefix}.")) and (
                best is None or len(prefix) > best[0]
            ):
                best = (len(prefix), rank)
    if best is None:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS")
    return best[1]


def upward_arrows(graph: Mapping[str, set[str]]) -> set[tuple[str, str]]:
    return {(a, b) for a, targets in graph.items() for b in targets if layer_of(b) > layer_of(a)}


def test_the_layer_has_no_import_cycle() -> None:
    graph = import_graph()
    found = tangles(graph)

    assert found == [], "import cycles in the layer:\n" + "\n".join(
        f"{' -> '.join(shortest_cycle(graph, c))} (tangled: {', '.join(c)})" for c in found
    )


def test_every_module_of_the_layer_has_a_layer() -> None:
    for module in layer_modules():
        layer_of(module)


MAX_TOP_LEVEL_MODULES = 11


def test_the_package_top_level_holds_only_the_shared_base_types() -> None:
    """Everything that belongs to one area lives in that area's package; the top level is the
    base types every layer may import, so a reader knows a module's place from its path."""
    top = sorted(p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_"))

    assert len(top) <= MAX_TOP_LEVEL_MODULES, top
    assert {f"multitool.{name}" for name in top} <= set(LAYERS[0][1]), (
        "a top-level module that is no base type"
    )


def test_no_arrow_runs_up_the_layers_unless_listed_with_its_reason() -> None:
    arrows = upward_arrows(import_graph())

    new = sorted(arrows - UPWARD_ALLOWED.keys())
    assert new == [], "imports that run up the layers: " + ", ".join(
        f"{a} ({LAYERS[layer_of(a)][0]}) -> {b} ({LAYERS[layer_of(b)][0]})" for a, b in new
    )
    gone = sorted(UPWARD_ALLOWED.keys() - arrows)
    assert gone == [], f"no longer imported, drop from UPWARD_ALLOWED: {gone}"


def reached_from(graph: Mapping[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    seen: set[str] = set()
    frontier = [start]
    while frontier:
        for target in graph[frontier.pop()] - seen:
            seen.add(target)
            frontier.append(target)
    return seen


PHRASE_READER = "multitool.tools.meeting.when"


def test_a_meeting_confirm_does_not_import_the_phrase_reader() -> None:
    # A confirm books the slot the payload holds: how the request was read is the proposal's business.
    reached = reached_from(import_graph(), "multitool.tools.meeting.booking")

    assert "multitool.tools.meeting.payload" in reached
    assert sorted(m for m in reached if m == PHRASE_READER or m.startswith(f"{PHRASE_READER}.")) == []
    assert "multitool.tools.meeting.scheduling" not in reached


# -- the graph itself: what counts as an import --------------------------------


def graph_of(files: Mapping[str, str], tmp_path: Path) -> dict[str, set[str]]:
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    modules = {
        ".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__"): p
        for p in tmp_path.rglob("*.py")
    }
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


@pytest.mark.parametrize(
    "source",
    [
        "from pkg.b import thing\n",
        "import pkg.b\n",
        "from pkg import b\n",
        "from . import b\n",
        "from .b import thing\n",
        "def f():\n    from pkg.b import thing\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import thing\n",
    ],
)
def test_every_kind_of_import_is_an_arrow(source: str, tmp_path: Path) -> None:
    graph = graph_of({"pkg/__init__.py": "", "pkg/a.py": source, "pkg/b.py": "import pkg.a\n"}, tmp_path)

    assert graph["pkg.a"] == {"pkg.b"}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_a_name_imported_from_a_package_is_an_arrow_to_the_package(tmp_path: Path) -> None:
    graph = graph_of(
        {"pkg/__init__.py": "X = 1\n", "pkg/sub/__init__.py": "", "pkg/sub/a.py": "from .. import X\n"},
        tmp_path,
    )

    assert graph["pkg.sub.a"] == {"pkg"}
    assert cycles(graph) == []


def test_a_cycle_is_named_by_its_shortest_loop(tmp_path: Path) -> None:
    graph = graph_of(
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import pkg.b\nimport pkg.c\n",
            "pkg/b.py": "import pkg.c\n",
            "pkg/c.py": "import pkg.a\n",
        },
        tmp_path,
    )

    assert cycles(graph) == [["pkg.a", "pkg.c", "pkg.a"]]
