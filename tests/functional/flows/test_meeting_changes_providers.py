"""Meetings that already exist, on the caller's own Microsoft 365 (an in-memory Graph that checks
every request against the committed description) and Google Workspace (the stand-in over HTTP,
every request and answer checked against the discovery documents).

Given the caller's meetings and invitations on the provider, when a card made by a tool call is
confirmed, then the provider gets exactly the one request that changes the event (Graph PATCH,
cancel, accept/tentativelyAccept/decline; Google events.patch/delete with sendUpdates=all), the
provider tells the guests, a retried confirm sends nothing more, and a meeting changed on the
provider since its card is ``item_changed`` with nothing written.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import urllib3
from multitool.local.standins.google_server import FakeGoogle, sandbox_token
from multitool.local.standins.graph_state import GraphState
from multitool.people import Person
from multitool.ports.calendar import Booking
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.google import http as google_http
from multitool.ports.google import workspace as google_workspace
from multitool.ports.google.tokens import FixedTokenSource as GoogleTokens
from multitool.ports.tokens import Account
from multitool.review import InvalidEdits, ItemChangedSince

from tests.support.meeting_providers import (
    ALEX,
    PRIYA,
    World,
    google_suites,
    graph_of_people,
    graph_suites,
    writes,
)
from tests.support.meeting_providers import google as google

TUESDAY_10 = datetime(2026, 12, 8, 10, 0, tzinfo=UTC)


# -- Microsoft 365 ---------------------------------------------------------------------------------


@pytest.fixture
def graph() -> GraphState:
    state = graph_of_people()
    state.add_event(ALEX.email, "Weekly sync", TUESDAY_10, TUESDAY_10 + timedelta(minutes=30), [PRIYA.email])
    state.add_event(
        PRIYA.email,
        "Offsite planning",
        TUESDAY_10 + timedelta(days=1),
        TUESDAY_10 + timedelta(days=1, hours=1),
        [ALEX.email],
    )
    return state


@pytest.fixture
def on_graph(drafts: DynamoDraftStore, graph: GraphState) -> World:
    return World(drafts, graph_suites(graph))


def test_graph_moves_the_event_with_one_patch_and_a_retry_sends_nothing_more(
    on_graph: World, graph: GraphState
) -> None:
    move = on_graph.card(
        "move_meeting",
        {
            "meeting": {"said": "my sync with Priya", "people": ["Priya"], "words": ["sync"]},
            "shiftMinutes": 30,
        },
    )

    done = on_graph.confirm(move["draftId"])
    again = on_graph.confirm(move["draftId"])

    assert again.result == done.result
    (patch,) = writes(graph)
    assert patch[:2] == ("PATCH", "/users/{user-id}/events/{event-id}")
    assert patch[2]["start"] == {"dateTime": "2026-12-08T10:30:00", "timeZone": "UTC"}
    sync = next(e for e in graph.events if e["subject"] == "Weekly sync")
    assert sync["start"]["dateTime"] == "2026-12-08T10:30:00"
    assert graph.violations == []


def test_graph_cancels_with_the_message_as_the_comment(on_graph: World, graph: GraphState) -> None:
    cancel = on_graph.card(
        "cancel_meeting",
        {
            "meeting": {"said": "tomorrow's sync", "fromDay": "2026-12-08", "words": ["sync"]},
            "message": "I'm sick",
        },
    )

    on_graph.confirm(cancel["draftId"])

    assert [(m, t) for m, t, _ in writes(graph)] == [("POST", "/users/{user-id}/events/{event-id}/cancel")]
    assert writes(graph)[0][2] == {"Comment": "I'm sick"}
    assert [e["subject"] for e in graph.events] == ["Offsite planning"]
    assert graph.violations == []


def test_graph_a_meeting_changed_since_the_card_is_not_written(on_graph: World, graph: GraphState) -> None:
    move = on_graph.card(
        "move_meeting", {"meeting": {"said": "the sync", "words": ["sync"]}, "shiftMinutes": 60}
    )
    sync = next(e for e in graph.events if e["subject"] == "Weekly sync")
    sync["changeKey"] = "changed-in-outlook"

    with pytest.raises(ItemChangedSince):
        on_graph.confirm(move["draftId"])
    assert writes(graph) == []


def test_graph_an_attendee_proposes_a_new_time_and_answers(on_graph: World, graph: GraphState) -> None:
    move = on_graph.card(
        "move_meeting", {"meeting": {"said": "the offsite", "words": ["offsite"]}, "shiftMinutes": 60}
    )
    on_graph.confirm(move["draftId"], {"message": "Can we start later?"})

    method, template, body = writes(graph)[0]
    assert (method, template) == ("POST", "/users/{user-id}/events/{event-id}/tentativelyAccept")
    assert body["ProposedNewTime"]["start"] == {"dateTime": "2026-12-09T11:00:00", "timeZone": "UTC"}
    assert body["Comment"] == "Can we start later?"
    assert body["SendResponse"] is True

    decline = on_graph.card(
        "answer_invitation",
        {
            "meeting": {"said": "Priya's offsite", "people": ["Priya"], "words": ["offsite"]},
            "response": "declined",
            "message": "I'm out",
        },
    )
    on_graph.confirm(decline["draftId"])
    assert writes(graph)[-1][1:] == (
        "/users/{user-id}/events/{event-id}/decline",
        {"SendResponse": True, "Comment": "I'm out"},
    )
    assert graph.violations == []


def test_the_graph_stand_in_honours_if_match_where_graph_declares_it(graph: GraphState) -> None:
    """Graph's published description declares If-Match on an event's DELETE only (not on its PATCH
    nor on cancel/accept/decline, which the adapters use): a stale one is 412 and nothing deleted."""
    sync = next(e for e in graph.events if e["subject"] == "Weekly sync")
    url = f"http://graph.local/v1.0/users/{ALEX.email}/events/{sync['id']}"
    auth = {"Authorization": "Bearer local-token"}

    stale = graph.handle("DELETE", url, {**auth, "If-Match": 'W/"CK999999"'}, None)
    assert stale.status == 412
    assert [e["subject"] for e in graph.events].count("Weekly sync") == 1
    current = graph.handle("DELETE", url, {**auth, "If-Match": f'W/"{sync["changeKey"]}"'}, None)
    assert current.status == 204
    assert "Weekly sync" not in [e["subject"] for e in graph.events]
    assert graph.violations == []


# -- Google Workspace ---------------------------------------------------------------------------------


@pytest.fixture
def on_google(drafts: DynamoDraftStore, google: FakeGoogle) -> World:
    suites = google_suites(google)
    for organizer, booking in (
        (
            ALEX,
            Booking(
                id="sync",
                title="Weekly sync",
                organizer=ALEX.email,
                attendees=(ALEX.email, PRIYA.email),
                start=TUESDAY_10,
                end=TUESDAY_10 + timedelta(minutes=30),
                timezone="Europe/London",
            ),
        ),
        (
            PRIYA,
            Booking(
                id="offsite",
                title="Offsite planning",
                organizer=PRIYA.email,
                attendees=(PRIYA.email, ALEX.email),
                start=TUESDAY_10 + timedelta(days=1),
                end=TUESDAY_10 + timedelta(days=1, hours=1),
                timezone="Europe/London",
            ),
        ),
    ):
        suites(organizer.email).calendar.book(booking)
    google.invitations.clear()
    return World(drafts, suites)


def google_writes(google: FakeGoogle) -> list[tuple[str, str, int]]:
    return [
        r
        for r in google.requests
        if r[0] in ("PATCH", "POST", "DELETE") and "/calendar/v3/calendars/" in r[1]
    ]


def test_google_moves_with_one_patch_that_sends_the_update(on_google: World, google: FakeGoogle) -> None:
    before = len(google_writes(google))
    move = on_google.card(
        "move_meeting",
        {
            "meeting": {"said": "my sync with Priya", "people": ["Priya"], "words": ["sync"]},
            "shiftMinutes": 60,
        },
    )

    done = on_google.confirm(move["draftId"])
    again = on_google.confirm(move["draftId"])

    assert again.result == done.result
    (patch,) = google_writes(google)[before:]
    assert patch[0] == "PATCH"
    assert "sendUpdates=all" in patch[1]
    sync = next(e for e in google.events_of(ALEX.email) if e["summary"] == "Weekly sync")
    assert datetime.fromisoformat(sync["start"]["dateTime"]) == TUESDAY_10 + timedelta(hours=1)
    assert [i["to"] for i in google.invitations] == [PRIYA.email]


def test_google_cancels_with_sendupdates_and_mails_the_message(on_google: World, google: FakeGoogle) -> None:
    cancel = on_google.card(
        "cancel_meeting", {"meeting": {"said": "the sync", "words": ["sync"]}, "message": "I'm sick"}
    )

    on_google.confirm(cancel["draftId"])

    sync = next(e for e in google.events_of(ALEX.email) if e["summary"] == "Weekly sync")
    assert sync["status"] == "cancelled"
    assert google.invitations == [
        {"to": PRIYA.email, "eventId": sync["id"], "summary": "Weekly sync", "cancelled": True}
    ]
    (mail,) = google.sent
    assert "I'm sick" in str(mail)


def test_google_an_invitee_accepts_on_their_own_copy(on_google: World, google: FakeGoogle) -> None:
    answer = on_google.card(
        "answer_invitation",
        {
            "meeting": {"said": "Priya's offsite planning", "people": ["Priya"], "words": ["offsite"]},
            "response": "accepted",
            "message": "Count me in",
        },
    )

    on_google.confirm(answer["draftId"])

    offsite = next(e for e in google.events_of(PRIYA.email) if e["summary"] == "Offsite planning")
    alex = next(a for a in offsite["attendees"] if a["email"] == ALEX.email)
    assert (alex["responseStatus"], alex["comment"]) == ("accepted", "Count me in")
    assert google.invitations[-1]["to"] == PRIYA.email


def test_google_an_invitee_cannot_propose_a_time_and_is_told_so(on_google: World, google: FakeGoogle) -> None:
    move = on_google.card(
        "move_meeting", {"meeting": {"said": "the offsite", "words": ["offsite"]}, "shiftMinutes": 60}
    )
    before = len(google_writes(google))

    with pytest.raises(InvalidEdits, match="cannot propose a new time"):
        on_google.confirm(move["draftId"])
    assert len(google_writes(google)) == before


def test_google_a_meeting_moved_by_its_organizer_since_the_card_is_not_written(
    on_google: World, google: FakeGoogle
) -> None:
    move = on_google.card(
        "move_meeting", {"meeting": {"said": "the sync", "words": ["sync"]}, "shiftMinutes": 60}
    )
    shown = on_google.suites(ALEX.email).calendar.events(
        ALEX.email, TUESDAY_10, TUESDAY_10 + timedelta(hours=1)
    )[0]
    on_google.suites(ALEX.email).calendar.move(
        ALEX.email, shown, TUESDAY_10 + timedelta(hours=3), TUESDAY_10 + timedelta(hours=4)
    )
    before = len(google_writes(google))

    with pytest.raises(ItemChangedSince, match="changed since the card"):
        on_google.confirm(move["draftId"])
    assert len(google_writes(google)) == before


class ChangedAfterTheRead:
    """The organizer changes the event on Google (a PATCH of its summary, over HTTP as any client
    would) after every read the confirm makes and just before the confirm's write: the race a
    re-read alone leaves open."""

    def __init__(self, google: FakeGoogle, monkeypatch: pytest.MonkeyPatch, organizer: Person) -> None:
        self.google = google
        self.organizer = organizer
        self.http = urllib3.PoolManager()
        self.armed = False
        call = google_http.GoogleApi.call

        def change_then_call(api: Any, method: str, service: str, relative: str, **kw: Any) -> Any:
            if self.armed and method in ("PATCH", "DELETE") and "/events/" in relative:
                self.armed = False
                self.change(relative.rsplit("/", 1)[-1])
            return call(api, method, service, relative, **kw)

        monkeypatch.setattr(google_http.GoogleApi, "call", change_then_call)

    def change(self, eid: str) -> None:
        answer = self.http.request(
            "PATCH",
            f"{self.google.url}/calendar/v3/calendars/primary/events/{eid}",
            body=b'{"summary": "Weekly sync (renamed)"}',
            headers={
                "Authorization": f"Bearer {sandbox_token(self.organizer.email)}",
                "Content-Type": "application/json",
            },
        )
        assert answer.status == 200


def test_google_a_meeting_changed_between_the_re_read_and_the_move_is_not_moved(
    on_google: World, google: FakeGoogle, monkeypatch: pytest.MonkeyPatch
) -> None:
    move = on_google.card(
        "move_meeting", {"meeting": {"said": "the sync", "words": ["sync"]}, "shiftMinutes": 60}
    )
    race = ChangedAfterTheRead(google, monkeypatch, ALEX)
    race.armed = True

    with pytest.raises(ItemChangedSince, match="changed since the card"):
        on_google.confirm(move["draftId"])

    sync = next(e for e in google.events_of(ALEX.email) if e["summary"] == "Weekly sync (renamed)")
    assert datetime.fromisoformat(sync["start"]["dateTime"]) == TUESDAY_10  # not moved
    rename, refused = google_writes(google)[-2:]
    assert (rename[0], rename[2]) == ("PATCH", 200)
    assert (refused[0], refused[2]) == ("PATCH", 412)  # the move, with the etag read: not written
    assert google.invitations == []


def test_google_a_meeting_changed_between_the_re_read_and_the_cancel_is_not_cancelled(
    on_google: World, google: FakeGoogle, monkeypatch: pytest.MonkeyPatch
) -> None:
    cancel = on_google.card("cancel_meeting", {"meeting": {"said": "the sync", "words": ["sync"]}})
    race = ChangedAfterTheRead(google, monkeypatch, ALEX)
    race.armed = True

    with pytest.raises(ItemChangedSince, match="changed since the card"):
        on_google.confirm(cancel["draftId"])

    sync = next(e for e in google.events_of(ALEX.email) if e["summary"] == "Weekly sync (renamed)")
    assert sync["status"] == "confirmed"
    assert google_writes(google)[-1][0::2] == ("DELETE", 412)
    assert google.invitations == []
    assert google.sent == []


def test_google_an_invitation_changed_between_the_re_read_and_the_answer_is_not_answered(
    on_google: World, google: FakeGoogle, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = on_google.card(
        "answer_invitation",
        {"meeting": {"said": "the offsite", "words": ["offsite"]}, "response": "declined"},
    )
    race = ChangedAfterTheRead(google, monkeypatch, PRIYA)
    race.armed = True

    with pytest.raises(ItemChangedSince, match="changed since the card"):
        on_google.confirm(answer["draftId"])

    offsite = next(e for e in google.events_of(PRIYA.email) if e["summary"] == "Weekly sync (renamed)")
    alex = next(a for a in offsite["attendees"] if a["email"] == ALEX.email)
    assert alex.get("responseStatus") != "declined"
    assert google_writes(google)[-1][0::2] == ("PATCH", 412)


def test_the_google_stand_in_refuses_a_write_whose_if_match_is_stale(google: FakeGoogle) -> None:
    calendar = google_workspace.build_suite(
        Account(user_id=ALEX.email, email=ALEX.email),
        GoogleTokens({ALEX.email: sandbox_token(ALEX.email)}),
        http=urllib3.PoolManager(),
        base_url=google.url,
        deadline=lambda: 20.0,
    ).calendar
    calendar.book(
        Booking(
            id="lunch",
            title="Lunch",
            organizer=ALEX.email,
            attendees=(ALEX.email,),
            start=TUESDAY_10,
            end=TUESDAY_10 + timedelta(hours=1),
            timezone="Europe/London",
        )
    )
    (event,) = [e for e in google.events_of(ALEX.email) if e["summary"] == "Lunch"]
    http = urllib3.PoolManager()
    url = f"{google.url}/calendar/v3/calendars/primary/events/{event['id']}"
    auth = {"Authorization": f"Bearer {sandbox_token(ALEX.email)}", "Content-Type": "application/json"}
    body = b'{"summary": "Long lunch"}'

    stale = http.request("PATCH", url, body=body, headers={**auth, "If-Match": '"0000000000000000"'})
    assert stale.status == 412
    assert stale.json()["error"]["errors"][0]["reason"] == "conditionNotMet"
    assert http.request("DELETE", url, headers={**auth, "If-Match": '"0000000000000000"'}).status == 412
    assert google.event(ALEX.email, event["id"])["summary"] == "Lunch"  # nothing written

    fresh = http.request("PATCH", url, body=body, headers={**auth, "If-Match": event["etag"]})
    assert fresh.status == 200
    assert fresh.json()["etag"] != event["etag"]


def test_graph_moves_a_meeting_with_an_outside_guest_reading_only_colleagues_calendars(
    on_graph: World, graph: GraphState
) -> None:
    # Given a meeting of Alex's with Priya and a guest from outside (no free/busy Graph can give)
    graph.add_event(
        ALEX.email,
        "Vendor call",
        TUESDAY_10 + timedelta(hours=4),
        TUESDAY_10 + timedelta(hours=5),
        [PRIYA.email, "guest@partner.org"],
    )

    move = on_graph.card(
        "move_meeting", {"meeting": {"said": "the vendor call", "words": ["vendor"]}, "shiftMinutes": 60}
    )
    on_graph.confirm(move["draftId"])

    schedules = [
        body["Schedules"] for method, template, body in graph.requests if template.endswith("getSchedule")
    ]
    assert schedules
    assert all("guest@partner.org" not in s for s in schedules)
    vendor = next(e for e in graph.events if e["subject"] == "Vendor call")
    assert vendor["start"]["dateTime"] == "2026-12-08T15:00:00"
    assert graph.violations == []
