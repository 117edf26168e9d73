"""Revising a card: a call with ``revises`` makes a new draft and supersedes the earlier one.

Every case runs against DynamoDB (moto, the transactional write) and the in-memory store
the local stand-ins use, through :func:`multitool.tools.run_calls` as every runtime does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from moto import mock_aws
from multitool.drafts import DraftStatus
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.ports import tables
from multitool.ports.drafts import DraftStore, DraftWriteConflict, DynamoDraftStore
from multitool.review import Caller, ReviewConfig, Superseded
from multitool.review.reviewer import Reviewer
from multitool.toolkit.context import ToolContext
from multitool.tools import ToolPorts, run_calls

from tests.support.bedrock_events import sample_people
from tests.support.review_support import RecordingMailer

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
MEETING = {"attendees": ["Kinshuok"], "title": "Sync", "when": "Thursday"}
EMAIL = {"to": ["Kinshuok"], "subject": "The doc", "body": "Here is the doc."}


@pytest.fixture(params=["dynamodb", "memory"])
def store(request: pytest.FixtureRequest) -> Iterator[DraftStore]:
    if request.param == "memory":
        yield MemoryDraftStore()
        return
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        names = tables.create_all(client)
        yield DynamoDraftStore(names["DRAFTS_TABLE_NAME"], client)


def ports(store: DraftStore) -> ToolPorts:
    return ToolPorts(MemoryDirectory(sample_people()), MemoryCalendar(), store)


def ctx(owner: str = "user-1", session: str = "s-1") -> ToolContext:
    return ToolContext(owner=owner, session_id=session, now=NOW, timezone="Europe/Berlin")


def call(store: DraftStore, name: str, args: dict[str, Any], **context: Any) -> Any:
    (outcome,) = run_calls([(name, args)], ctx(**context), ports(store))
    return outcome


def test_a_revision_is_a_new_card_and_the_earlier_one_is_superseded(store: DraftStore) -> None:
    first = call(store, "propose_meeting", MEETING).body
    revised = call(store, "propose_meeting", {**MEETING, "durationMinutes": 45, "revises": first["draftId"]})

    assert revised.status == 200
    assert revised.body["revises"] == first["draftId"]
    assert revised.body["durationMinutes"] == 45
    assert revised.body["draftId"] != first["draftId"]
    earlier = store.get(first["draftId"])
    assert earlier is not None
    assert earlier.status is DraftStatus.SUPERSEDED
    assert earlier.superseded_by == revised.body["draftId"]
    assert earlier.version == 1
    new = store.get(revised.body["draftId"])
    assert new is not None
    assert new.status is DraftStatus.PROPOSED
    assert "revises" not in first


def test_a_retried_revision_lands_on_the_revision_already_stored(store: DraftStore) -> None:
    first = call(store, "propose_meeting", MEETING).body
    args = {**MEETING, "attendees": ["Kinshuok", "Priya"], "revises": first["draftId"]}
    once = call(store, "propose_meeting", args)
    again = call(store, "propose_meeting", args)

    assert again.status == 200
    assert again.body["draftId"] == once.body["draftId"]


def test_a_superseded_card_cannot_be_revised_again_and_names_its_successor(store: DraftStore) -> None:
    first = call(store, "propose_meeting", MEETING).body
    second = call(store, "propose_meeting", {**MEETING, "when": "Friday", "revises": first["draftId"]}).body
    third = call(store, "propose_meeting", {**MEETING, "title": "Launch", "revises": first["draftId"]})

    assert third.status == 409
    assert third.body["error"]["code"] == "cannot_revise"
    assert third.body["error"]["field"] == "revises"
    assert second["draftId"] in third.body["error"]["message"]
    assert "revise that card instead" in third.body["error"]["message"]


def test_only_a_draft_of_the_same_tool_can_be_revised(store: DraftStore) -> None:
    email = call(store, "create_email_draft", EMAIL).body
    wrong = call(store, "propose_meeting", {**MEETING, "revises": email["draftId"]})

    assert wrong.status == 409
    message = wrong.body["error"]["message"]
    assert "is an email draft, not a meeting proposal" in message
    assert "revise it with create_email_draft" in message
    stored = store.get(email["draftId"])
    assert stored is not None
    assert stored.status is DraftStatus.PROPOSED


def test_another_users_card_is_not_found_and_stays_as_it_was(store: DraftStore) -> None:
    email = call(store, "create_email_draft", EMAIL).body
    theirs = call(store, "create_email_draft", {**EMAIL, "revises": email["draftId"]}, owner="someone-else")
    nothing = call(store, "create_email_draft", {**EMAIL, "revises": "d_missing"})

    for refused in (theirs, nothing):
        assert refused.status == 409
        assert "There is no card" in refused.body["error"]["message"]
    stored = store.get(email["draftId"])
    assert stored is not None
    assert stored.status is DraftStatus.PROPOSED
    assert stored.version == 0


def test_a_settled_card_cannot_be_revised(store: DraftStore) -> None:
    email = call(store, "create_email_draft", EMAIL).body
    draft = store.get(email["draftId"])
    assert draft is not None
    store.replace(draft, draft.model_copy(update={"status": DraftStatus.DISCARDED}))
    refused = call(store, "create_email_draft", {**EMAIL, "subject": "Launch", "revises": email["draftId"]})

    assert refused.status == 409
    assert f"Card '{email['draftId']}' is discarded" in refused.body["error"]["message"]


def test_the_supersede_write_refuses_a_card_that_changed_since_it_was_read(store: DraftStore) -> None:
    email = call(store, "create_email_draft", EMAIL).body
    read = store.get(email["draftId"])
    assert read is not None
    store.replace(read, read.model_copy(update={"status": DraftStatus.DISCARDED}))
    revised = call(store, "create_email_draft", {**EMAIL, "subject": "Launch"}).body
    revision = store.get(revised["draftId"])
    assert revision is not None
    later = revision.model_copy(
        update={"id": "d_later", "payload": {**revision.payload, "draftId": "d_later"}}
    )

    with pytest.raises(DraftWriteConflict) as refused:
        store.supersede(read, later)

    assert refused.value.stored is not None
    assert refused.value.stored.status is DraftStatus.DISCARDED
    assert store.get("d_later") is None


def test_a_revision_and_its_supersede_are_one_dynamodb_transaction() -> None:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        store = DynamoDraftStore(tables.create_all(client)["DRAFTS_TABLE_NAME"], client)
        first = call(store, "create_email_draft", EMAIL).body
        calls: Counter[str] = Counter()
        client.meta.events.register("before-call.dynamodb.*", lambda model, **_: calls.update([model.name]))
        call(store, "create_email_draft", {**EMAIL, "subject": "Launch", "revises": first["draftId"]})

    assert calls == Counter({"GetItem": 1, "TransactWriteItems": 1})


def test_a_superseded_card_is_never_confirmed_or_discarded(store: DraftStore) -> None:
    first = call(store, "create_email_draft", EMAIL).body
    revised = call(store, "create_email_draft", {**EMAIL, "subject": "Launch", "revises": first["draftId"]})
    reviewer = Reviewer(
        store,
        mailer=RecordingMailer(),
        calendar=MemoryCalendar(),
        jira=None,
        config=ReviewConfig(sender_email="noreply@example.com"),
        clock=lambda: NOW,
    )
    caller = Caller(user_id="user-1")

    for attempt in (
        lambda: reviewer.confirm(caller, first["draftId"], {}),
        lambda: reviewer.discard(caller, first["draftId"]),
    ):
        with pytest.raises(Superseded) as refused:
            attempt()
        assert refused.value.draft.superseded_by == revised.body["draftId"]
        assert revised.body["draftId"] in str(refused.value)
    stored = store.get(first["draftId"])
    assert stored is not None
    assert stored.status is DraftStatus.SUPERSEDED
    assert isinstance(reviewer.mailer, RecordingMailer)
    assert reviewer.mailer.sent == []


def test_a_card_of_another_session_of_the_same_user_is_not_revised(store: DraftStore) -> None:
    first = call(store, "create_email_draft", EMAIL).body

    elsewhere = call(
        store, "create_email_draft", {**EMAIL, "to": ["priya"], "revises": first["draftId"]}, session="s-2"
    )

    assert elsewhere.status == 409
    assert elsewhere.body["error"]["code"] == "cannot_revise"
    stored = store.get(first["draftId"])
    assert stored is not None
    assert stored.status is DraftStatus.PROPOSED
