"""Confirms against the caller's own Microsoft 365: the slot re-check, exactly-once booking and the
provider's errors, with the drafts in moto DynamoDB and Graph an in-memory one that checks every
request against Graph's own description."""

from __future__ import annotations

import pytest
from multitool.drafts import DraftStatus
from multitool.local.standins.graph_state import Fault, GraphPool, GraphState, WorkingHours
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.microsoft365.graph import build_suite
from multitool.ports.microsoft365.tokens import FixedTokenSource
from multitool.ports.provider_suites import NoTokenSource
from multitool.ports.tokens import TokenSource
from multitool.review import Caller, SideEffectFailed, SlotTaken
from multitool.review.errors import ReconnectAccount
from multitool.review.reviewer import Reviewer

from tests.support.http_events import FakeLambdaContext, json_body
from tests.support.provider_review import (
    confirm_over_http,
    confirmed_twice,
    meeting_with_priya,
    provider_reviewer,
)
from tests.support.review_support import (
    KINSHUOK,
    OWNER,
    PRIYA,
    SLOTS,
    RecordingMailer,
    email_draft,
    resolved,
)

ALEX = "alex.mueller@example.com"
CALLER = Caller(user_id=OWNER, email=ALEX, name="Alex Müller")
FIRST = {"start": SLOTS[0][0].isoformat(), "end": SLOTS[0][1].isoformat()}
SECOND = {"start": SLOTS[1][0].isoformat(), "end": SLOTS[1][1].isoformat()}


@pytest.fixture
def graph() -> GraphState:
    state = GraphState()
    state.add_user("Alex Müller", ALEX, working=WorkingHours(zone="W. Europe Standard Time"))
    state.add_user(PRIYA.display_name, PRIYA.email, working=WorkingHours(zone="W. Europe Standard Time"))
    state.add_user(KINSHUOK.display_name, KINSHUOK.email, working=WorkingHours(zone="India Standard Time"))
    return state


def reviewer(
    drafts: DynamoDraftStore, graph: GraphState, tokens: TokenSource | None = None
) -> tuple[Reviewer, RecordingMailer]:
    return provider_reviewer(
        drafts,
        build_suite,
        tokens or FixedTokenSource("local-token"),
        http=GraphPool(graph),  # type: ignore[arg-type]
        base_url="http://graph.local/v1.0",
    )


def test_a_confirmed_meeting_is_one_event_microsoft_sends_and_a_retry_books_nothing_more(
    drafts: DynamoDraftStore, graph: GraphState
) -> None:
    draft = meeting_with_priya(drafts)
    review, builtin = reviewer(drafts, graph)

    result = confirmed_twice(review, CALLER, draft, {"slot": FIRST})

    assert "messageId" not in result
    [event] = graph.events
    assert event["organizer"]["emailAddress"]["address"] == ALEX
    assert [a["emailAddress"] for a in event["attendees"]] == [
        {"address": PRIYA.email, "name": "Priya Raman"}
    ]
    assert builtin.sent == []  # no iCalendar mail of our own
    assert graph.sent == []
    assert graph.violations == []


def test_a_slot_taken_in_outlook_since_the_card_is_slot_taken_and_another_slot_books(
    drafts: DynamoDraftStore, graph: GraphState
) -> None:
    graph.add_event(KINSHUOK.email, "Priya's 1:1", SLOTS[0][0], SLOTS[0][1], [PRIYA.email])
    draft = meeting_with_priya(drafts)
    review, _ = reviewer(drafts, graph)

    with pytest.raises(SlotTaken) as taken:
        review.confirm(CALLER, draft.id, {"slot": FIRST, "title": "Call about B"})

    assert "Priya Raman" in taken.value.message
    assert "Still free: Thu 03 Dec 10:00-10:30" in taken.value.message
    assert taken.value.draft is not None
    assert taken.value.draft.status is DraftStatus.PROPOSED
    assert len(graph.events) == 1
    done = review.confirm(CALLER, draft.id, {"slot": SECOND})
    assert done.status is DraftStatus.DONE
    assert len(graph.events) == 2


def test_no_connected_account_leaves_the_draft_confirmable(
    drafts: DynamoDraftStore, graph: GraphState
) -> None:
    draft = meeting_with_priya(drafts)
    review, _ = reviewer(drafts, graph, tokens=NoTokenSource())

    with pytest.raises(ReconnectAccount) as missing:
        review.confirm(CALLER, draft.id, {"slot": FIRST})

    assert missing.value.status == 403
    assert missing.value.code == "account_not_connected"
    assert "Connect your Microsoft 365 account" in missing.value.message
    assert drafts.get(draft.id).status is DraftStatus.PROPOSED  # type: ignore[union-attr]
    assert graph.events == []
    connected, _ = reviewer(drafts, graph)
    assert connected.confirm(CALLER, draft.id, {"slot": FIRST}).status is DraftStatus.DONE


def test_an_expired_token_is_403_account_not_connected_over_http(
    drafts: DynamoDraftStore, graph: GraphState
) -> None:
    draft = meeting_with_priya(drafts)
    graph.fail_next("GET", "/users/{user-id}/events", Fault(401, "InvalidAuthenticationToken", "Expired"))
    review, _ = reviewer(drafts, graph)

    response = confirm_over_http(review, draft, {"slot": FIRST}, ALEX)

    assert response["statusCode"] == 403
    body = json_body(response)
    assert body["error"]["code"] == "account_not_connected"
    assert "reconnect" in body["error"]["message"]
    assert body["action"]["status"] == "proposed"


def test_graph_unavailable_fails_the_draft_with_503_and_a_later_confirm_books(
    drafts: DynamoDraftStore, graph: GraphState
) -> None:
    draft = meeting_with_priya(drafts)
    graph.fail_next("POST", "/users/{user-id}/events", Fault(500, "generalException", "Boom"))
    review, _ = reviewer(drafts, graph)

    with pytest.raises(SideEffectFailed) as failed:
        review.confirm(CALLER, draft.id, {"slot": FIRST})

    assert failed.value.code == "provider_unavailable"
    assert failed.value.status == 503
    assert failed.value.draft.status is DraftStatus.FAILED
    assert graph.events == []
    assert review.confirm(CALLER, draft.id, {"slot": FIRST}).status is DraftStatus.DONE
    assert len(graph.events) == 1


def test_a_confirmed_email_leaves_from_the_users_own_mailbox(
    drafts: DynamoDraftStore, graph: GraphState
) -> None:
    [draft] = drafts.create_many([email_draft()])
    review, builtin = reviewer(drafts, graph)

    done = review.confirm(CALLER, draft.id, {})

    assert done.status is DraftStatus.DONE
    assert builtin.sent == []
    [mail] = graph.sent
    assert mail["from"] == ALEX
    assert mail["SaveToSentItems"] is True
    assert mail["Message"]["toRecipients"] == [{"emailAddress": {"address": KINSHUOK.email}}]
    assert graph.violations == []


class EndingInvocation(FakeLambdaContext):
    """An invocation with 3 s left: a throttled request's 5 s wait does not fit."""

    def get_remaining_time_in_millis(self) -> int:
        return 3_000


def test_the_review_api_waits_for_graph_only_within_the_invocations_remaining_time(
    drafts: DynamoDraftStore, graph: GraphState
) -> None:
    # Given Graph throttles the mail with Retry-After: 5, and the suite's own deadline would allow it
    [draft] = drafts.create_many([email_draft(to=[resolved("Priya", PRIYA)])])
    graph.fail_next(
        "POST", "/users/{user-id}/sendMail", Fault(429, "TooManyRequests", "Slow", {"Retry-After": "5"})
    )
    review, _ = reviewer(drafts, graph)

    # When the confirm runs in an invocation with 3 s left
    response = confirm_over_http(review, draft, {}, ALEX, EndingInvocation())

    # Then it does not wait past the invocation (with its own 25 s it would have, and sent): the
    # draft fails as throttled, nothing sent, confirmable again
    assert response["statusCode"] == 503
    body = json_body(response)
    assert body["error"]["code"] == "mail_unavailable"
    assert "throttling" in body["error"]["message"]
    assert graph.sent == []
    assert drafts.get(draft.id).status is DraftStatus.FAILED  # type: ignore[union-attr]
