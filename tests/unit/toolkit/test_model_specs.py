"""The tools' JSON Schemas are committed: a cold start reads them, and they are what the models generate."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import multitool
import pytest
from multitool.runtimes.agentcore import harness_tools
from multitool.runtimes.converse import tool_specs_from_registry
from multitool.toolkit import model_specs
from multitool.tools import REGISTRY
from multitool.tools.email.email_draft import SPEC as EMAIL
from pydantic import BaseModel, Field

ROOT = Path(__file__).resolve().parents[3]
COMMITTED = Path(multitool.__file__).parent.joinpath(*model_specs.COMMITTED)


def test_committed_specs_match_what_the_models_generate() -> None:
    committed = COMMITTED.read_text(encoding="utf-8")

    assert committed == model_specs.render(REGISTRY.values()), (
        f"{COMMITTED.name} is stale: run `make schemas` and commit it"
    )


def test_committed_specs_are_the_generated_ones_entry_for_entry() -> None:
    generated = [model_specs.generated_tool_spec(spec) for spec in REGISTRY.values()]

    assert tool_specs_from_registry() == generated
    assert [entry["model"] for entry in json.loads(COMMITTED.read_text(encoding="utf-8"))] == [
        model_specs.model_name(spec) for spec in REGISTRY.values()
    ]


def test_the_built_in_tools_generate_no_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given schema generation that would fail
    def generate(spec: object) -> dict[str, object]:
        raise AssertionError(f"generated a schema for {spec}")

    monkeypatch.setattr(model_specs, "generated_tool_spec", generate)

    # When the harness's tools are described, Then they come from the committed file
    assert [tool["name"] for tool in harness_tools()] == list(REGISTRY)


def test_each_call_gets_its_own_copy() -> None:
    first = tool_specs_from_registry()
    first[0]["toolSpec"]["inputSchema"]["json"]["properties"].clear()

    assert tool_specs_from_registry()[0]["toolSpec"]["inputSchema"]["json"]["properties"]


class _NoteArgs(BaseModel):
    subject: str = Field(max_length=80, description="What the note is about")


def test_a_tool_the_file_does_not_name_has_its_schema_generated() -> None:
    # Given the email tool's name with another model, and a tool of a name the file does not hold
    renamed_model = msgspec.structs.replace(EMAIL, args_model=_NoteArgs, takes_links=())
    new_name = msgspec.structs.replace(EMAIL, name="create_note")

    specs = model_specs.tool_specs([renamed_model, new_name])

    subject = {"description": "What the note is about", "maxLength": 80, "title": "Subject", "type": "string"}
    assert specs[0]["toolSpec"]["inputSchema"]["json"]["properties"] == {"subject": subject}
    assert specs[1]["toolSpec"]["name"] == "create_note"
    email_schema = model_specs.generated_tool_spec(EMAIL)["toolSpec"]["inputSchema"]
    assert specs[1]["toolSpec"]["inputSchema"] == email_schema


def test_a_fresh_orchestrator_describes_its_tools_without_pydantic_generating_a_schema() -> None:
    # What a cold start does: the handler imported, the harness's tools described.
    code = (
        "import pydantic.json_schema as js\n"
        "def refuse(*args, **kwargs):\n"
        "    raise AssertionError('pydantic generated a JSON schema')\n"
        "js.GenerateJsonSchema.generate = refuse\n"
        "import functions.orchestrator.handler\n"
        "from multitool.runtimes.agentcore import harness_tools\n"
        "print(len(harness_tools()))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "shared" / "python"), str(ROOT)])}

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == str(len(REGISTRY))


def test_the_committed_index_names_each_built_in_tool_as_its_spec_does() -> None:
    index = model_specs.committed_index()

    assert [(entry.action_group, entry.name, entry.action) for entry in index.values()] == [
        (spec.action_group, spec.name, spec.action) for spec in REGISTRY.values()
    ]
    # Each tool is a package of its own under tools/, its module named after its action group.
    assert all(
        re.fullmatch(rf"multitool\.tools\.\w+\.{entry.action_group}", entry.module)
        for entry in index.values()
    )


def test_a_tool_not_loaded_yet_is_described_by_its_committed_spec() -> None:
    entry = model_specs.committed_index()["jira_draft"]

    (spec,) = model_specs.tool_specs([entry])

    assert spec == model_specs.generated_tool_spec(REGISTRY["create_jira_ticket_draft"])
