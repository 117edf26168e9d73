"""The Microsoft 365 adapters against an in-memory Graph that checks every request against Graph's
own description (the committed subset of msgraph-metadata) and answers in its shapes."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from multitool.local.standins.graph_contract import ContractViolation, graph_contract
from multitool.local.standins.graph_state import Fault, GraphPool, GraphState, WorkingHours
from multitool.people import Resolution
from multitool.ports.calendar import Booking, Guest, Interval, SlotTaken
from multitool.ports.mail import Mail, MailRejected, MailUnavailable
from multitool.ports.microsoft365.graph import (
    BOOKING_PROPERTY,
    GraphCalendar,
    GraphDirectory,
    GraphMailer,
    build_suite,
    zone_of,
)
from multitool.ports.microsoft365.graph_http import GraphHttp
from multitool.ports.microsoft365.tokens import FixedTokenSource
from multitool.ports.tokens import (
    Account,
    AccountNotConnected,
    ProviderOutcomeUnknown,
    ProviderRefused,
    ProviderThrottled,
    ProviderUnavailable,
)

ORGANIZER = "jordan.lee@example.com"
ALWAYS = WorkingHours(
    days=("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    start="00:00:00.0000000",
    end="00:00:00.0000000",
)
MONDAY = datetime(2030, 6, 3, 10, 0, tzinfo=UTC)


@pytest.fixture
def state() -> GraphState:
    graph = GraphState()
    graph.add_user("Jordan Lee", ORGANIZER, working=ALWAYS)
    graph.add_user("Priya Patel", "priya.patel@example.com", working=ALWAYS)
    graph.add_user("Priya Nair", "priya.nair@example.com", working=ALWAYS)
    graph.add_user("Alex Chen", "alex.chen@example.com", working=ALWAYS)
    graph.add_user("Room Printer", None)
    return graph


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def graph_http(state: GraphState, *, deadline: float = 60.0, sleeps: Sleeps | None = None) -> GraphHttp:
    return GraphHttp(
        Account("user-1", ORGANIZER),
        FixedTokenSource("local-token"),
        http=GraphPool(state),  # type: ignore[arg-type]
        base_url="http://graph.local/v1.0",
        deadline=lambda: deadline,
        sleep=sleeps if sleeps is not None else Sleeps(),
        jitter=lambda: 0.0,
    )


def booking(**changes: Any) -> Booking:
    values: dict[str, Any] = {
        "id": "draft-1",
        "title": "Roadmap review",
        "organizer": ORGANIZER,
        "attendees": (ORGANIZER, "priya.patel@example.com"),
        "start": MONDAY,
        "end": MONDAY + timedelta(minutes=30),
        "guests": (
            Guest(email="priya.patel@example.com", name="Priya Patel"),
            Guest(email="ext@partner.example"),
        ),
        "description": "Agenda:\r\nthe plan",
    }
    values.update(changes)
    return Booking(**values)


def test_the_suite_has_the_three_graph_adapters_and_its_calendar_sends_invitations(state: GraphState) -> None:
    suite = build_suite(Account("u", ORGANIZER), FixedTokenSource("t"), http=GraphPool(state))  # type: ignore[arg-type]
    assert isinstance(suite.directory, GraphDirectory)
    assert isinstance(suite.calendar, GraphCalendar)
    assert suite.calendar.sends_invitations is True
    assert isinstance(suite.mailer, GraphMailer)


def test_names_resolve_as_the_builtin_directory_does_one_request_per_name(state: GraphState) -> None:
    directory = GraphDirectory(graph_http(state))

    found = directory.resolve(["Alex Chen", "priya", "Pri", "Nobody", "  ", "Room Printer"])

    assert found["Alex Chen"].status is Resolution.RESOLVED
    assert found["Alex Chen"].person is not None
    assert found["Alex Chen"].person.email == "alex.chen@example.com"
    assert found["priya"].status is Resolution.AMBIGUOUS
    assert [p.display_name for p in found["priya"].candidates] == ["Priya Nair", "Priya Patel"]
    assert found["Pri"].status is Resolution.UNKNOWN  # a prefix is not a name
    assert found["Nobody"].status is Resolution.UNKNOWN
    assert found["  "].status is Resolution.UNKNOWN
    assert found["Room Printer"].status is Resolution.UNKNOWN  # no mailbox: no one to invite
    assert [t for _, t, _ in state.requests] == ["/users"] * 5
    assert state.violations == []


def test_a_name_with_a_quote_is_an_odata_literal_not_an_injection(state: GraphState) -> None:
    state.add_user("Sean O'Brien", "sean@example.com")

    found = GraphDirectory(graph_http(state)).resolve(["O'Brien"])

    assert found["O'Brien"].status is Resolution.RESOLVED
    assert state.violations == []


def test_busy_is_one_getschedule_in_utc_with_everything_but_free_busy(state: GraphState) -> None:
    state.add_event("priya.patel@example.com", "1:1", MONDAY, MONDAY + timedelta(hours=1))
    tentative = state.add_event("alex.chen@example.com", "Maybe", MONDAY, MONDAY + timedelta(hours=1))
    tentative["showAs"] = "tentative"
    free = state.add_event(
        "alex.chen@example.com", "Focus", MONDAY + timedelta(hours=2), MONDAY + timedelta(hours=3)
    )
    free["showAs"] = "free"

    busy = GraphCalendar(graph_http(state)).busy(
        ["Priya.Patel@example.com", "alex.chen@example.com", ORGANIZER],
        MONDAY - timedelta(hours=1),
        MONDAY + timedelta(hours=5),
    )

    hour = Interval(start=MONDAY, end=MONDAY + timedelta(hours=1))
    assert busy == {"Priya.Patel@example.com": [hour], "alex.chen@example.com": [hour], ORGANIZER: []}
    assert [t for _, t, _ in state.requests] == ["/users/{user-id}/calendar/getSchedule"]
    sent = state.requests[0][2]
    assert sent is not None
    assert sent["StartTime"] == {"dateTime": "2030-06-03T09:00:00", "timeZone": "UTC"}
    assert state.violations == []


def test_busy_chunks_past_the_schedule_and_window_limits(state: GraphState) -> None:
    people = [f"person{i}@example.com" for i in range(25)]
    for address in people:
        state.add_user(address.split("@")[0].title(), address, working=ALWAYS)

    busy = GraphCalendar(graph_http(state)).busy(people, MONDAY, MONDAY + timedelta(days=40))

    assert set(busy) == set(people)
    schedules = [len(body["Schedules"]) for _, _, body in state.requests if body]
    assert schedules == [20, 20, 5, 5]  # 20 addresses per request, 31 days per window
    assert state.violations == []


def test_outside_working_hours_is_busy_in_the_attendees_own_zone(state: GraphState) -> None:
    state.add_user("Kinshuok Sharma", "k@example.com", working=WorkingHours(zone="India Standard Time"))

    busy = GraphCalendar(graph_http(state)).busy(
        ["k@example.com"], MONDAY.replace(hour=0), MONDAY.replace(hour=0) + timedelta(days=1)
    )

    # 09:00-17:00 in Kolkata (UTC+05:30) is 03:30-11:30 UTC: the rest of the UTC day is busy.
    assert busy["k@example.com"] == [
        Interval(start=MONDAY.replace(hour=0), end=MONDAY.replace(hour=3, minute=30)),
        Interval(start=MONDAY.replace(hour=11, minute=30), end=MONDAY.replace(hour=0) + timedelta(days=1)),
    ]


@pytest.mark.parametrize(
    ("windows", "iana", "opens_utc"),
    [
        # not in the short table the adapter had: working hours were left unapplied for these
        # (MONDAY is in June: winter in Adelaide and Santiago, summer time in Cairo)
        ("Cen. Australia Standard Time", "Australia/Adelaide", (23, 30)),  # UTC+09:30
        ("Pacific SA Standard Time", "America/Santiago", (13, 0)),  # UTC-4
        ("Egypt Standard Time", "Africa/Cairo", (6, 0)),  # UTC+3
        ("Mexico Standard Time", "America/Mexico_City", (15, 0)),  # retired by Windows: UTC-6
    ],
)
def test_working_hours_in_any_windows_zone_cldr_maps_are_applied(
    state: GraphState, windows: str, iana: str, opens_utc: tuple[int, int]
) -> None:
    state.add_user("Someone", "s@example.com", working=WorkingHours(zone=windows))

    busy = GraphCalendar(graph_http(state)).busy(
        ["s@example.com"], MONDAY.replace(hour=0), MONDAY.replace(hour=0) + timedelta(days=2)
    )

    assert zone_of(windows) == ZoneInfo(iana)
    hour, minute = opens_utc
    # each working day opens at 09:00 in the zone: that instant (in UTC) ends a busy block
    assert any(
        block.end.astimezone(UTC).timetz().replace(tzinfo=None) == time(hour, minute)
        for block in busy["s@example.com"]
    )
    assert state.violations == []


def test_the_windows_zone_table_is_cldrs_and_reading_it_imports_no_icalendar() -> None:
    probe = (
        "import sys; from multitool.ports.microsoft365.graph import windows_zones, zone_of; "
        "table = windows_zones(); zone_of('Russia Time Zone 3'); "
        "print(len(table), table['W. Europe Standard Time'], 'icalendar' in sys.modules)"
    )
    answer = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)

    count, berlin, imported = answer.stdout.split()
    assert int(count) > 130  # CLDR's whole territory-001 list, not a hand-picked few
    assert (berlin, imported) == ("Europe/Berlin", "False")


def test_a_mailbox_graph_cannot_read_is_a_clear_refusal(state: GraphState) -> None:
    with pytest.raises(ProviderRefused, match=r"no free/busy for ghost@example\.com"):
        GraphCalendar(graph_http(state)).busy(["ghost@example.com"], MONDAY, MONDAY + timedelta(hours=1))


def test_booking_creates_one_event_with_the_guests_and_a_retry_creates_no_second(state: GraphState) -> None:
    calendar = GraphCalendar(graph_http(state))

    calendar.book(booking())
    calendar.book(booking())  # a retried confirm

    assert len(state.events) == 1
    event = state.events[0]
    assert event["subject"] == "Roadmap review"
    assert event["body"] == {"contentType": "text", "content": "Agenda:\nthe plan"}
    assert [a["emailAddress"] for a in event["attendees"]] == [
        {"address": "priya.patel@example.com", "name": "Priya Patel"},
        {"address": "ext@partner.example"},
    ]
    assert event["singleValueExtendedProperties"] == [{"id": BOOKING_PROPERTY, "value": "draft-1"}]
    assert len(event["transactionId"]) == 36
    methods = [(m, t) for m, t, _ in state.requests]
    assert methods.count(("POST", "/users/{user-id}/events")) == 1
    assert state.violations == []


def test_a_lost_answer_to_the_event_post_is_outcome_unknown_and_a_confirm_again_finds_the_event(
    state: GraphState,
) -> None:
    # The first POST makes the event (and Exchange sends the invitations) but its answer is lost
    # (a gateway timeout): it is not sent again, whatever its transactionId, and the user is told.
    state.fail_next("POST", "/users/{user-id}/events", Fault(504, "GatewayTimeout", "Lost", after=True))

    with pytest.raises(ProviderOutcomeUnknown, match="Check your Outlook calendar"):
        GraphCalendar(graph_http(state)).book(booking())

    posts = [body for m, t, body in state.requests if (m, t) == ("POST", "/users/{user-id}/events")]
    assert len(posts) == 1
    assert len(state.events) == 1
    # A confirm again finds the event by its booking id: nothing more is created.
    GraphCalendar(graph_http(state)).book(booking())
    posts = [body for m, t, body in state.requests if (m, t) == ("POST", "/users/{user-id}/events")]
    assert len(posts) == 1
    assert len(state.events) == 1


def test_booking_over_a_meeting_is_slot_taken_and_writes_nothing(state: GraphState) -> None:
    state.add_event(
        "alex.chen@example.com",
        "Standup",
        MONDAY + timedelta(minutes=15),
        MONDAY + timedelta(hours=1),
        ["priya.patel@example.com"],
    )

    with pytest.raises(SlotTaken) as taken:
        GraphCalendar(graph_http(state)).book(booking())

    assert taken.value.busy == {
        "priya.patel@example.com": [
            Interval(start=MONDAY + timedelta(minutes=15), end=MONDAY + timedelta(hours=1))
        ]
    }
    assert len(state.events) == 1


def test_booking_at_another_time_moves_the_event_and_release_deletes_it(state: GraphState) -> None:
    calendar = GraphCalendar(graph_http(state))
    calendar.book(booking())

    calendar.book(booking(start=MONDAY + timedelta(minutes=15), end=MONDAY + timedelta(minutes=45)))

    assert len(state.events) == 1
    assert state.events[0]["start"] == {"dateTime": "2030-06-03T10:15:00", "timeZone": "UTC"}
    assert ("PATCH", "/users/{user-id}/events/{event-id}") in [(m, t) for m, t, _ in state.requests]

    calendar.release("draft-1")
    calendar.release("draft-1")  # gone: a no-op

    assert state.events == []
    assert state.violations == []


def test_mail_leaves_from_the_users_mailbox_and_is_kept_in_sent_items(state: GraphState) -> None:
    sent = GraphMailer(graph_http(state)).send(
        Mail(
            to=("priya.patel@example.com",),
            cc=("alex.chen@example.com",),
            subject="Notes\r\nBcc: x@evil.example",
            text="Hi\r\nthere\x07",
            reply_to=(ORGANIZER,),
        )
    )

    assert sent.message_id.startswith("req-")
    (mail,) = state.sent
    assert mail["from"] == ORGANIZER
    assert mail["SaveToSentItems"] is True
    message = mail["Message"]
    assert message["subject"] == "Notes Bcc: x@evil.example"  # one header line
    assert message["body"] == {"contentType": "text", "content": "Hi\nthere"}
    assert message["toRecipients"] == [{"emailAddress": {"address": "priya.patel@example.com"}}]
    assert "replyTo" not in message  # replies reach the sender's own mailbox anyway
    assert state.violations == []


def test_throttling_is_retried_after_retry_after(state: GraphState) -> None:
    state.fail_next("GET", "/users", Fault(429, "TooManyRequests", "Slow down", {"Retry-After": "2"}))
    sleeps = Sleeps()

    found = GraphDirectory(graph_http(state, sleeps=sleeps)).resolve(["Alex Chen"])

    assert found["Alex Chen"].status is Resolution.RESOLVED
    assert sleeps == [2.0]


def test_throttling_past_the_deadline_is_provider_throttled_with_retry_after(state: GraphState) -> None:
    state.fail_next("GET", "/users", Fault(429, "TooManyRequests", "Slow down", {"Retry-After": "30"}))

    with pytest.raises(ProviderThrottled) as throttled:
        GraphDirectory(graph_http(state, deadline=20.0)).resolve(["Alex Chen"])

    assert throttled.value.status == 503
    assert throttled.value.headers() == {"Retry-After": "30"}


def test_a_backoff_without_retry_after_doubles_then_gives_up(state: GraphState) -> None:
    state.fail_next("GET", "/users", Fault(503, "serviceNotAvailable", "Busy"), times=4)
    sleeps = Sleeps()

    with pytest.raises(ProviderUnavailable):
        GraphDirectory(graph_http(state, sleeps=sleeps)).resolve(["Alex Chen"])

    assert sleeps == [0.5, 1.0, 2.0]


@pytest.mark.parametrize(
    ("fault", "error", "words"),
    [
        (
            Fault(401, "InvalidAuthenticationToken", "Lifetime validation failed"),
            AccountNotConnected,
            "reconnect",
        ),
        (
            Fault(404, "MailboxNotEnabledForRESTAPI", "REST API is not yet supported"),
            ProviderRefused,
            "no Exchange Online mailbox",
        ),
        (Fault(404, "ErrorItemNotFound", "Not found"), ProviderRefused, "no longer exists"),
        (Fault(404, "ResourceNotFound", "Not found"), ProviderRefused, "does not exist in this organization"),
        (Fault(403, "ErrorAccessDenied", "Access is denied"), ProviderRefused, "application access policy"),
        (Fault(500, "generalException", "Boom"), ProviderUnavailable, "try again"),
    ],
)
def test_graphs_errors_become_the_provider_errors(
    state: GraphState, fault: Fault, error: type[Exception], words: str
) -> None:
    state.fail_next("POST", "/users/{user-id}/calendar/getSchedule", fault, times=4)

    with pytest.raises(error, match=words):
        GraphCalendar(graph_http(state, sleeps=Sleeps())).busy(
            [ORGANIZER], MONDAY, MONDAY + timedelta(hours=1)
        )


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        (Fault(500, "generalException", "Boom"), MailUnavailable),
        (Fault(503, "serviceNotAvailable", "Busy"), ProviderOutcomeUnknown),
        (Fault(400, "ErrorInvalidRecipients", "Invalid recipient"), MailRejected),
        (Fault(401, "InvalidAuthenticationToken", "Expired"), AccountNotConnected),
    ],
)
def test_mail_failures_are_the_mail_errors_or_a_reconnect(
    state: GraphState, fault: Fault, error: type[Exception]
) -> None:
    state.fail_next("POST", "/users/{user-id}/sendMail", fault, times=4)

    with pytest.raises(error):
        GraphMailer(graph_http(state, sleeps=Sleeps())).send(
            Mail(to=("a@example.com",), subject="s", text="t")
        )

    assert state.sent == []


def test_the_contract_refuses_what_graph_does_not_describe() -> None:
    contract = graph_contract()
    auth = {"Authorization": "Bearer t", "Content-Type": "application/json"}
    url = "https://graph.microsoft.com/v1.0/users/a@example.com/events"

    contract.check_request("POST", url, auth, b'{"subject": "x", "attendees": []}')
    with pytest.raises(ContractViolation, match="subjekt"):
        contract.check_request("POST", url, auth, b'{"subjekt": "x"}')
    with pytest.raises(ContractViolation, match="attendees"):
        contract.check_request("POST", url, auth, b'{"attendees": [{"type": "compulsory"}]}')
    with pytest.raises(ContractViolation, match=r"\$select"):
        contract.check_request("GET", url + "?$select=id,colour", auth)
    with pytest.raises(ContractViolation, match=r"\$expand"):
        contract.check_request("GET", url + "?$expand=calendar", auth)
    with pytest.raises(ContractViolation, match="not a path"):
        contract.check_request("GET", "https://graph.microsoft.com/v1.0/me/people", auth)
    with pytest.raises(ContractViolation, match="bearer"):
        contract.check_request("GET", url, {})
    assert len(contract.source["commit"]) == 40
