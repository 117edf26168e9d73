"""The layer's record conventions: values are msgspec Structs, secrets stay out of their repr, and a
module that declares pydantic models lets Python evaluate its annotations (see multitool.records)."""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest
from multitool.ports.jira import JiraCredentials
from multitool.ports.tokens import Account
from multitool.records import Redacted
from multitool.runtimes.base import TurnRequest
from multitool.toolkit.confirm import Caller
from multitool.toolkit.context import ToolContext
from pydantic import BaseModel

PACKAGE = Path(__file__).resolve().parents[3] / "shared" / "python" / "multitool"
# multitool.local is the developer's machine (servers, the CLI): never in a function's cold start.
DEPLOYED = sorted(p for p in PACKAGE.rglob("*.py") if "local" not in p.relative_to(PACKAGE).parts)
TOKEN = "eyJ.secret-token.sig"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize(
    "value",
    [
        TurnRequest(user_id="u-1", session_id="s-1", message="hi", user_token=TOKEN),
        ToolContext(owner="u-1", session_id="s-1", now=datetime(2026, 12, 4, tzinfo=UTC), user_token=TOKEN),
        Account(user_id="u-1", email="u@example.com", user_token=TOKEN),
        Caller(user_id="u-1", user_token=TOKEN),
        JiraCredentials(base_url="https://jira.example.com", email="bot@example.com", api_token=TOKEN),
    ],
    ids=type,
)
def test_a_token_is_kept_for_use_and_never_shown_by_repr(value: Redacted) -> None:
    assert TOKEN in msgspec.structs.astuple(value)  # type: ignore[arg-type]
    assert TOKEN not in repr(value)
    assert repr(value).startswith(f"{type(value).__name__}(")
    assert all(f"{name}=" in repr(value) for name in value.__struct_fields__ if name not in value.redacted)


def test_a_redacted_record_is_still_a_frozen_value() -> None:
    account = Account(user_id="u-1", user_token=TOKEN)

    assert account == Account(user_id="u-1", user_token=TOKEN)
    assert hash(account) == hash(Account(user_id="u-1", user_token=TOKEN))
    with pytest.raises(AttributeError):
        account.user_token = "other"  # type: ignore[misc]


@pytest.mark.parametrize("path", DEPLOYED, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_deployed_code_makes_no_stdlib_dataclass(path: Path) -> None:
    # A frozen dataclass compiles its methods when its module loads (about 0.5 ms a class on Python
    # 3.13); a Struct is made in C. pydantic's dataclasses (validated values) are another matter.
    assert not {"dataclasses", "dataclasses.dataclass"} & _imports(path)


@pytest.mark.parametrize("path", DEPLOYED, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_deployed_code_reads_the_packages_files_by_path(path: Path) -> None:
    # importlib.resources.files loads its readers (four modules, about 1 ms on Python 3.13) for a read
    # that multitool.FOLDER does by path; the layer is a folder, never a zip.
    assert not {"importlib.resources", "importlib.resources.files"} & _imports(path)


def _model_classes(base: type) -> Iterator[type]:
    for subclass in base.__subclasses__():
        yield subclass
        yield from _model_classes(subclass)


def test_a_module_that_declares_models_evaluates_its_annotations() -> None:
    # pydantic reads an evaluated annotation as it is; a string (PEP 563) it evaluates itself, which
    # makes each model class about a third dearer to create (0.36 against 0.23 ms on Python 3.13).
    for path in DEPLOYED:
        module = ".".join(("multitool", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(
            ".__init__"
        )
        importlib.import_module(module)
    declaring = {
        model.__module__
        for model in _model_classes(BaseModel)
        if model.__module__.startswith("multitool.") and not model.__module__.startswith("multitool.local")
    }
    assert len(declaring) > 20  # the chat, review, tools, settings and cards modules, at least

    postponed = sorted(
        module
        for module in declaring
        if "__future__.annotations" in _imports(Path(sys.modules[module].__file__ or ""))
    )
    assert postponed == []
