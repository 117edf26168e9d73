"""The Google Workspace adapters against the local Google stand-in, over HTTP.

Given the stand-in seeded with the local seed's people and their week of meetings (every
request and answer checked against Google's discovery documents), when the suite resolves
people, reads free/busy, books, rebooks, releases and mails, then the stand-in holds exactly
the event and the mail a real Workspace would, and the slot re-check sees the seeded meetings.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import urllib3
from multitool.local.sandbox.embedded import load_seed
from multitool.local.standins.google_server import FakeGoogle, sandbox_token, start_fake_google
from multitool.people import Resolution
from multitool.ports.calendar import Booking, Guest, SlotTaken
from multitool.ports.google.tokens import FixedTokenSource
from multitool.ports.google.workspace import build_suite, event_id
from multitool.ports.mail import Mail
from multitool.ports.suites import Suite
from multitool.ports.tokens import Account, AccountNotConnected, ProviderThrottled

WEEK = date(2026, 12, 7)  # a Monday
SEED = load_seed()
JORDAN = next(p for p in SEED.people if p.id == "jordan")
PRIYA = next(p for p in SEED.people if p.id == "priya")


@pytest.fixture(scope="module")
def google() -> Iterator[FakeGoogle]:
    with start_fake_google(people=SEED.people, week_of=WEEK) as server:
        assert server.discovery is not None, "the stand-in validates against the discovery documents"
        yield server


@pytest.fixture(scope="module")
def http() -> urllib3.PoolManager:
    return urllib3.PoolManager()


def suite_for(google: FakeGoogle, http: urllib3.PoolManager, email: str, *, deadline: float = 20.0) -> Suite:
    tokens = FixedTokenSource({p.email: sandbox_token(p.email) for p in SEED.people})
    return build_suite(
        Account(user_id=email, email=email), tokens, http=http, base_url=google.url, deadline=lambda: deadline
    )


def stored(google: FakeGoogle, booking_id: str) -> dict[str, Any]:
    found = google.event(JORDAN.email, event_id(booking_id))
    assert found is not None
    return found


def test_the_directory_resolves_the_seeded_people(google: FakeGoogle, http: urllib3.PoolManager) -> None:
    found = suite_for(google, http, JORDAN.email).directory.resolve(["Priya", "alex", "Alex Müller", "Zed"])
    assert found["Priya"].person is not None
    assert found["Priya"].person.email == PRIYA.email
    assert found["alex"].status is Resolution.AMBIGUOUS
    assert found["Alex Müller"].person is not None
    assert found["Alex Müller"].person.email == "alex.mueller@example.com"
    assert found["Zed"].status is Resolution.UNKNOWN


def test_busy_shows_the_seeded_week_in_each_persons_own_zone(
    google: FakeGoogle, http: urllib3.PoolManager
) -> None:
    monday = datetime(2026, 12, 7, tzinfo=UTC)
    busy = suite_for(google, http, JORDAN.email).calendar.busy(
        [PRIYA.email, JORDAN.email], monday, monday + timedelta(days=5)
    )
    standup_london = datetime(2026, 12, 7, 9, 30, tzinfo=ZoneInfo("Europe/London"))
    standup_new_york = datetime(2026, 12, 7, 9, 30, tzinfo=ZoneInfo("America/New_York"))
    assert any(i.start <= standup_london < i.end for i in busy[PRIYA.email])
    assert any(i.start <= standup_new_york < i.end for i in busy[JORDAN.email])


def test_book_retry_move_and_release_against_the_stand_in(
    google: FakeGoogle, http: urllib3.PoolManager
) -> None:
    suite = suite_for(google, http, JORDAN.email)
    start = datetime(2026, 12, 10, 18, 0, tzinfo=UTC)  # Thursday 13:00 New York, 18:00 London
    busy = suite.calendar.busy([JORDAN.email, PRIYA.email], start, start + timedelta(hours=1))
    if any(busy.values()):
        start = datetime(2026, 12, 11, 20, 0, tzinfo=UTC)
    booking = Booking(
        id="draft-standin:slot-0",
        title="Doc review",
        organizer=JORDAN.email,
        attendees=(JORDAN.email, PRIYA.email),
        start=start,
        end=start + timedelta(minutes=30),
        timezone="America/New_York",
        guests=(
            Guest(email=PRIYA.email, name=PRIYA.display_name),
            Guest(email="sam@partner.example", name="Sam"),
        ),
    )
    invitations_before = len(google.invitations)

    suite.calendar.book(booking)
    suite.calendar.book(booking)  # a retried confirm

    events = [e for e in google.events_of(JORDAN.email) if e["id"] == event_id(booking.id)]
    assert len(events) == 1
    assert {a["email"] for a in events[0]["attendees"]} == {JORDAN.email, PRIYA.email, "sam@partner.example"}
    assert sorted(i["to"] for i in google.invitations[invitations_before:]) == [
        PRIYA.email,
        "sam@partner.example",
    ]

    # Priya's seeded stand-up is taken: booking over it is refused and nothing moves.
    standup = datetime(2026, 12, 8, 9, 30, tzinfo=ZoneInfo("Europe/London"))
    over = booking.model_copy(update={"start": standup, "end": standup + timedelta(minutes=30)})
    with pytest.raises(SlotTaken) as taken:
        suite.calendar.book(over)
    assert PRIYA.email in taken.value.busy
    assert stored(google, booking.id)["start"]["dateTime"] == events[0]["start"]["dateTime"]

    later = booking.model_copy(
        update={"start": start + timedelta(minutes=15), "end": start + timedelta(minutes=45)}
    )
    suite.calendar.book(later)  # overlaps its own old time: a move, not a clash
    moved = google.event(JORDAN.email, event_id(booking.id))
    assert moved is not None
    assert datetime.fromisoformat(moved["start"]["dateTime"]) == later.start

    suite.calendar.release(booking.id)
    suite.calendar.release(booking.id)
    assert stored(google, booking.id)["status"] == "cancelled"

    suite.calendar.book(booking)  # a released booking booked again: the deleted event comes back
    assert stored(google, booking.id)["status"] == "confirmed"
    suite.calendar.release(booking.id)


def test_mail_is_sent_from_the_users_own_mailbox(google: FakeGoogle, http: urllib3.PoolManager) -> None:
    sent = suite_for(google, http, JORDAN.email).mailer.send(
        Mail(to=(PRIYA.email,), subject="Notes from Thursday — ünïcode", text="Hi Priya,\nthe notes.\n")
    )
    (mail,) = [m for m in google.sent if m["id"] == sent.message_id]
    assert mail["from"] == JORDAN.email
    assert mail["subject"] == "Notes from Thursday — ünïcode"
    assert mail["text"].replace("\r\n", "\n") == "Hi Priya,\nthe notes.\n"


def test_throttling_and_a_revoked_token_from_the_stand_in(
    google: FakeGoogle, http: urllib3.PoolManager
) -> None:
    monday = datetime(2026, 12, 7, tzinfo=UTC)
    google.fail_next("calendar.freebusy.query", 429, "rateLimitExceeded", retry_after=0)
    busy = suite_for(google, http, JORDAN.email).calendar.busy(
        [PRIYA.email], monday, monday + timedelta(hours=12)
    )
    assert busy[PRIYA.email]

    google.fail_next("calendar.freebusy.query", 429, "rateLimitExceeded", retry_after=30)
    with pytest.raises(ProviderThrottled):
        suite_for(google, http, JORDAN.email, deadline=5.0).calendar.busy(
            [PRIYA.email], monday, monday + timedelta(hours=1)
        )

    stranger = build_suite(
        Account(user_id="x", email="x@example.com"),
        FixedTokenSource({"x@example.com": "ya29.revoked"}),
        http=http,
        base_url=google.url,
    )
    with pytest.raises(AccountNotConnected):
        stranger.directory.resolve(["Priya"])


def test_no_request_the_adapters_sent_was_refused_by_the_description_check(google: FakeGoogle) -> None:
    assert google.requests
    assert [r for r in google.requests if r[2] == 400] == []


def test_the_stand_in_refuses_a_request_google_would_refuse(
    google: FakeGoogle, http: urllib3.PoolManager
) -> None:
    answer = http.request(
        "POST",
        f"{google.url}/calendar/v3/calendars/primary/events?sendUpdates=everyone",
        body=b'{"summary": "x"}',
        headers={
            "Authorization": f"Bearer {sandbox_token(JORDAN.email)}",
            "Content-Type": "application/json",
        },
    )
    assert answer.status == 400
    assert "sendUpdates" in answer.json()["error"]["message"]


def test_the_stand_in_serves_without_the_discovery_documents(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("multitool.local.standins.google_server.load_discovery", lambda: None)
    with start_fake_google(people=SEED.people, week_of=WEEK) as bare:
        assert bare.discovery is None
        found = suite_for(bare, urllib3.PoolManager(), JORDAN.email).directory.resolve(["Priya"])
        assert found["Priya"].person is not None
        page = urllib3.PoolManager().request("GET", bare.url + "/")
        assert b"Sandbox Google Workspace" in page.data


def test_a_long_window_is_read_in_windows_the_stand_in_accepts(
    google: FakeGoogle, http: urllib3.PoolManager
) -> None:
    monday = datetime(2026, 12, 7, tzinfo=UTC)
    busy = suite_for(google, http, JORDAN.email).calendar.busy(
        [PRIYA.email], monday - timedelta(days=100), monday + timedelta(days=50)
    )
    assert busy[PRIYA.email]  # the seeded week, 100 days into a 150-day window
