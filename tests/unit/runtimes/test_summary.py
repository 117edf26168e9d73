"""The answer composed from a turn's cards: one clause per card in the tool's words, or None."""

from __future__ import annotations

import pytest
from multitool.cards.client_actions import card_from_payload
from multitool.runtimes.summary import composed_message, needs_clarification
from multitool.toolkit.cards import a_thing, when_words

from tests.support import bedrock_streams as b


def cards(*payloads):
    return [card_from_payload(payload) for payload in payloads]


def test_an_email_and_a_meeting_read_as_one_sentence_and_what_waits_for_the_user() -> None:
    message = composed_message(cards(b.email_payload(), b.meeting_payload()))

    assert message == (
        "I drafted an email to Kinshuok Sharma about the doc and found 3 times for a sync with "
        "Kinshuok Sharma on Thursday. Nothing is sent or booked until you confirm."
    )


def test_three_tools_say_their_verb_once_in_a_row_and_each_what_a_confirm_does() -> None:
    message = composed_message(
        cards(
            b.jira_payload(assignee=b.resolved("Priya", b.PRIYA)),
            b.email_payload(to=[b.resolved("Priya", b.PRIYA)], subject="Login crash"),
            b.meeting_payload(
                requested="tomorrow at 3pm", title="Q3 review", starts=("2026-12-01T15:00:00+01:00",)
            ),
        )
    )

    assert message == (
        'I drafted a WEB bug "Login crash" for Priya Natarajan, an email to Priya Natarajan with the '
        'subject "Login crash" and found a time for a Q3 review with Kinshuok Sharma tomorrow at 3pm. '
        "Nothing is created, sent or booked until you confirm."
    )


def test_the_same_draft_twice_is_said_once() -> None:
    message = composed_message(cards(b.email_payload(draft_id="d_1"), b.email_payload(draft_id="d_2")))

    assert (
        message == "I drafted an email to Kinshuok Sharma about the doc. Nothing is sent until you confirm."
    )


@pytest.mark.parametrize(
    "payload",
    [
        b.email_payload(to=[b.ambiguous("Priya", b.PRIYA, b.PRIYA_K)]),
        b.email_payload(to=[b.unknown("Zed")]),
        b.meeting_payload(
            attendees=[b.resolved("Kinshuok", b.KINSHUOK), b.ambiguous("Priya", b.PRIYA, b.PRIYA_K)]
        ),
        b.jira_payload(assignee=b.unknown("Zed")),
    ],
    ids=["ambiguous recipient", "unknown recipient", "ambiguous attendee", "unknown assignee"],
)
def test_a_name_the_user_must_settle_leaves_the_answer_to_the_model(payload) -> None:
    (card,) = cards(payload)

    assert needs_clarification(card)
    assert composed_message([*cards(b.email_payload(draft_id="d_ok")), card]) is None


def test_a_meeting_without_a_slot_to_offer_and_no_cards_leave_it_to_the_model() -> None:
    assert composed_message(cards(b.meeting_payload(starts=()))) is None
    assert composed_message([]) is None


@pytest.mark.parametrize(
    ("requested", "phrase"),
    [
        ("Thursday", "on Thursday"),
        ("next Tuesday", "next Tuesday"),
        ("tomorrow  at 3pm", "tomorrow at 3pm"),
        ("3 Dec", "on 3 Dec"),
    ],
)
def test_the_users_day_reads_after_a_noun(requested: str, phrase: str) -> None:
    assert when_words(requested) == phrase


@pytest.mark.parametrize(
    ("title", "phrase"),
    [
        ("Sync", "a sync"),
        ("Onboarding", "an onboarding"),
        ("Q3 review", "a Q3 review"),
        ("API design", "an API design"),
        ("", "a meeting"),
    ],
)
def test_a_title_becomes_a_noun_phrase_keeping_its_capitals_where_they_mean_something(
    title: str, phrase: str
) -> None:
    assert a_thing(title) == phrase
