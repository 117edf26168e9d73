"""No double booking: a confirm re-checks the chosen slot, against moto DynamoDB and SES v2.

The new-user trial: as alex-muller, "Schedule a sync with Priya on Thursday about A" and, in
another session, "Schedule a call with Priya on Thursday about B" give two cards offering the
same first slot. Confirming both with that slot must book it once.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from moto.dynamodb.models import DynamoDBBackend
from multitool.drafts import Draft, DraftStatus
from multitool.ports.mail import MailRejected
from multitool.review import Caller, ReviewConfig, SideEffectFailed, SlotTaken
from multitool.review.reviewer import Reviewer
from multitool.toolkit.common import external_person
from multitool.wiring.review import aws_reviewer, review_function_app

from functions.review.handler import handler
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import Tables
from tests.support.review_support import (
    NOW,
    OWNER,
    PRIYA,
    SENDER,
    SLOTS,
    RecordingMailer,
    meeting_draft,
    resolved,
)

ALEX = "alex.mueller@example.com"
VERIFIED = {"email": ALEX, "email_verified": "true"}
FIRST, SECOND = (
    {"start": SLOTS[0][0].isoformat(), "end": SLOTS[0][1].isoformat()},
    {"start": SLOTS[1][0].isoformat(), "end": SLOTS[1][1].isoformat()},
)


def held(aws: Tables, email: str) -> list[tuple[Any, Any]]:
    """The intervals ``email``'s calendar holds around the card's two slots."""
    busy = aws.calendar.busy([email], SLOTS[0][0] - timedelta(hours=1), SLOTS[1][1] + timedelta(hours=1))
    return [(i.start, i.end) for i in busy[email]]


def confirm_event(
    draft_id: str, body: dict[str, Any], claims: dict[str, Any] | None = None
) -> dict[str, Any]:
    return http_api_event(
        "POST",
        f"/actions/{draft_id}/confirm",
        body,
        sub=OWNER,
        path_parameters={"id": draft_id},
        route_key="POST /actions/{id}/confirm",
        claims=VERIFIED if claims is None else claims,
    )


def confirm(draft_id: str, body: dict[str, Any], claims: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = handler(confirm_event(draft_id, body, claims), FakeLambdaContext())
    return response


def sync_and_call(review_aws: Tables) -> tuple[Draft, Draft]:
    """Two cards for Priya on Thursday from two sessions: different drafts, the same slots."""
    first = review_aws.add(meeting_draft(attendees=[resolved("Priya", PRIYA)], session="s-sync"))
    second = review_aws.add(meeting_draft(attendees=[resolved("Priya", PRIYA)], session="s-call"))
    assert first.id != second.id
    return first, second


def test_a_slot_booked_since_the_card_was_made_is_409_slot_taken_and_nothing_is_sent(
    review_aws: Tables,
) -> None:
    sync, call = sync_and_call(review_aws)
    assert confirm(sync.id, {"slot": FIRST})["statusCode"] == 200

    refused = confirm(call.id, {"slot": FIRST, "title": "Call about B"})

    assert refused["statusCode"] == 409
    body = json_body(refused)
    assert body["error"]["code"] == "slot_taken"
    assert "Priya Raman" in body["error"]["message"]
    assert "Still free: Thu 03 Dec 10:00-10:30" in body["error"]["message"]
    # The draft is confirmable again, its edits kept; nothing went out for it.
    assert body["action"]["status"] == "proposed"
    assert body["action"]["retryable"] is True
    assert body["action"]["edits"]["title"] == "Call about B"
    assert len(review_aws.sent()) == 1
    assert held(review_aws, PRIYA.email) == [SLOTS[0]]
    # Another slot of the same card books, with the kept title.
    retried = confirm(call.id, {"slot": SECOND})
    assert retried["statusCode"] == 200
    assert json_body(retried)["edits"]["title"] == "Call about B"
    assert len(review_aws.sent()) == 2
    assert held(review_aws, PRIYA.email) == [SLOTS[0], SLOTS[1]]
    assert held(review_aws, ALEX) == [SLOTS[0], SLOTS[1]]  # the verified organizer's time is held too


def test_two_concurrent_confirms_for_one_persons_time_book_it_once(
    review_aws: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given both confirms read Priya's Thursday before either writes (a barrier in front of the
    # bookings' transactions), and moto's transactions made atomic as DynamoDB's are
    sync, call = sync_and_call(review_aws)
    both_read = threading.Barrier(2, timeout=10)
    atomic = threading.Lock()
    original: Callable[..., Any] = DynamoDBBackend.transact_write_items

    def interleaved(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> Any:
        if any("BUSY#" in str(item) for item in transact_items):
            # (Broken only if one side never comes: the test then fails on its own assertions.)
            with contextlib.suppress(threading.BrokenBarrierError):
                both_read.wait()
        with atomic:
            return original(self, transact_items)

    monkeypatch.setattr(DynamoDBBackend, "transact_write_items", interleaved)
    aws_reviewer()  # one warm container's reviewer, shared by both requests
    results: dict[str, dict[str, Any]] = {}

    def run(draft: Draft) -> None:
        app = review_function_app()  # one resolver per request: it holds the current event
        results[draft.id] = app.resolve(confirm_event(draft.id, {"slot": FIRST}), FakeLambdaContext())

    # When both confirm the same slot at once
    threads = [threading.Thread(target=run, args=(d,)) for d in (sync, call)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # Then exactly one books and sends, the other is 409 slot_taken and confirmable again
    statuses = sorted(r["statusCode"] for r in results.values())
    assert statuses == [200, 409]
    [loser] = [json_body(r) for r in results.values() if r["statusCode"] == 409]
    assert loser["error"]["code"] == "slot_taken"
    assert loser["action"]["status"] == "proposed"
    assert len(review_aws.sent()) == 1
    assert held(review_aws, PRIYA.email) == [SLOTS[0]]


def reviewer(review_aws: Tables, mailer: RecordingMailer) -> Reviewer:
    return Reviewer(
        review_aws.drafts,
        mailer=mailer,
        calendar=review_aws.calendar,
        jira=None,
        config=ReviewConfig(sender_email=SENDER),
        clock=lambda: NOW,  # as review_aws's reviewer: the fixtures' slots lie on fixed days
    )


def test_a_failed_invitation_gives_the_time_back_and_leaves_the_draft_failed(review_aws: Tables) -> None:
    sync, call = sync_and_call(review_aws)
    mailer = RecordingMailer()
    mailer.fail_with = MailRejected(
        "SES MessageRejected: Email address is not verified.", code="mail_rejected"
    )
    alex = Caller(user_id=OWNER, email=ALEX)

    with pytest.raises(SideEffectFailed) as failed:
        reviewer(review_aws, mailer).confirm(alex, sync.id, {"slot": FIRST})

    assert failed.value.draft.status is DraftStatus.FAILED
    assert held(review_aws, PRIYA.email) == []  # released: an unsent invitation holds no time
    # The other card can take the slot now; the failed one is then refused it, and can take another.
    assert reviewer(review_aws, mailer).confirm(alex, call.id, {"slot": FIRST}).status is DraftStatus.DONE
    with pytest.raises(SlotTaken) as taken:
        reviewer(review_aws, mailer).confirm(alex, sync.id, {})
    assert taken.value.draft.status is DraftStatus.FAILED  # as it was: confirmable again
    assert reviewer(review_aws, mailer).confirm(alex, sync.id, {"slot": SECOND}).status is DraftStatus.DONE
    assert [m.to for m in mailer.sent] == [(PRIYA.email, ALEX), (PRIYA.email, ALEX)]
    assert held(review_aws, PRIYA.email) == [SLOTS[0], SLOTS[1]]


def test_external_attendees_are_invited_but_their_time_is_not_held(review_aws: Tables) -> None:
    zoe = external_person("zoe@partner.test")
    first = review_aws.add(
        meeting_draft(attendees=[resolved("Priya", PRIYA), resolved("zoe@partner.test", zoe)])
    )
    second = review_aws.add(meeting_draft(attendees=[resolved("zoe@partner.test", zoe)], session="s-2"))

    # (Without a verified address the organizer is the sender: only the attendees' time counts.)
    assert confirm(first.id, {"slot": FIRST}, claims={})["statusCode"] == 200
    again = confirm(second.id, {"slot": FIRST}, claims={})

    assert again["statusCode"] == 200  # not tracked: nothing to refuse on
    assert held(review_aws, "zoe@partner.test") == []
    assert held(review_aws, PRIYA.email) == [SLOTS[0]]
    assert "zoe@partner.test" in review_aws.sent()[0].destinations


@pytest.mark.parametrize("typed", ["priya@example.com", "PRIYA@Example.com", "pri.raman@example.com"])
def test_an_address_typed_in_the_edits_that_is_a_directory_persons_is_that_person(
    review_aws: Tables, typed: str
) -> None:
    from multitool.people import Person
    from multitool.ports.directory import seed_people

    # Given Priya in the directory (with an alias address) and booked on the first slot
    priya = Person(
        id=PRIYA.id,
        display_name=PRIYA.display_name,
        email=PRIYA.email,
        timezone=PRIYA.timezone,
        aliases=("pri.raman@example.com",),
    )
    seed_people(review_aws.client, review_aws.names["DIRECTORY_TABLE_NAME"], [priya])
    booked = review_aws.add(meeting_draft(attendees=[resolved("Priya", PRIYA)], session="s-booked"))
    assert confirm(booked.id, {"slot": FIRST}, claims={})["statusCode"] == 200
    # And a card for an outside address only, offering the same slot
    bob = external_person("bob@external.com")
    card = review_aws.add(meeting_draft(attendees=[resolved("bob@external.com", bob)], session="s-bob"))

    # When bob is removed and Priya's address is typed in (the page's + Add), then confirmed
    refused = confirm(card.id, {"slot": FIRST, "attendees": [typed]}, claims={})

    # Then it is Priya: her booked time is refused, nothing is sent, and she stays booked once
    assert refused["statusCode"] == 409, json_body(refused)
    assert json_body(refused)["error"]["code"] == "slot_taken"
    assert "Priya Raman" in json_body(refused)["error"]["message"]
    assert len(review_aws.sent()) == 1
    assert held(review_aws, PRIYA.email) == [SLOTS[0]]
    # And on a free slot she is booked and invited at her directory address, by name
    assert confirm(card.id, {"slot": SECOND, "attendees": [typed]}, claims={})["statusCode"] == 200
    assert held(review_aws, PRIYA.email) == [SLOTS[0], SLOTS[1]]
    assert PRIYA.email in review_aws.sent()[-1].destinations


def test_an_offered_slot_written_in_another_offset_is_the_same_slot(review_aws: Tables) -> None:
    from datetime import UTC

    # Given a card offering Thursday 09:00 Berlin time
    card = review_aws.add(meeting_draft(attendees=[resolved("Priya", PRIYA)]))
    as_utc = {
        "start": SLOTS[0][0].astimezone(UTC).isoformat(),
        "end": SLOTS[0][1].astimezone(UTC).isoformat(),
    }
    as_z = {key: value.replace("+00:00", "Z") for key, value in as_utc.items()}

    # When the slot is confirmed written as UTC (08:00Z), then again as written on the card
    done = confirm(card.id, {"slot": as_z}, claims={})
    again = confirm(card.id, {"slot": FIRST}, claims={})

    # Then it is the offered slot, booked once; the repeat is the same result, not a change
    assert done["statusCode"] == 200, json_body(done)
    assert again["statusCode"] == 200, json_body(again)
    assert held(review_aws, PRIYA.email) == [SLOTS[0]]
    assert len(review_aws.sent()) == 1


def test_a_slot_without_an_offset_is_refused_in_words_not_matched_by_its_text(review_aws: Tables) -> None:
    card = review_aws.add(meeting_draft(attendees=[resolved("Priya", PRIYA)]))
    naive = {key: value[:19] for key, value in FIRST.items()}  # '2026-12-03T09:00:00': which zone?

    refused = confirm(card.id, {"slot": naive}, claims={})

    assert refused["statusCode"] in (400, 422), json_body(refused)
    error = json_body(refused)["error"]
    assert (error["code"], error["field"]) == ("invalid_edits", "slot")
    assert "UTC offset" in error["message"]
    assert held(review_aws, PRIYA.email) == []


def test_slot_taken_names_the_organizer_by_name_not_by_address(review_aws: Tables) -> None:
    # Given Alex (the verified organizer) booked on the first slot with an outside guest
    zoe = external_person("zoe@partner.test")
    alex = {**VERIFIED, "name": "Alex Müller"}
    booked = review_aws.add(meeting_draft(attendees=[resolved("zoe@partner.test", zoe)], session="s-zoe"))
    assert confirm(booked.id, {"slot": FIRST}, claims=alex)["statusCode"] == 200
    # When Alex confirms another card on that slot
    card = review_aws.add(meeting_draft(attendees=[resolved("Priya", PRIYA)], session="s-priya"))
    refused = confirm(card.id, {"slot": FIRST}, claims=alex)
    # Then the message names Alex, not alex.mueller@example.com
    assert refused["statusCode"] == 409
    message = json_body(refused)["error"]["message"]
    assert "Alex Müller is booked then" in message
    assert ALEX not in message
