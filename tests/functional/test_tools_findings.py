"""Findings of the runtime review, over moto DynamoDB: asking again after a discard."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import boto3
import pytest
from moto import mock_aws
from multitool.drafts import DraftStatus
from multitool.tables import create_all
from multitool.tools import MAX_RENEWALS, ToolContext, ToolPorts, run_calls
from multitool.tools.environment import dynamo_ports

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
EMAIL = ("create_email_draft", {"to": ["guest@partner.org"], "subject": "The doc", "body": "Here it is."})
JIRA = ("create_jira_ticket_draft", {"project": "WEB", "issueType": "Bug", "summary": "Login fails"})


@pytest.fixture
def ports() -> Iterator[ToolPorts]:
    with mock_aws():
        client = boto3.client("dynamodb")
        tables = create_all(client)
        yield dynamo_ports(
            client,
            drafts_table=tables["DRAFTS_TABLE_NAME"],
            directory_table=tables["DIRECTORY_TABLE_NAME"],
            bookings_table=tables["BOOKINGS_TABLE_NAME"],
        )


def test_a_discarded_draft_asked_for_again_comes_back_as_a_fresh_proposal(ports: ToolPorts) -> None:
    ctx = ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="UTC")
    email, jira = run_calls([EMAIL, JIRA], ctx, ports)
    discarded = ports.drafts.get(email.body["draftId"])
    assert discarded is not None
    ports.drafts.replace(discarded, discarded.model_copy(update={"status": DraftStatus.DISCARDED}))

    email_again, jira_again = run_calls([EMAIL, JIRA], ctx, ports)

    fresh = ports.drafts.get(email_again.body["draftId"])
    assert fresh is not None
    assert fresh.id != discarded.id
    assert fresh.status is DraftStatus.PROPOSED
    assert fresh.payload["draftId"] == fresh.id
    assert jira_again.body["draftId"] == jira.body["draftId"]  # still proposed: the same draft


def _settle(ports: ToolPorts, draft_id: str, status: DraftStatus) -> None:
    draft = ports.drafts.get(draft_id)
    assert draft is not None
    ports.drafts.replace(draft, draft.model_copy(update={"status": status}))


def test_a_confirmed_draft_asked_for_again_is_a_fresh_proposal_and_a_retry_lands_on_it(
    ports: ToolPorts,
) -> None:
    ctx = ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="UTC")
    (email,) = run_calls([EMAIL], ctx, ports)
    _settle(ports, email.body["draftId"], DraftStatus.DONE)

    (again,) = run_calls([EMAIL], ctx, ports)
    (retried,) = run_calls([EMAIL], ctx, ports)

    assert again.body["draftId"] != email.body["draftId"]
    assert retried.body["draftId"] == again.body["draftId"]
    fresh = ports.drafts.get(again.body["draftId"])
    assert fresh is not None
    assert fresh.status is DraftStatus.PROPOSED
    done = ports.drafts.get(email.body["draftId"])
    assert done is not None
    assert done.status is DraftStatus.DONE


def test_every_ask_after_a_confirm_or_discard_gets_a_proposal_however_many_came_before(
    ports: ToolPorts,
) -> None:
    ctx = ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="UTC")
    seen: list[str] = []
    for round_number in range(8):
        (outcome,) = run_calls([EMAIL], ctx, ports)
        assert outcome.status == 200, outcome.body
        draft = ports.drafts.get(outcome.body["draftId"])
        assert draft is not None
        assert draft.status is DraftStatus.PROPOSED
        assert outcome.body["draftId"] not in seen
        seen.append(outcome.body["draftId"])
        _settle(ports, draft.id, DraftStatus.DONE if round_number % 2 else DraftStatus.DISCARDED)


def test_a_draft_being_sent_is_returned_as_it_is(ports: ToolPorts) -> None:
    ctx = ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="UTC")
    (email,) = run_calls([EMAIL], ctx, ports)
    _settle(ports, email.body["draftId"], DraftStatus.EXECUTING)

    (again,) = run_calls([EMAIL], ctx, ports)

    assert again.body["draftId"] == email.body["draftId"]


def test_a_request_settled_more_often_than_the_renewals_allow_is_refused_not_shown_dead(
    ports: ToolPorts,
) -> None:
    ctx = ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="UTC")
    for _ in range(MAX_RENEWALS + 1):
        (outcome,) = run_calls([EMAIL], ctx, ports)
        _settle(ports, outcome.body["draftId"], DraftStatus.DISCARDED)

    (refused, jira) = run_calls([EMAIL, JIRA], ctx, ports)

    assert refused.status == 422
    assert refused.body["error"]["code"] == "asked_too_often"
    assert jira.status == 200
