"""A tool is defined in one place: a toy fourth tool, registered from this file alone, is found
everywhere the three built-in tools are (schemas, Converse and harness specs, the synthesized
agent's action groups, run_calls batching, the extractor's cards, the review's confirm)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import pytest
from multitool.cards.client_actions import card_from_payload, client_action_schema
from multitool.drafts import DraftStatus
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.review import Caller, ReviewConfig
from multitool.review.reviewer import Reviewer
from multitool.runtimes.agentcore import harness_tools
from multitool.runtimes.converse import default_tool_specs
from multitool.runtimes.offline import _summary
from multitool.runtimes.traces import extract_tool_results
from multitool.schemas import generate
from multitool.toolkit.cards import CardSpec
from multitool.toolkit.common import Prepared
from multitool.toolkit.confirm import ActionReview, Backends, ReviewContext
from multitool.toolkit.spec import ToolSpec
from multitool.tools import REGISTRY, ToolConfig, ToolContext, ToolPorts, run_calls
from multitool.tools.apps import action_group_app, handle
from multitool.wire import WireModel
from pydantic import Field

from tests.infra.synth import Synthesized, synthesize
from tests.support import bedrock_streams as b
from tests.support.bedrock_events import LambdaContextStub, bedrock_action_event, response_body, sample_people
from tests.support.review_support import RecordingJira, RecordingMailer

NOW = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
STEP = "2f1c9d3e-0001-4d7f-a1b3-7e6c1f0a5c11-0"
REMINDED: list[str] = []


# -- the whole toy tool: models, prepare, card, confirm, action group ------------------------


class ReminderArgs(WireModel):
    text: str = Field(min_length=1, max_length=200, description="What to be reminded of")


class ReminderPayload(WireModel):
    action: Literal["show_reminder"] = "show_reminder"
    draft_id: str
    text: str
    notes: tuple[str, ...] = ()


def prepare(args: ReminderArgs, ctx: ToolContext, config: ToolConfig) -> Prepared:
    return Prepared(names=[], finish=lambda _people, _busy, _found: {"text": args.text})


class ReminderEdits(WireModel):
    text: str | None = Field(default=None, min_length=1, max_length=200)


class ReminderContent(WireModel):
    text: str


def remind(confirmed: ReminderContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    REMINDED.append(confirmed.text)
    return {"reminded": confirmed.text}


SPEC = ToolSpec(
    name="create_reminder",
    action_group="reminder",
    api_path="/reminders",
    args_model=ReminderArgs,
    payload_model=ReminderPayload,
    description="Draft a reminder for the user to review. Nothing is set until the user confirms.",
    prepare=prepare,
    card=CardSpec.of_payload(ReminderPayload, caption=lambda card: f"Reminder: {card.text}"),
    review=ActionReview.overlay(ReminderEdits, ReminderContent, remind),
    group_description="Drafts a reminder for the user to review; never sets it.",
    nouns=("a reminder draft", "reminder drafts"),
)


@pytest.fixture(scope="module")
def toy() -> Iterator[ToolSpec]:
    REGISTRY.register(SPEC)  # the one line that adds a tool
    try:
        yield SPEC
    finally:
        REGISTRY.unregister(SPEC.name)


def ctx() -> ToolContext:
    return ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="Europe/Berlin")


# -- where the toy tool is found -----------------------------------------------------------


def test_the_openapi_document_is_generated_for_its_action_group(toy: ToolSpec) -> None:
    document = generate("reminder")

    operation = document["paths"]["/reminders"]["post"]
    assert operation["operationId"] == "create_reminder"
    assert document["openapi"] == "3.0.0"
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert "text" in json.dumps([body, document["components"]["schemas"]])


def test_the_converse_and_harness_specs_describe_it(toy: ToolSpec) -> None:
    converse = {spec["toolSpec"]["name"]: spec["toolSpec"] for spec in default_tool_specs()}
    harness = {tool["name"]: tool for tool in harness_tools()}

    assert set(converse) == set(harness) == set(REGISTRY)
    assert converse["create_reminder"]["inputSchema"]["json"]["required"] == ["text"]
    assert harness["create_reminder"]["config"]["inlineFunction"]["description"] == SPEC.description


def test_its_calls_batch_with_the_others_in_one_draft_write(toy: ToolSpec) -> None:
    drafts = MemoryDraftStore()
    ports = ToolPorts(MemoryDirectory(sample_people()), MemoryCalendar(), drafts)
    calls = [
        ("create_email_draft", {"to": ["Kinshuok"], "subject": "The doc", "body": "Here."}),
        ("create_reminder", {"text": "Water the plants"}),
        ("create_reminder", {"text": ""}),
    ]

    outcomes = run_calls(calls, ctx(), ports)

    assert [o.status for o in outcomes] == [200, 200, 400]
    assert outcomes[1].body["action"] == "show_reminder"
    assert outcomes[2].body["error"]["field"] == "text"
    assert drafts.writes == 1
    assert "a reminder draft" in _summary([{"content": [{"json": outcomes[1].body}]}])


def test_its_action_group_lambda_answers_an_event(toy: ToolSpec) -> None:
    app = action_group_app("reminder", lambda: _environment())
    event = bedrock_action_event(
        "reminder", "/reminders", properties={"text": "Call mum"}, session_attributes={"userId": "user-1"}
    )

    response = handle(app, event, LambdaContextStub())

    assert response["response"]["httpStatusCode"] == 200
    assert response_body(response)["text"] == "Call mum"


def test_the_extractor_makes_its_card_and_caption(toy: ToolSpec) -> None:
    payload = {"action": "show_reminder", "draftId": "d_rem1", "text": "Water the plants"}
    events = [
        b.invocation_input(STEP, "reminder", "/reminders", {"text": "Water the plants"}),
        b.observation(STEP, payload),
        b.observation(STEP, {**payload, "draftId": "d_rem1"}),  # echoed: deduped
        b.chunk("I drafted a reminder."),
    ]

    results = extract_tool_results(events)

    assert [type(card) for card in results.client_actions] == [SPEC.card.model]
    assert results.messages == ("Reminder: Water the plants",)
    schema = client_action_schema()
    assert schema["discriminator"]["mapping"]["show_reminder"] == "#/$defs/ReminderCard"


def test_the_review_confirms_it_with_the_edits(toy: ToolSpec) -> None:
    store = MemoryDraftStore()
    ports = ToolPorts(MemoryDirectory(sample_people()), MemoryCalendar(), store)
    (outcome,) = run_calls([("create_reminder", {"text": "Water the plants"})], ctx(), ports)
    reviewer = Reviewer(
        store,
        mailer=RecordingMailer(),
        calendar=MemoryCalendar(),
        jira=RecordingJira(),
        config=ReviewConfig(sender_email="assistant@example.com"),
        clock=lambda: NOW,
    )
    draft_id = outcome.body["draftId"]

    done = reviewer.confirm(Caller("user-1"), draft_id, {"text": "Water the roses"})

    assert done.status is DraftStatus.DONE
    assert done.result == {"reminded": "Water the roses"}
    assert REMINDED[-1] == "Water the roses"
    assert card_from_payload(done.payload).to_wire()["type"] == "show_reminder"


@pytest.fixture(scope="module")
def agent_stack(toy: ToolSpec, tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    # Not the session's shared synths: this stack holds a tool only this module registers.
    return synthesize(Path(tmp_path_factory.mktemp("toy-agent")), runtime="agent", executor="return_control")


def test_the_synthesized_agent_has_its_action_group(agent_stack: Synthesized) -> None:
    (agent,) = agent_stack.of_type("AWS::Bedrock::Agent").values()
    groups = {g["ActionGroupName"]: g for g in agent["Properties"]["ActionGroups"]}

    assert set(groups) == set(REGISTRY.groups) >= {"reminder", "email_draft"}
    reminder = groups["reminder"]
    assert reminder["Description"] == SPEC.group_description
    assert reminder["ActionGroupExecutor"] == {"CustomControl": "RETURN_CONTROL"}
    assert json.loads(reminder["ApiSchema"]["Payload"])["paths"]["/reminders"]["post"]["operationId"] == (
        "create_reminder"
    )


def _environment() -> Any:
    from multitool.tools.environment import ToolEnvironment

    return ToolEnvironment(
        ToolPorts(MemoryDirectory(sample_people()), MemoryCalendar(), MemoryDraftStore()), ToolConfig()
    )
