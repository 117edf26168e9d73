"""One composition module per deployed function: ``multitool.wiring.<function>`` is the only place
that reads the settings to choose that function's adapters, and the function's handler imports it.

"Which adapters does the review Lambda run on?" is then one file: ``wiring/review.py``. The route
modules (``api/*_app.py``, ``tools/apps.py``, ``slack/app.py``) take what they serve as arguments.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.unit.project.test_import_graph import LAYER_ROOT, PACKAGE, module_name

ROOT = LAYER_ROOT.parents[1]
FUNCTIONS = ROOT / "functions"
WIRING = "multitool.wiring"
COMPOSED_BY = {
    "orchestrator": f"{WIRING}.orchestrator",
    "review": f"{WIRING}.review",
    "slack": f"{WIRING}.slack",
    "mcp_caller": f"{WIRING}.interceptor",
}
"""Each function's composition module; the other handler, ``tool``, is every tool's function (action
group and Gateway target), composed by ``multitool.wiring.action_groups``."""
TOOL = "tool"
READ_ELSEWHERE = ("multitool.settings", "multitool.local")
"""The settings' own module, and the local command (never deployed), may read the environment too."""


def composition_of(function: str) -> str:
    return COMPOSED_BY.get(function, f"{WIRING}.action_groups")


def handlers() -> list[str]:
    return sorted(p.parent.name for p in FUNCTIONS.glob("*/handler.py"))


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def settings_reads(path: Path) -> list[str]:
    """Where a module calls ``<Settings>.from_env(...)``: the settings read from the environment."""
    return [
        f"{path.name}:{node.lineno}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "from_env"
    ]


def aws_factories(path: Path) -> list[str]:
    """The ``aws_*`` factories (a deployed adapter chosen and built) a module defines."""
    return [
        f"{path.name}:{node.name}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("aws_")
    ]


def outside_the_wiring() -> list[tuple[str, Path]]:
    modules = [(module_name(path), path) for path in sorted(PACKAGE.rglob("*.py"))]
    return [
        (name, path)
        for name, path in modules
        if not name.startswith(WIRING) and not name.startswith(READ_ELSEWHERE)
    ]


def test_every_function_has_a_handler_to_check() -> None:
    assert handlers() == sorted([*COMPOSED_BY, TOOL])


def test_every_tool_runs_the_one_tool_handler_and_has_no_folder_of_its_own() -> None:
    from multitool.tools import REGISTRY

    groups = REGISTRY.groups
    assert len(groups) >= 14
    for group in groups:
        module = REGISTRY.module(group)
        # The handler reads its action group off the module's name, as the registry names it.
        assert module is not None
        assert module.rpartition(".")[2] == group
        assert not (FUNCTIONS / group).exists(), group


@pytest.mark.parametrize("function", handlers())
def test_each_handler_imports_its_functions_composition_and_no_other(function: str) -> None:
    imported = imported_modules(FUNCTIONS / function / "handler.py")

    assert sorted(m for m in imported if m == WIRING or m.startswith(f"{WIRING}.")) == [
        composition_of(function)
    ]


def test_each_composition_module_exists() -> None:
    for module in {*COMPOSED_BY.values(), composition_of(TOOL)}:
        assert (LAYER_ROOT / Path(*module.split("."))).with_suffix(".py").is_file(), module


def test_only_the_wiring_reads_the_settings_from_the_environment() -> None:
    found = {name: settings_reads(path) for name, path in outside_the_wiring()}

    assert {name: where for name, where in found.items() if where} == {}


def test_only_the_wiring_defines_the_deployed_adapters_factories() -> None:
    found = {name: aws_factories(path) for name, path in outside_the_wiring()}

    assert {name: where for name, where in found.items() if where} == {}


def test_the_checks_see_a_settings_read_and_a_factory(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import functools\n"
        "@functools.cache\n"
        "def aws_thing():\n"
        "    from multitool.settings.chat import ChatSettings\n"
        "    return ChatSettings.from_env()\n",
        encoding="utf-8",
    )

    assert settings_reads(module) == ["m.py:5"]
    assert aws_factories(module) == ["m.py:aws_thing"]
