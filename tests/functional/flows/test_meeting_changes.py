"""Meetings that already exist, on the built-in calendar (DynamoDB against moto): move, cancel and
answer, from the tool call that makes the card to the confirm that changes the one booking.

Given bookings on the table (the caller's own, one they are invited to, another user's), when a
turn's call names one as the user said it and the card is confirmed, then the booking moves or
goes exactly once, the attendees get an iCalendar update (REQUEST, SEQUENCE raised), cancellation
(CANCEL) or the organizer a REPLY; a retried confirm changes nothing more; a second card for the
same meeting, or a meeting changed since its card, is refused with ``item_changed`` and nothing is
written; a past meeting or one nobody matches is a clear error.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from multitool.local.sandbox.memory import MemoryDirectory
from multitool.ports.calendar import Booking, Response
from multitool.review import Caller, ItemChangedSince, ReviewConfig
from multitool.review.reviewer import Reviewer
from multitool.tools import ToolContext, ToolPorts, run_calls

from tests.support.bedrock_events import sample_people
from tests.support.moto_tables import Tables
from tests.support.review_support import SENDER, RecordingMailer

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)  # Monday
ALEX = "alex@example.com"
PRIYA = "priya@example.com"
KIN = "kinshuok@example.com"
TUESDAY_10 = datetime(2026, 12, 8, 10, 0, tzinfo=UTC)


def booking(
    booking_id: str, title: str, organizer: str, *others: str, start: datetime = TUESDAY_10
) -> Booking:
    return Booking(
        id=booking_id,
        title=title,
        organizer=organizer,
        attendees=(organizer, *others),
        start=start,
        end=start + timedelta(minutes=30),
        timezone="Europe/London",
    )


@pytest.fixture
def world(review_aws: Tables) -> dict[str, Any]:
    calendar = review_aws.calendar
    calendar.book(booking("sync", "Weekly sync", ALEX, PRIYA))
    calendar.book(
        booking("offsite", "Offsite planning", PRIYA, ALEX, KIN, start=TUESDAY_10 + timedelta(days=1))
    )
    calendar.book(booking("theirs", "Private sync", PRIYA, KIN, start=TUESDAY_10 + timedelta(hours=3)))
    mailer = RecordingMailer()
    reviewer = Reviewer(
        review_aws.drafts,
        mailer=mailer,
        calendar=calendar,
        jira=None,
        config=ReviewConfig(sender_email=SENDER),
        clock=lambda: NOW,
    )
    return {"tables": review_aws, "calendar": calendar, "mailer": mailer, "reviewer": reviewer}


def card(world: dict[str, Any], name: str, args: dict[str, Any], *, session: str = "s-1") -> dict[str, Any]:
    ports = ToolPorts(MemoryDirectory(sample_people()), world["calendar"], world["tables"].drafts)
    ctx = ToolContext(
        owner="user-1", session_id=session, now=NOW, timezone="Europe/London", requester_email=ALEX
    )
    (outcome,) = run_calls([(name, args)], ctx, ports)
    assert outcome.status == 200, outcome.body
    return outcome.body


def confirm(world: dict[str, Any], draft_id: str, edits: dict[str, Any] | None = None) -> Any:
    return world["reviewer"].confirm(Caller(user_id="user-1", email=ALEX, name="Alex"), draft_id, edits or {})


def ics(mail: Any) -> str:
    return mail.invitation.decode().replace("\r\n ", "")


# -- move ------------------------------------------------------------------------------------------


def test_moving_a_meeting_moves_the_one_booking_and_sends_an_update(world: dict[str, Any]) -> None:
    move = card(
        world,
        "move_meeting",
        {
            "meeting": {"said": "my sync with Priya", "people": ["Priya"], "words": ["sync"]},
            "shiftMinutes": 30,
        },
    )

    assert move["meeting"]["status"] == "found"
    assert move["before"]["start"].startswith("2026-12-08T10:00")
    assert [s["start"][:16] for s in move["slots"]] == ["2026-12-08T10:30"]
    done = confirm(world, move["draftId"])

    assert done.result["start"].startswith("2026-12-08T10:30")
    moved = world["calendar"].event(ALEX, "sync")
    assert (moved.start, moved.sequence) == (TUESDAY_10 + timedelta(minutes=30), 1)
    (mail,) = world["mailer"].sent
    assert mail.to == (PRIYA,)
    assert "METHOD:REQUEST" in ics(mail)
    assert "SEQUENCE:1" in ics(mail)
    assert "UID:sync" in ics(mail)
    again = confirm(world, move["draftId"])  # a retried confirm: the same result, nothing more done
    assert again.result == done.result
    assert len(world["mailer"].sent) == 1
    assert world["calendar"].event(ALEX, "sync").version == moved.version


def test_a_move_to_a_day_offers_free_times_around_everyones_other_meetings(world: dict[str, Any]) -> None:
    move = card(
        world,
        "move_meeting",
        {
            "meeting": {"said": "the weekly sync", "words": ["sync"]},
            "when": "Wednesday",
            "times": ["2026-12-09T09:00/12:00"],
        },
    )

    starts = [s["start"][:16] for s in move["slots"]]
    assert starts
    assert all(s.startswith("2026-12-09") for s in starts)
    # Priya's offsite (10:00-10:30 Wednesday) is not offered; the sync's own Tuesday time does not count
    assert "2026-12-09T10:00" not in starts
    done = confirm(world, move["draftId"], {"slot": move["slots"][0]})
    assert done.result["start"][:16] == starts[0]


def test_two_cards_moving_one_meeting_the_second_is_told_it_changed(world: dict[str, Any]) -> None:
    later = card(
        world, "move_meeting", {"meeting": {"said": "the sync", "words": ["sync"]}, "shiftMinutes": 60}
    )
    shorter = card(
        world, "move_meeting", {"meeting": {"said": "the sync", "words": ["sync"]}, "durationMinutes": 15}
    )

    confirm(world, later["draftId"])
    with pytest.raises(ItemChangedSince, match="changed since the card was made"):
        confirm(world, shorter["draftId"])

    moved = world["calendar"].event(ALEX, "sync")
    assert moved.end - moved.start == timedelta(minutes=30)
    assert len(world["mailer"].sent) == 1


def test_a_meeting_cancelled_after_its_card_is_not_written_blind(world: dict[str, Any]) -> None:
    move = card(
        world, "move_meeting", {"meeting": {"said": "the sync", "words": ["sync"]}, "shiftMinutes": 60}
    )
    world["calendar"].release("sync")

    with pytest.raises(ItemChangedSince, match="no longer on your calendar"):
        confirm(world, move["draftId"])
    assert world["calendar"].event(ALEX, "sync") is None
    assert world["mailer"].sent == []


def test_an_attendee_cannot_move_someone_elses_meeting(world: dict[str, Any]) -> None:
    move = card(
        world, "move_meeting", {"meeting": {"said": "the offsite", "words": ["offsite"]}, "shiftMinutes": 60}
    )

    assert move["proposes"] is True
    assert any("organizes this meeting" in n for n in move["notes"])
    from multitool.toolkit.errors import InvalidEdits

    with pytest.raises(InvalidEdits, match="cannot propose a new time"):
        confirm(world, move["draftId"])
    assert world["calendar"].event(ALEX, "offsite").start == TUESDAY_10 + timedelta(days=1)


def test_unknown_references_and_other_peoples_meetings_find_nothing(world: dict[str, Any]) -> None:
    move = card(
        world,
        "move_meeting",
        {"meeting": {"said": "the private sync", "words": ["private"]}, "shiftMinutes": 30},
    )

    assert move["meeting"]["status"] == "none"
    assert move["slots"] == []
    assert "Private sync" not in str(move)
    from multitool.toolkit.references import NothingFound

    with pytest.raises(NothingFound):
        confirm(world, move["draftId"])


def test_a_past_meeting_is_refused_with_words_the_model_can_act_on(world: dict[str, Any]) -> None:
    world["calendar"].book(booking("old", "Retro", ALEX, PRIYA, start=NOW - timedelta(hours=2)))
    ports = ToolPorts(MemoryDirectory(sample_people()), world["calendar"], world["tables"].drafts)
    ctx = ToolContext(
        owner="user-1", session_id="s-1", now=NOW, timezone="Europe/London", requester_email=ALEX
    )

    (outcome,) = run_calls(
        [("cancel_meeting", {"meeting": {"said": "the retro", "words": ["retro"]}})], ctx, ports
    )

    assert outcome.status == 422
    assert outcome.body["error"]["code"] == "date_in_past"
    assert world["calendar"].event(ALEX, "old") is not None


# -- cancel ----------------------------------------------------------------------------------------


def test_cancelling_frees_the_booking_and_sends_a_cancel_with_the_message(world: dict[str, Any]) -> None:
    cancel = card(
        world,
        "cancel_meeting",
        {
            "meeting": {"said": "tomorrow's sync with Priya", "people": ["Priya"], "fromDay": "2026-12-08"},
            "message": "I'm sick",
        },
    )

    assert cancel["declines"] is False
    done = confirm(world, cancel["draftId"])

    assert world["calendar"].event(ALEX, "sync") is None
    assert world["calendar"].busy([PRIYA], TUESDAY_10, TUESDAY_10 + timedelta(hours=1))[PRIYA] == []
    (mail,) = world["mailer"].sent
    text = ics(mail)
    assert "METHOD:CANCEL" in text
    assert "STATUS:CANCELLED" in text
    assert "SEQUENCE:1" in text
    assert "I'm sick" in mail.text
    assert "COMMENT:I'm sick" in text
    assert confirm(world, cancel["draftId"]).result == done.result
    assert len(world["mailer"].sent) == 1


def test_an_attendee_asking_to_cancel_declines_instead(world: dict[str, Any]) -> None:
    cancel = card(
        world,
        "cancel_meeting",
        {"meeting": {"said": "the offsite planning", "words": ["offsite"]}, "message": "I'm out"},
    )

    assert cancel["declines"] is True
    confirm(world, cancel["draftId"])

    assert world["calendar"].event(PRIYA, "offsite") is not None  # Priya's meeting stays
    assert world["calendar"].event(ALEX, "offsite").response is Response.DECLINED
    (mail,) = world["mailer"].sent
    assert mail.to == (PRIYA,)
    assert "METHOD:REPLY" in ics(mail)
    assert "PARTSTAT=DECLINED" in ics(mail)


# -- answer ----------------------------------------------------------------------------------------


def test_accepting_an_invitation_records_it_and_replies_to_the_organizer(world: dict[str, Any]) -> None:
    answer = card(
        world,
        "answer_invitation",
        {
            "meeting": {"said": "Priya's offsite planning", "people": ["Priya"], "words": ["offsite"]},
            "response": "accepted",
        },
    )

    confirm(world, answer["draftId"], {"message": "See you there"})

    assert world["calendar"].event(ALEX, "offsite").response is Response.ACCEPTED
    assert world["calendar"].event(PRIYA, "offsite").attendees[0].response is Response.ACCEPTED
    (mail,) = world["mailer"].sent
    assert mail.to == (PRIYA,)
    assert "METHOD:REPLY" in ics(mail)
    assert "PARTSTAT=ACCEPTED" in ics(mail)
    assert "See you there" in mail.text


def test_the_organizer_has_no_invitation_to_answer(world: dict[str, Any]) -> None:
    ports = ToolPorts(MemoryDirectory(sample_people()), world["calendar"], world["tables"].drafts)
    ctx = ToolContext(
        owner="user-1", session_id="s-1", now=NOW, timezone="Europe/London", requester_email=ALEX
    )

    (outcome,) = run_calls(
        [
            (
                "answer_invitation",
                {"meeting": {"said": "the weekly sync", "words": ["sync"]}, "response": "declined"},
            )
        ],
        ctx,
        ports,
    )

    assert outcome.status == 400
    assert "You organize 'Weekly sync'" in outcome.body["error"]["message"]


# -- races ------------------------------------------------------------------------------------------


def _race(*confirms: Any) -> list[Any]:
    """Every confirm at once, from threads released together; each one's result or error.

    DynamoDB applies each request to an item atomically (a conditional write's check and write are
    one step); moto, in this process, runs a request as Python code that another thread may interleave
    with, so two conditional writes of one version could both pass its check. Each AWS request of the
    race is made one at a time, as the service would apply them: the confirms still interleave
    between their requests."""
    import threading
    from unittest import mock

    from botocore.client import BaseClient

    start = threading.Barrier(len(confirms))
    answers: list[Any] = [None] * len(confirms)
    one_at_a_time = threading.Lock()
    request = BaseClient._make_api_call

    def atomic(client: BaseClient, operation: str, params: dict[str, Any]) -> Any:
        with one_at_a_time:
            return request(client, operation, params)

    def run(index: int, confirm_it: Any) -> None:
        start.wait()
        try:
            answers[index] = confirm_it()
        except Exception as error:  # the race's loser answers an error: that is what is checked
            answers[index] = error

    with mock.patch.object(BaseClient, "_make_api_call", atomic):
        threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(confirms)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return answers


def test_two_concurrent_confirms_of_one_move_move_it_once(world: dict[str, Any]) -> None:
    move = card(
        world, "move_meeting", {"meeting": {"said": "the sync", "words": ["sync"]}, "shiftMinutes": 60}
    )

    answers = _race(lambda: confirm(world, move["draftId"]), lambda: confirm(world, move["draftId"]))

    done = [a for a in answers if not isinstance(a, Exception)]
    assert done, answers
    moved = world["calendar"].event(ALEX, "sync")
    assert (moved.start, moved.sequence) == (TUESDAY_10 + timedelta(hours=1), 1)
    assert len(world["mailer"].sent) == 1


def test_two_cards_moving_one_meeting_at_once_one_moves_it_and_the_other_is_told(
    world: dict[str, Any],
) -> None:
    later = card(
        world, "move_meeting", {"meeting": {"said": "the sync", "words": ["sync"]}, "shiftMinutes": 60}
    )
    earlier = card(
        world, "move_meeting", {"meeting": {"said": "the sync", "words": ["sync"]}, "shiftMinutes": 120}
    )

    answers = _race(lambda: confirm(world, later["draftId"]), lambda: confirm(world, earlier["draftId"]))

    assert sum(isinstance(a, ItemChangedSince) for a in answers) == 1, answers
    assert sum(not isinstance(a, Exception) for a in answers) == 1
    assert world["calendar"].event(ALEX, "sync").sequence == 1
    assert len(world["mailer"].sent) == 1
