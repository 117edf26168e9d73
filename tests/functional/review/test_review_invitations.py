"""What an invitation says, against moto DynamoDB: each invitee's own local time, and the organizer
as its organizer only (never one of its attendees)."""

from __future__ import annotations

from multitool.people import Person
from multitool.review import Caller, ReviewConfig
from multitool.review.reviewer import Reviewer

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

MEI = Person(id="p-mei", display_name="Mei Tanaka", email="mei@example.com", timezone="Asia/Tokyo")
LONDON = Person(id="p-jo", display_name="Jo Hart", email="jo@example.com", timezone="Europe/London")
ORGANIZER = "alex.mueller@example.com"
FIRST = {"start": SLOTS[0][0].isoformat(), "end": SLOTS[0][1].isoformat()}


def confirmed_mail(review_aws: Tables, attendees: list[Person], edits: dict[str, object]) -> RecordingMailer:
    mailer = RecordingMailer()
    reviewer = Reviewer(
        review_aws.drafts,
        mailer=mailer,
        calendar=review_aws.calendar,
        jira=None,
        config=ReviewConfig(sender_email=SENDER),
        clock=lambda: NOW,
    )
    draft = review_aws.add(meeting_draft(attendees=[resolved(p.display_name, p) for p in attendees]))
    reviewer.confirm(
        Caller(user_id=OWNER, email=ORGANIZER, name="Alex Müller"), draft.id, {"slot": FIRST, **edits}
    )
    return mailer


def test_each_invitee_reads_their_own_local_time(review_aws: Tables) -> None:
    # The meeting is Thursday 09:00-09:30 in Berlin (the organizer's zone)
    (mail,) = confirmed_mail(review_aws, [PRIYA, MEI, LONDON], {}).sent
    assert mail.text == (
        "You are invited to Sync.\n"
        "When: Thursday 03 December 2026, 09:00-09:30 (Europe/Berlin)\n"
        "For Mei Tanaka: Thursday 03 December 2026, 17:00-17:30 (Asia/Tokyo)\n"
        "For Jo Hart: Thursday 03 December 2026, 08:00-08:30 (Europe/London)\n"
    )


def test_the_organizer_is_not_an_attendee_of_their_own_invitation(review_aws: Tables) -> None:
    # Given a confirm whose edits put the organizer's own address among the attendees
    (mail,) = confirmed_mail(review_aws, [PRIYA], {"attendees": [PRIYA.email, ORGANIZER]}).sent
    ics = mail.invitation.decode() if mail.invitation else ""
    attendees = [line for line in ics.replace("\r\n ", "").splitlines() if line.startswith("ATTENDEE")]
    # Then the invitation names them as its ORGANIZER, and only Priya as an attendee
    assert [line.rsplit(":", 1)[1].lower() for line in attendees] == [PRIYA.email]
    assert f"mailto:{ORGANIZER}" in ics.lower().split("organizer", 1)[1].split("\n", 1)[0]
    # and they get their copy once
    assert [address.casefold() for address in mail.to] == [PRIYA.email, ORGANIZER]
