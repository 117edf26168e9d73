"""Requests the offline model once read wrong without a word: an address given for a name, sign-offs,
a ticket's summary cut at a word that is also a boundary."""

from __future__ import annotations

import pytest
from multitool.runtimes.offline import JIRA_TOOL, MEETING_TOOL, read
from multitool.runtimes.offline.edits import Card, revise


def only(message: str) -> dict[str, object]:
    reading = read(message)
    assert reading.unread == []
    (intent,) = reading.intents
    assert intent.unread == []
    assert intent.missing == []
    return intent.args


@pytest.mark.parametrize(
    ("message", "to"),
    [
        ("Send an email to Priya at priya@gmail.com about the trip", ["priya@gmail.com"]),
        ("email Priya (priya@gmail.com) and Mei about the launch", ["priya@gmail.com", "Mei"]),
        ("email Priya <priya@gmail.com> re: the trip", ["priya@gmail.com"]),
        ("Email Priya and priya@gmail.com about the trip", ["Priya", "priya@gmail.com"]),  # two, as said
    ],
)
def test_an_address_given_for_a_name_is_that_persons_one_address(message: str, to: list[str]) -> None:
    args = only(message)
    assert args["to"] == to


def test_the_greeting_names_the_person_whose_address_was_given() -> None:
    body = only("Send an email to Priya at priya@gmail.com about the trip")["body"]
    assert isinstance(body, str)
    assert body.startswith("Hi Priya,")


def test_a_meeting_with_an_address_given_for_a_name_invites_that_address_once() -> None:
    assert only("schedule a sync with Priya at priya@gmail.com on Thursday")["attendees"] == [
        "priya@gmail.com"
    ]


@pytest.mark.parametrize(
    ("message", "summary", "priority"),
    [
        ("make a jira in OPS for the vpn being slow thanks", "Vpn being slow", None),
        ("make a jira in OPS for the vpn being slow, thank you!", "Vpn being slow", None),
        ("file a bug in WEB: the export button does nothing pls", "Export button does nothing", None),
        ("file a bug in WEB: the export button does nothing cheers", "Export button does nothing", None),
        (
            "file a bug in WEB: the signup form rejects emails with a plus sign, high priority",
            "Signup form rejects emails with a plus sign",
            "High",
        ),
        ("bug in WEB: the app freezes then crashes on login", "App freezes then crashes on login", None),
        (
            "file a task in OPS: rotate the keys and also the certs",
            "Rotate the keys and also the certs",
            None,
        ),
    ],
)
def test_a_summary_holds_the_whole_phrase_and_no_sign_off(
    message: str, summary: str, priority: str | None
) -> None:
    reading = read(message)
    assert reading.unread == []
    (ticket,) = reading.intents
    assert (ticket.tool, ticket.unread) == (JIRA_TOOL, [])
    assert ticket.args["summary"] == summary
    assert ticket.args.get("priority") == priority


def test_a_request_after_a_word_boundary_is_still_a_request_of_its_own() -> None:
    reading = read("email Mei about the plan then file a bug in WEB: the logo is blurry thanks")
    assert [i.tool for i in reading.intents] == ["create_email_draft", JIRA_TOOL]
    assert reading.intents[1].args["summary"] == "Logo is blurry"


@pytest.mark.parametrize(
    ("asked", "edit", "moved"),
    [
        ("tomorrow afternoon", "move it to Wednesday", "Wednesday afternoon"),
        ("tomorrow at 3pm", "push it to Friday", "Friday at 3pm"),
        ("tonight at 8", "move it to Friday", "Friday evening at 8"),
        ("Thursday between 2 and 4", "move it to Friday", "Friday between 2 and 4"),
        ("tomorrow afternoon", "move it to Wednesday morning", "Wednesday morning"),
        ("Thursday", "move it to Friday", "Friday"),
    ],
)
def test_a_meeting_moved_to_another_day_keeps_the_hours_it_asked_for(
    asked: str, edit: str, moved: str
) -> None:
    card = Card(MEETING_TOOL, {"attendees": ["Priya"], "title": "Sync", "when": asked}, id="d-1")
    revision, refusal = revise(edit, [card], None)
    assert refusal is None
    assert revision is not None
    assert revision.args["when"] == moved


def test_a_request_it_cannot_do_after_a_word_boundary_is_still_said_as_not_understood() -> None:
    reading = read("email Priya about the launch then book me a flight")
    (mail,) = reading.intents
    assert mail.args["subject"] == "About the launch"
    assert reading.unread == ["book me a flight"]
