"""The Google Workspace adapters, every request held to Google's discovery documents.

Given scripted answers (each checked against the method's response schema or Google's error
format), when a port method runs, then the requests it sent are the ones Google describes
(method, path, parameters, body by schema) and its result or error is the port's.
"""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.policy import default
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from multitool.local.standins.google_discovery import DiscoveryMismatch
from multitool.people import Resolution
from multitool.ports.calendar import Booking, Guest, Interval, SlotTaken
from multitool.ports.google.http import GoogleApi
from multitool.ports.google.workspace import (
    DIRECTORY_SCOPES,
    EVENT_SCOPES,
    FREEBUSY_SCOPES,
    MAIL_SCOPES,
    SCOPES,
    GmailMailer,
    GoogleCalendar,
    GoogleDirectory,
    build_suite,
    event_id,
)
from multitool.ports.mail import Mail, MailRejected
from multitool.ports.tokens import (
    Account,
    AccountNotConnected,
    ProviderOutcomeUnknown,
    ProviderRefused,
    ProviderThrottled,
)

from tests.support.google_api import FixedTokens, ScriptedGoogle, discovery, person

ACCOUNT = Account(user_id="sub-alex", email="alex@example.com")
START = datetime(2026, 12, 3, 15, 0, tzinfo=UTC)
END = START + timedelta(minutes=30)


def api(google: ScriptedGoogle, *, deadline: float = 30.0, sleeps: list[float] | None = None) -> GoogleApi:
    waits = sleeps if sleeps is not None else []
    return GoogleApi(
        ACCOUNT,
        FixedTokens(),
        http=google.http,
        base_url="http://127.0.0.1:9",
        deadline=lambda: deadline,
        sleep=waits.append,
        jitter=lambda: 0.0,
    )


def freebusy(calendars: dict[str, list[tuple[datetime, datetime]]], **errors: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "calendar#freeBusy",
        "timeMin": "2026-12-01T00:00:00.000Z",
        "timeMax": "2026-12-08T00:00:00.000Z",
        "calendars": {
            email: {"busy": [{"start": _z(s), "end": _z(e)} for s, e in blocks]}
            for email, blocks in calendars.items()
        },
    }
    for email, reason in errors.items():
        body["calendars"][email.replace("_at_", "@")] = {
            "errors": [{"domain": "global", "reason": reason}],
            "busy": [],
        }
    return body


def _z(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def event(booking: Booking, *, status: str = "confirmed", start: datetime | None = None) -> dict[str, Any]:
    begin = start or booking.start
    return {
        "kind": "calendar#event",
        "etag": '"3456789012345678"',
        "id": event_id(booking.id),
        "status": status,
        "htmlLink": "https://www.google.com/calendar/event?eid=abc",
        "summary": booking.title,
        "organizer": {"email": ACCOUNT.email, "self": True},
        "start": {"dateTime": begin.isoformat(), "timeZone": booking.timezone},
        "end": {
            "dateTime": (begin + (booking.end - booking.start)).isoformat(),
            "timeZone": booking.timezone,
        },
        "attendees": [{"email": a, "responseStatus": "needsAction"} for a in booking.attendees],
        "iCalUID": f"{event_id(booking.id)}@google.com",
        "sequence": 0,
    }


BOOKING = Booking(
    id="draft-123:slot-1",
    title="Design sync",
    organizer="alex@example.com",
    attendees=("alex@example.com", "priya@example.com"),
    start=START,
    end=END,
    timezone="Europe/Berlin",
    guests=(
        Guest(email="priya@example.com", name="Priya Shah"),
        Guest(email="sam@partner.example", name="Sam"),
    ),
    description="Agenda:\n1. the doc",
)


# -- the description check itself ---------------------------------------------------------------


def test_the_discovery_check_refuses_what_google_does_not_describe() -> None:
    with pytest.raises(DiscoveryMismatch, match="unknown query parameter"):
        discovery().check_request(
            "POST", "http://x/calendar/v3/calendars/primary/events?notify=yes", b'{"id": "abcde"}'
        )
    with pytest.raises(DiscoveryMismatch, match="has no property 'attendee'"):
        discovery().check_request(
            "POST", "http://x/calendar/v3/calendars/primary/events", b'{"attendee": []}'
        )
    with pytest.raises(DiscoveryMismatch, match="not one of"):
        discovery().check_request(
            "POST", "http://x/calendar/v3/calendars/primary/events?sendUpdates=everyone", b"{}"
        )
    with pytest.raises(DiscoveryMismatch, match="organizer is read-only"):
        discovery().check_request(
            "POST",
            "http://x/calendar/v3/calendars/primary/events",
            b'{"attendees": [{"email": "a@example.com", "organizer": true}]}',
        )
    with pytest.raises(DiscoveryMismatch, match="raw is required"):
        discovery().check_request("POST", "http://x/gmail/v1/users/me/messages/send", b'{"threadId": "t"}')
    with pytest.raises(DiscoveryMismatch, match="No method"):
        discovery().check_request("GET", "http://x/calendar/v3/freeBusy", None)
    google = ScriptedGoogle()
    with pytest.raises(DiscoveryMismatch, match="has no property 'busyTimes'"):
        google.answer("calendar.freebusy.query", {"calendars": {"a@example.com": {"busyTimes": []}}})


# -- directory -----------------------------------------------------------------------------------


def test_resolve_searches_the_directory_once_per_distinct_name_and_keeps_exact_matches() -> None:
    google = ScriptedGoogle()
    google.answer(
        "people.people.searchDirectoryPeople",
        {"people": [person("people/1", "Kinshuok Das", "kinshuok@example.com")], "totalSize": 1},
    )
    google.answer("people.people.searchDirectoryPeople", {})
    google.answer(
        "people.people.searchDirectoryPeople",
        {
            "people": [
                person("people/2", "Priya Shah", "priya@example.com"),
                person("people/3", "Priya Natarajan", "pn@example.com"),
                person("people/4", "Priyanka Rao", "priyanka@example.com"),
            ]
        },
    )
    google.answer("people.people.searchDirectoryPeople", {})
    tokens = FixedTokens()
    directory = GoogleDirectory(GoogleApi(ACCOUNT, tokens, http=google.http, base_url="http://127.0.0.1:9"))

    found = directory.resolve(["Kinshuok", "priya", "PRIYA", "Nobody"])

    assert [s.param("query") for s in google.sent] == ["kinshuok", "nobody", "priya"]
    assert {s.param("sources") for s in google.sent} == {"DIRECTORY_SOURCE_TYPE_DOMAIN_PROFILE"}
    assert found["Kinshuok"].status is Resolution.RESOLVED
    assert found["Kinshuok"].person is not None
    assert found["Kinshuok"].person.email == "kinshuok@example.com"
    assert found["Kinshuok"].person.timezone == ""  # the People API gives none: unknown, not UTC
    assert found["priya"].status is Resolution.AMBIGUOUS
    assert [p.email for p in found["PRIYA"].candidates] == ["pn@example.com", "priya@example.com"]
    assert found["Nobody"].status is Resolution.UNKNOWN
    assert {scopes for _, _, scopes in tokens.asked} == {DIRECTORY_SCOPES}


# -- busy ----------------------------------------------------------------------------------------


def test_busy_is_one_freebusy_query_for_every_address_in_utc() -> None:
    google = ScriptedGoogle()
    google.answer(
        "calendar.freebusy.query",
        freebusy({"priya@example.com": [(START, END)], "alex@example.com": []}),
    )
    calendar = GoogleCalendar(api(google))

    busy = calendar.busy(
        ["Priya@example.com", "alex@example.com"], START - timedelta(hours=2), END + timedelta(hours=2)
    )

    (sent,) = google.sent
    assert sent.body["items"] == [{"id": "alex@example.com"}, {"id": "priya@example.com"}]
    assert sent.body["timeZone"] == "UTC"
    assert sent.body["timeMin"] == "2026-12-03T13:00:00Z"
    assert busy == {"Priya@example.com": [Interval(start=START, end=END)], "alex@example.com": []}


def test_busy_chunks_at_fifty_calendars_a_query() -> None:
    emails = [f"p{n:02d}@example.com" for n in range(51)]
    google = ScriptedGoogle()
    google.answer("calendar.freebusy.query", freebusy({e: [] for e in emails[:50]}))
    google.answer("calendar.freebusy.query", freebusy({emails[50]: [(START, END)]}))

    busy = GoogleCalendar(api(google)).busy(emails, START, END)

    assert [len(s.body["items"]) for s in google.sent] == [50, 1]
    assert [s.body["calendarExpansionMax"] for s in google.sent] == [50, 1]
    assert busy[emails[50]] == [Interval(start=START, end=END)]


def test_a_calendar_google_cannot_show_is_a_clear_refusal_not_a_free_slot() -> None:
    google = ScriptedGoogle()
    google.answer(
        "calendar.freebusy.query", freebusy({"alex@example.com": []}, ghost_at_example_com="notFound")
    )
    with pytest.raises(ProviderRefused, match=r"ghost@example\.com"):
        GoogleCalendar(api(google)).busy(["alex@example.com", "ghost@example.com"], START, END)


# -- booking -------------------------------------------------------------------------------------


def test_book_inserts_the_event_with_its_derived_id_so_google_sends_the_invitations() -> None:
    google = ScriptedGoogle()
    google.error("calendar.events.get", 404, "notFound", "Not Found")
    google.answer("calendar.freebusy.query", freebusy({"alex@example.com": [], "priya@example.com": []}))
    google.answer("calendar.events.insert", event(BOOKING))
    tokens = FixedTokens()
    calendar = GoogleCalendar(GoogleApi(ACCOUNT, tokens, http=google.http, base_url="http://127.0.0.1:9"))

    calendar.book(BOOKING)

    insert = google.sent[-1]
    assert insert.checked.path == {"calendarId": "primary"}
    assert insert.param("sendUpdates") == "all"
    assert insert.body["id"] == event_id(BOOKING.id)
    assert insert.body["start"] == {"dateTime": "2026-12-03T15:00:00Z", "timeZone": "Europe/Berlin"}
    assert [(a["email"], a.get("displayName")) for a in insert.body["attendees"]] == [
        ("priya@example.com", "Priya Shah"),
        ("sam@partner.example", "Sam"),
        ("alex@example.com", None),
    ]
    assert insert.body["description"] == "Agenda:\n1. the doc"
    assert GoogleCalendar.sends_invitations is True
    assert {scopes for _, _, scopes in tokens.asked} == {EVENT_SCOPES, FREEBUSY_SCOPES}
    assert google.done()


def test_a_retried_confirm_finds_its_event_and_books_nothing_more() -> None:
    google = ScriptedGoogle()
    google.answer(
        "calendar.events.get",
        event(BOOKING)
        | {
            "attendees": [
                {"email": "alex@example.com", "organizer": True, "self": True, "responseStatus": "accepted"},
                {"email": "priya@example.com", "responseStatus": "accepted"},
                {"email": "sam@partner.example", "responseStatus": "needsAction"},
            ]
        },
    )

    GoogleCalendar(api(google)).book(BOOKING)

    assert [s.method_id for s in google.sent] == ["calendar.events.get"]


def test_a_concurrent_insert_answered_409_is_read_back_and_settled() -> None:
    google = ScriptedGoogle()
    google.error("calendar.events.get", 404, "notFound")
    google.answer("calendar.freebusy.query", freebusy({"alex@example.com": [], "priya@example.com": []}))
    google.error("calendar.events.insert", 409, "duplicate", "The requested identifier already exists.")
    same = event(BOOKING)
    same["attendees"] = [
        {"email": e} for e in ("alex@example.com", "priya@example.com", "sam@partner.example")
    ]
    google.answer("calendar.events.get", same)

    GoogleCalendar(api(google)).book(BOOKING)

    assert [s.method_id for s in google.sent][-1] == "calendar.events.get"
    assert google.done()


def test_booking_the_same_id_at_another_time_moves_the_event_and_its_old_time_is_no_clash() -> None:
    earlier = START - timedelta(minutes=15)
    google = ScriptedGoogle()
    google.answer("calendar.events.get", event(BOOKING, start=earlier))
    # Google's free/busy still shows the event at its old time, overlapping the new one.
    google.answer(
        "calendar.freebusy.query",
        freebusy({"alex@example.com": [(earlier, earlier + timedelta(minutes=30))], "priya@example.com": []}),
    )
    google.answer("calendar.events.patch", event(BOOKING))

    GoogleCalendar(api(google)).book(BOOKING)

    patch = google.sent[-1]
    assert patch.method_id == "calendar.events.patch"
    assert patch.checked.path["eventId"] == event_id(BOOKING.id)
    assert patch.param("sendUpdates") == "all"
    assert patch.body["start"]["dateTime"] == "2026-12-03T15:00:00Z"
    assert "id" not in patch.body


def test_a_slot_taken_since_the_card_raises_slot_taken_and_creates_nothing() -> None:
    google = ScriptedGoogle()
    google.error("calendar.events.get", 404, "notFound")
    other = (START + timedelta(minutes=10), START + timedelta(minutes=40))
    google.answer("calendar.freebusy.query", freebusy({"alex@example.com": [], "priya@example.com": [other]}))

    with pytest.raises(SlotTaken) as taken:
        GoogleCalendar(api(google)).book(BOOKING)

    assert taken.value.busy == {"priya@example.com": [Interval(start=other[0], end=other[1])]}
    assert [s.method_id for s in google.sent] == ["calendar.events.get", "calendar.freebusy.query"]


def test_release_deletes_the_event_and_an_event_already_gone_is_no_error() -> None:
    google = ScriptedGoogle()
    google.answer("calendar.events.delete", None, status=204)
    google.error("calendar.events.delete", 410, "deleted", "Resource has been deleted")
    calendar = GoogleCalendar(api(google))

    calendar.release(BOOKING.id)
    calendar.release(BOOKING.id)

    assert [s.checked.path["eventId"] for s in google.sent] == [event_id(BOOKING.id)] * 2
    assert {s.param("sendUpdates") for s in google.sent} == {"all"}


@given(st.text(min_size=1, max_size=2000))
def test_every_booking_id_gives_an_event_id_google_accepts(booking_id: str) -> None:
    eid = event_id(booking_id)
    assert re.fullmatch(r"[a-v0-9]{5,1024}", eid)
    assert eid == event_id(booking_id)


# -- mail ----------------------------------------------------------------------------------------


def test_send_posts_a_base64url_rfc5322_message_with_encoded_headers_and_the_text_policy() -> None:
    google = ScriptedGoogle()
    google.answer(
        "gmail.users.messages.send",
        {"id": "18c2f0a1b2c3d4e5", "threadId": "18c2f0a1b2c3d4e5", "labelIds": ["SENT"]},
    )
    tokens = FixedTokens()
    mailer = GmailMailer(GoogleApi(ACCOUNT, tokens, http=google.http, base_url="http://127.0.0.1:9"))

    sent = mailer.send(
        Mail(
            to=("zoe@example.com", "priya@example.com"),
            cc=("sam@partner.example",),
            subject="Über\r\nBcc: evil@example.com",
            text="Hi \u202eall\r\nsee you\x07",
            from_name="Alex Müller",
        )
    )

    assert sent.message_id == "18c2f0a1b2c3d4e5"
    (request,) = google.sent
    assert request.checked.path == {"userId": "me"}
    raw = base64.urlsafe_b64decode(request.body["raw"])
    assert b"=?utf-8?" in raw  # non-ASCII headers travel encoded
    message = message_from_bytes(raw, policy=default)
    assert message["Subject"] == "Über Bcc: evil@example.com"
    assert message["Bcc"] is None
    assert message["From"] == "Alex Müller <alex@example.com>"
    assert message["To"] == "zoe@example.com, priya@example.com"
    assert message["Cc"] == "sam@partner.example"
    assert message.get_content().replace("\r\n", "\n") == "Hi all\nsee you\n"  # CRLF on the wire
    assert {scopes for _, _, scopes in tokens.asked} == {MAIL_SCOPES}


def test_a_message_gmail_refuses_is_mail_rejected_and_a_bad_address_sends_nothing() -> None:
    google = ScriptedGoogle()
    google.error("gmail.users.messages.send", 400, "invalidArgument", "Invalid To header")
    mailer = GmailMailer(api(google))
    with pytest.raises(MailRejected, match="Invalid To header"):
        mailer.send(Mail(to=("priya@example.com",), subject="Hi", text="Hi"))
    with pytest.raises(MailRejected, match="Not an email address"):
        mailer.send(Mail(to=("priya@example.com, bcc@evil.example",), subject="Hi", text="Hi"))
    assert len(google.sent) == 1


# -- errors --------------------------------------------------------------------------------------


def test_throttling_is_retried_with_backoff_then_succeeds() -> None:
    google = ScriptedGoogle()
    google.error("calendar.freebusy.query", 429, "rateLimitExceeded", "Rate Limit Exceeded")
    google.error("calendar.freebusy.query", 403, "userRateLimitExceeded", "User Rate Limit Exceeded")
    google.answer("calendar.freebusy.query", freebusy({"alex@example.com": []}))
    sleeps: list[float] = []

    GoogleCalendar(api(google, sleeps=sleeps)).busy(["alex@example.com"], START, END)

    assert sleeps == [0.5, 1.0]


def test_throttling_past_the_retries_or_the_deadline_is_provider_throttled_with_retry_after() -> None:
    google = ScriptedGoogle()
    for _ in range(4):
        google.error("calendar.freebusy.query", 403, "rateLimitExceeded", "Rate Limit Exceeded")
    sleeps: list[float] = []
    with pytest.raises(ProviderThrottled):
        GoogleCalendar(api(google, sleeps=sleeps)).busy(["alex@example.com"], START, END)
    assert sleeps == [0.5, 1.0, 2.0]

    google = ScriptedGoogle()
    google.error("calendar.freebusy.query", 429, "rateLimitExceeded", **{"Retry-After": "20"})
    with pytest.raises(ProviderThrottled) as throttled:
        GoogleCalendar(api(google, deadline=12.0)).busy(["alex@example.com"], START, END)
    assert throttled.value.headers() == {"Retry-After": "20"}
    assert throttled.value.status == 503
    assert google.done()


def test_an_expired_or_revoked_token_asks_the_user_to_reconnect() -> None:
    google = ScriptedGoogle()
    google.error("people.people.searchDirectoryPeople", 401, "authError", "Invalid Credentials")
    with pytest.raises(AccountNotConnected, match="reconnect") as refused:
        GoogleDirectory(api(google)).resolve(["Priya"])
    assert refused.value.code == "account_not_connected"
    assert refused.value.status == 403


def test_a_missing_calendar_is_refused_and_a_failing_google_is_unavailable() -> None:
    google = ScriptedGoogle()
    google.error("calendar.events.delete", 404, "notFound", "Not Found")
    # 404 from delete is "already gone"; a missing calendar on insert is a refusal:
    GoogleCalendar(api(google)).release("x")
    google.error("calendar.events.get", 404, "notFound")
    google.answer("calendar.freebusy.query", freebusy({"alex@example.com": [], "priya@example.com": []}))
    google.error("calendar.events.insert", 404, "notFound", "Not Found")
    with pytest.raises(ProviderRefused, match="no such calendar"):
        GoogleCalendar(api(google)).book(BOOKING)

    google.error("calendar.freebusy.query", 500, "backendError", "Backend Error")
    google.error("calendar.freebusy.query", 503, "backendError", "Backend Error")
    google.answer("calendar.freebusy.query", freebusy({"alex@example.com": []}))
    GoogleCalendar(api(google)).busy(["alex@example.com"], START, END)  # a read is retried

    google.error("gmail.users.messages.send", 503, "backendError", "Backend Error")
    with pytest.raises(ProviderOutcomeUnknown, match="Check your Gmail Sent folder"):
        GmailMailer(api(google)).send(Mail(to=("priya@example.com",), subject="Hi", text="Hi"))
    assert google.done()  # a send that may have gone out is never sent again


def test_build_suite_wires_the_three_ports_on_one_api() -> None:
    google = ScriptedGoogle()
    suite = build_suite(
        ACCOUNT, FixedTokens(), http=google.http, base_url="http://127.0.0.1:9", deadline=lambda: 5.0
    )
    assert isinstance(suite.directory, GoogleDirectory)
    assert isinstance(suite.calendar, GoogleCalendar)
    assert isinstance(suite.mailer, GmailMailer)


# -- scopes --------------------------------------------------------------------------------------


def test_each_scope_is_one_google_lists_for_every_method_it_covers_and_deploy_md_names_them() -> None:
    covers = {
        DIRECTORY_SCOPES: ("people.people.searchDirectoryPeople",),
        FREEBUSY_SCOPES: ("calendar.freebusy.query",),
        EVENT_SCOPES: (
            "calendar.events.get",
            "calendar.events.insert",
            "calendar.events.patch",
            "calendar.events.delete",
        ),
        MAIL_SCOPES: ("gmail.users.messages.send",),
    }
    for (scope,), methods in covers.items():
        for method in methods:
            assert scope in discovery().operation(method).scopes, (scope, method)
    deploy = (Path(__file__).parents[3] / "docs" / "deploy.md").read_text(encoding="utf-8")
    table = set(re.findall(r"^\| `(https://www\.googleapis\.com/auth/[a-z.]+)` \|", deploy, re.MULTILINE))
    assert table == set(SCOPES)
