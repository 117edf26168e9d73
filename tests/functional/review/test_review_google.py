"""Confirms against the caller's own Google Workspace: the slot re-check, exactly-once booking and a
token Google no longer takes, with the drafts in moto DynamoDB and Google the local stand-in over
HTTP, which checks every request and answer against Google's discovery documents."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
import urllib3
from multitool.drafts import DraftStatus
from multitool.local.standins.google_server import FakeGoogle, sandbox_token, start_fake_google
from multitool.people import Person
from multitool.ports.calendar import Booking
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.google.tokens import FixedTokenSource
from multitool.ports.google.workspace import build_suite, event_id
from multitool.ports.tokens import Account, TokenSource
from multitool.review import Caller, SideEffectFailed, SlotTaken
from multitool.review.errors import ReconnectAccount
from multitool.review.reviewer import Reviewer

from tests.support.http_events import json_body
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
)

ALEX = Person(
    id="p-alex", display_name="Alex Müller", email="alex.mueller@example.com", timezone="Europe/Berlin"
)
CALLER = Caller(user_id=OWNER, email=ALEX.email, name=ALEX.display_name)
FIRST = {"start": SLOTS[0][0].isoformat(), "end": SLOTS[0][1].isoformat()}
SECOND = {"start": SLOTS[1][0].isoformat(), "end": SLOTS[1][1].isoformat()}
PEOPLE = (ALEX, PRIYA, KINSHUOK)
QUIET_WEEK = date(2026, 11, 16)  # the stand-in's seeded meetings: a week before the card's slots


@pytest.fixture
def google() -> Iterator[FakeGoogle]:
    with start_fake_google(people=PEOPLE, week_of=QUIET_WEEK) as server:
        assert server.discovery is not None, "the stand-in validates against the discovery documents"
        yield server


CONNECTED = FixedTokenSource({p.email: sandbox_token(p.email) for p in PEOPLE})


def reviewer(
    drafts: DynamoDraftStore,
    google: FakeGoogle,
    tokens: TokenSource = CONNECTED,
    http: urllib3.PoolManager | None = None,
) -> tuple[Reviewer, RecordingMailer]:
    return provider_reviewer(
        drafts,
        build_suite,
        tokens,
        http=http or urllib3.PoolManager(),
        base_url=google.url,
        deadline=lambda: 20.0,
    )


class LosesTheInsertsAnswer:
    """A pool whose first ``events.insert`` reaches Google and is done, but whose answer never
    comes back (a read timeout): what a retried confirm must not turn into a second event."""

    def __init__(self) -> None:
        self._pool = urllib3.PoolManager()
        self.lost = 0

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        response = self._pool.request(method, url, **kwargs)
        if (
            method == "POST"
            and url.split("?")[0].endswith("/calendar/v3/calendars/primary/events")
            and not self.lost
        ):
            self.lost += 1
            raise urllib3.exceptions.ReadTimeoutError(None, url, "Read timed out.")  # type: ignore[arg-type]
        return response


def booked(google: FakeGoogle) -> list[dict[str, Any]]:
    return [e for e in google.booked() if e["status"] == "confirmed"]


def test_a_confirmed_meeting_is_one_event_google_invites_to_and_a_retry_books_nothing_more(
    drafts: DynamoDraftStore, google: FakeGoogle
) -> None:
    draft = meeting_with_priya(drafts)
    review, builtin = reviewer(drafts, google)

    confirmed_twice(review, CALLER, draft, {"slot": FIRST})

    [event] = booked(google)
    assert event["id"] == event_id(draft.id)
    assert event["organizer"]["email"] == ALEX.email
    assert {a["email"] for a in event["attendees"]} == {PRIYA.email, ALEX.email}
    assert google.invitations == [{"to": PRIYA.email, "eventId": event["id"], "summary": "Sync"}]
    assert builtin.sent == []  # no iCalendar mail of our own
    assert google.sent == []


def test_a_confirm_whose_insert_answer_was_lost_is_retried_onto_the_same_event(
    drafts: DynamoDraftStore, google: FakeGoogle
) -> None:
    # Given a confirm whose event Google inserted, but whose answer the function never read
    draft = meeting_with_priya(drafts)
    lossy = LosesTheInsertsAnswer()
    review, _ = reviewer(drafts, google, http=lossy)  # type: ignore[arg-type]
    with pytest.raises(SideEffectFailed) as failed:
        review.confirm(CALLER, draft.id, {"slot": FIRST})
    assert failed.value.code == "provider_outcome_unknown"  # the insert is not sent again blindly
    assert "Check your Google Calendar" in failed.value.message
    assert failed.value.draft.status is DraftStatus.FAILED
    assert lossy.lost == 1
    assert len(booked(google)) == 1

    # When the user confirms again
    done = review.confirm(CALLER, draft.id, {"slot": FIRST})

    # Then the retry finds the event by its id: still one event, one invitation
    assert done.status is DraftStatus.DONE
    assert [e["id"] for e in booked(google)] == [event_id(draft.id)]
    assert len(google.invitations) == 1


def test_a_slot_taken_in_google_calendar_since_the_card_is_slot_taken_and_another_slot_books(
    drafts: DynamoDraftStore, google: FakeGoogle
) -> None:
    # Given Kinshuok has since booked Priya at the card's first slot, in his own calendar
    colleague = build_suite(
        Account(user_id="sub-kinshuok", email=KINSHUOK.email),
        CONNECTED,
        http=urllib3.PoolManager(),
        base_url=google.url,
    )
    colleague.calendar.book(
        Booking(
            id="kinshuok-1on1",
            title="Priya's 1:1",
            organizer=KINSHUOK.email,
            attendees=(KINSHUOK.email, PRIYA.email),
            start=SLOTS[0][0],
            end=SLOTS[0][1],
            timezone="Europe/Berlin",
        )
    )
    draft = meeting_with_priya(drafts)
    review, _ = reviewer(drafts, google)

    # When Alex confirms that slot, it is refused with the others still free named
    with pytest.raises(SlotTaken) as taken:
        review.confirm(CALLER, draft.id, {"slot": FIRST, "title": "Call about B"})

    assert taken.value.status == 409
    assert taken.value.code == "slot_taken"
    assert "Priya Raman" in taken.value.message
    assert "Still free: Thu 03 Dec 10:00-10:30" in taken.value.message
    assert taken.value.draft is not None
    assert taken.value.draft.status is DraftStatus.PROPOSED
    assert google.event(ALEX.email, event_id(draft.id)) is None
    # and the card's other slot still books
    done = review.confirm(CALLER, draft.id, {"slot": SECOND})
    assert done.status is DraftStatus.DONE
    event = google.event(ALEX.email, event_id(draft.id))
    assert event is not None
    assert event["start"]["dateTime"] == "2026-12-03T09:00:00Z"  # 10:00 in Berlin


def test_a_token_google_no_longer_takes_is_403_account_not_connected_and_the_draft_stays_confirmable(
    drafts: DynamoDraftStore, google: FakeGoogle
) -> None:
    # Given Google answers the confirm's first call 401 (the user's token expired or was revoked)
    draft = meeting_with_priya(drafts)
    google.fail_next("calendar.events.get", 401, "authError", "Invalid Credentials")
    review, _ = reviewer(drafts, google)

    # When the user confirms over the review API
    response = confirm_over_http(review, draft, {"slot": FIRST}, ALEX.email)

    # Then the answer asks to reconnect, nothing was booked, and the draft is as it was
    assert response["statusCode"] == 403
    body = json_body(response)
    assert body["error"]["code"] == "account_not_connected"
    assert "reconnect the account" in body["error"]["message"]
    assert body["action"]["status"] == "proposed"
    assert booked(google) == []
    # and once reconnected, the same draft books
    assert review.confirm(CALLER, draft.id, {"slot": FIRST}).status is DraftStatus.DONE
    assert len(booked(google)) == 1


def test_an_account_never_connected_is_asked_to_connect_and_nothing_reaches_google(
    drafts: DynamoDraftStore, google: FakeGoogle
) -> None:
    draft = meeting_with_priya(drafts)
    review, _ = reviewer(drafts, google, tokens=FixedTokenSource({}))

    with pytest.raises(ReconnectAccount) as missing:
        review.confirm(CALLER, draft.id, {"slot": FIRST})

    assert missing.value.status == 403
    assert "Connect your Google Workspace account" in missing.value.message
    assert drafts.get(draft.id).status is DraftStatus.PROPOSED  # type: ignore[union-attr]
    assert google.requests == []


def test_a_confirmed_email_leaves_from_the_users_own_gmail(
    drafts: DynamoDraftStore, google: FakeGoogle
) -> None:
    [draft] = drafts.create_many([email_draft()])
    review, builtin = reviewer(drafts, google)

    done = review.confirm(CALLER, draft.id, {})

    assert done.status is DraftStatus.DONE
    assert builtin.sent == []
    [mail] = google.sent
    assert mail["from"] == ALEX.email
    assert mail["to"] == KINSHUOK.email
    assert mail["subject"] == "The doc"
