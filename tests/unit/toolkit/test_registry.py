"""The registry imports a declared tool's module when a lookup first needs it, and no sooner."""

from __future__ import annotations

import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from multitool.toolkit.model_specs import IndexEntry
from multitool.toolkit.registry import DuplicateTool, Index, MisdeclaredTool, ToolRegistry

# A toy tool module: the email tool's spec under another name, group, action and path.
TOY = """\
import msgspec
from typing import Literal
from multitool.toolkit.cards import CardSpec
from multitool.tools.email import email_draft
from multitool.wire import WireModel


class Payload(WireModel):
    action: Literal["show_{group}"] = "show_{group}"
    draft_id: str


SPEC = msgspec.structs.replace(
    email_draft.SPEC,
    name="create_{group}",
    action_group="{served}",
    payload_model=Payload,
    card=CardSpec.of_payload(Payload, caption=lambda card: card.id),
    api_path="/{group}",
)
"""


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh package of toy tool modules: ``note``, ``reminder``, ``misnamed`` (serves
    ``reminder``) and ``empty`` (no SPEC)."""
    name = f"toytools_{uuid.uuid4().hex}"
    folder = tmp_path / name
    folder.mkdir()
    (folder / "__init__.py").write_text("", encoding="utf-8")
    for group, served in (("note", "note"), ("reminder", "reminder"), ("misnamed", "reminder")):
        (folder / f"{group}.py").write_text(TOY.format(group=group, served=served), encoding="utf-8")
    (folder / "empty.py").write_text("VALUE = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    for module in [m for m in sys.modules if m.startswith(name)]:
        del sys.modules[module]


def test_a_lookup_by_action_group_imports_that_tool_only(package: str) -> None:
    registry = ToolRegistry()
    registry.declare(f"{package}.note")
    registry.declare(f"{package}.reminder")

    spec = registry.by_group("reminder")

    assert spec is not None
    assert spec.name == "create_reminder"
    assert f"{package}.reminder" in sys.modules
    assert f"{package}.note" not in sys.modules


def test_a_declared_tool_s_module_is_known_by_its_group_before_and_after_it_loads(package: str) -> None:
    registry = ToolRegistry()
    registry.declare(f"{package}.note")
    registry.declare(f"{package}.reminder")

    assert registry.module("reminder") == f"{package}.reminder"
    assert f"{package}.reminder" not in sys.modules  # named without loading it: the function loads it
    registry.by_group("reminder")
    assert registry.module("reminder") == f"{package}.reminder"
    assert registry.module("nothing") is None


def test_a_lookup_the_loaded_tools_cannot_answer_loads_the_others(package: str) -> None:
    registry = ToolRegistry()
    registry.declare(f"{package}.note")
    registry.declare(f"{package}.reminder")
    registry.by_group("reminder")

    assert registry.get("create_note") is not None
    assert registry.by_action("show_note") is registry["create_note"]
    assert registry.by_action("show_nothing") is None


def test_a_walk_lists_every_tool_in_declaration_order_whichever_loaded_first(package: str) -> None:
    registry = ToolRegistry()
    registry.declare(f"{package}.note")
    registry.declare(f"{package}.reminder")
    registry.by_group("reminder")

    assert list(registry) == ["create_note", "create_reminder"]
    assert registry.groups == ("note", "reminder")
    assert list(registry.actions) == ["show_note", "show_reminder"]
    assert len(registry) == 2


def test_a_module_not_named_after_its_action_group_is_refused_on_every_walk(package: str) -> None:
    registry = ToolRegistry()
    registry.declare(f"{package}.misnamed")

    refused = "declared as action group 'misnamed' but its SPEC serves 'reminder'"
    with pytest.raises(MisdeclaredTool, match=refused):
        registry.by_group("misnamed")
    with pytest.raises(MisdeclaredTool):  # never silently missing from a walk
        list(registry)


def test_a_module_without_a_spec_is_refused(package: str) -> None:
    registry = ToolRegistry()
    registry.declare(f"{package}.empty")

    with pytest.raises(MisdeclaredTool, match="holds no SPEC"):
        registry.load_all()


def test_an_action_group_is_declared_once(package: str) -> None:
    registry = ToolRegistry()
    registry.declare(f"{package}.note")

    with pytest.raises(DuplicateTool, match="action group 'note'"):
        registry.declare(f"other_{package}.note")


def test_a_registered_spec_may_not_take_a_declared_tool_s_place(package: str) -> None:
    registry = ToolRegistry()
    registry.declare(f"{package}.reminder")
    other = ToolRegistry()
    other.declare(f"{package}.misnamed")
    with pytest.raises(MisdeclaredTool):
        other.load_all()
    clash = sys.modules[f"{package}.misnamed"].SPEC  # serves 'reminder', as the declared one does

    with pytest.raises(DuplicateTool, match="action group 'reminder'"):
        registry.register(clash)
    assert registry["create_reminder"].action_group == "reminder"


def test_threads_that_load_at_once_load_each_tool_once(package: str, tmp_path: Path) -> None:
    # Given a tool whose module takes a while to import, as a first import does
    slow = "import time\ntime.sleep(0.2)\n" + TOY.format(group="slow", served="slow")
    (tmp_path / package / "slow.py").write_text(slow, encoding="utf-8")
    registry = ToolRegistry()
    registry.declare(f"{package}.slow")
    registry.declare(f"{package}.note")
    start = threading.Barrier(4)
    failures: list[BaseException] = []

    def first_request(lookup: str) -> None:
        start.wait()
        try:
            registry.load_all() if lookup == "all" else registry.by_group("slow")
        except BaseException as error:  # whatever a thread raised, the test reports
            failures.append(error)

    # When four concurrent first requests load the tools
    threads = [
        threading.Thread(target=first_request, args=(kind,)) for kind in ("all", "slow", "all", "slow")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    # Then each tool is added once and no thread sees a clash with itself
    assert failures == []
    assert list(registry) == ["create_slow", "create_note"]


def _index(package: str, *groups: str, name_of: dict[str, str] | None = None) -> Index:
    """An index as ``make schemas`` writes it, for the toy modules of ``groups``."""
    entries = {
        group: IndexEntry(
            (name_of or {}).get(group, f"create_{group}"), f"show_{group}", group, f"{package}.{group}.Args"
        )
        for group in groups
    }
    return lambda: entries


def test_a_lookup_by_name_or_action_loads_the_one_tool_the_index_names(package: str) -> None:
    registry = ToolRegistry(_index(package, "note", "reminder"))
    registry.declare(f"{package}.note")
    registry.declare(f"{package}.reminder")

    assert registry.names == ("create_note", "create_reminder")
    assert "create_reminder" in registry
    assert f"{package}.note" not in sys.modules
    assert f"{package}.reminder" not in sys.modules

    assert registry["create_reminder"].action_group == "reminder"
    assert f"{package}.reminder" in sys.modules
    assert f"{package}.note" not in sys.modules

    spec = registry.by_action("show_note")
    assert spec is not None
    assert spec.name == "create_note"


def test_described_tools_are_the_index_s_entries_until_they_load(package: str) -> None:
    registry = ToolRegistry(_index(package, "note", "reminder"))
    registry.declare(f"{package}.note")
    registry.declare(f"{package}.reminder")
    registry.by_group("reminder")

    described = registry.described()

    assert isinstance(described[0], IndexEntry)
    assert described[0].name == "create_note"
    assert described[1] is registry.by_group("reminder")
    assert f"{package}.note" not in sys.modules


def test_a_stale_index_costs_a_load_of_every_tool_never_a_wrong_answer(package: str) -> None:
    # The index calls the note tool 'create_memo' (a rename after make schemas last ran).
    registry = ToolRegistry(_index(package, "note", "reminder", name_of={"note": "create_memo"}))
    registry.declare(f"{package}.note")
    registry.declare(f"{package}.reminder")

    assert registry.get("create_memo") is None
    assert registry["create_note"].action_group == "note"
    assert registry.names == ("create_note", "create_reminder")


def test_an_index_entry_of_another_module_is_not_used(package: str) -> None:
    entries = {"note": IndexEntry("create_note", "show_note", "note", "elsewhere.note.Args")}
    registry = ToolRegistry(lambda: entries)
    registry.declare(f"{package}.note")
    registry.declare(f"{package}.reminder")

    assert registry.names == ("create_note", "create_reminder")  # read from the tools, both loaded
    assert f"{package}.note" in sys.modules
    assert f"{package}.reminder" in sys.modules


def test_each_built_in_tool_is_a_module_of_a_tool_package_holding_its_models_and_its_confirm() -> None:
    from multitool.tools import REGISTRY

    modules = set()
    for spec in REGISTRY.values():
        module = spec.args_model.__module__
        package, _, name = module.rpartition(".")
        assert name == spec.action_group, f"{module} is not named after its action group"
        assert package.rpartition(".")[0] == "multitool.tools", f"{module} is not in a tool package"
        assert spec.payload_model.__module__.startswith(f"{package}."), spec.payload_model
        assert isinstance(spec.review, str)
        assert spec.review.startswith(f"{package}."), f"{spec.name}'s confirm is outside {package}"
        assert spec.action_review().content_model.__module__.startswith(f"{package}.")
        modules.add(module)

    # Tools of one domain may share its package (free_time reads times as the meeting tool does).
    assert len(modules) == len(REGISTRY)
