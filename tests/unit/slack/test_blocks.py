"""Cards as Block Kit messages: any card type from its model, within Block Kit's limits (truncated with
a link to the page, never a message Slack would refuse), every message checked by slack_sdk's models."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import pytest
from multitool.people import NameResolution, Person, Resolution
from multitool.slack.blocks import MAX_BLOCKS, MAX_OPTIONS, MAX_SECTION_CHARS, card_message, outcome_words
from multitool.toolkit.cards import payload_card
from multitool.tools.email.email_draft import EmailDraftCard
from multitool.tools.meeting.meeting_scheduler import MeetingSchedulerCard
from pydantic import BaseModel
from slack_sdk.models.blocks import Block

PAGE = "https://chat.example.com/"
NOW = datetime(2026, 12, 3, 9, 30, tzinfo=UTC)
PRIYA = Person(id="p2", display_name="Priya Natarajan", email="priya@example.com", timezone="Asia/Kolkata")


def valid(blocks: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """The blocks, each parsed by the SDK's model and dumped back unchanged (its to_dict checks limits)."""
    assert len(blocks) <= MAX_BLOCKS
    for block in blocks:
        parsed = Block.parse(block)
        assert parsed is not None
        assert parsed.to_dict() == block
    return list(blocks)


def texts(blocks: list[dict[str, Any]]) -> list[str]:
    found = [b["text"]["text"] for b in blocks if b["type"] == "section"]
    found += [e["text"] for b in blocks if b["type"] == "context" for e in b["elements"]]
    return found


def resolved(person: Person) -> NameResolution:
    return NameResolution(query=person.display_name.split()[0], status=Resolution.RESOLVED, person=person)


def test_people_show_with_their_local_time_and_day() -> None:
    card = EmailDraftCard(
        type="show_new_email_draft", id="d1", to=(resolved(PRIYA),), subject="Doc", body="Hi"
    )
    blocks = valid(card_message(card, "Email to Priya", now=NOW).blocks)
    assert any("Priya Natarajan · 15:00 Thu" in text for text in texts(blocks))


def test_a_body_over_a_sections_limit_is_cut_with_a_link_to_the_page() -> None:
    body = "word " * 2000  # 10,000 characters: the email card's own limit
    card = EmailDraftCard(
        type="show_new_email_draft", id="d1", to=(resolved(PRIYA),), subject="Long", body=body
    )
    blocks = valid(card_message(card, "Email to Priya", page_url=PAGE, now=NOW).blocks)
    assert all(len(text) <= MAX_SECTION_CHARS for text in texts(blocks))
    assert any(f"<{PAGE}|see the whole card on the page>" in text for text in texts(blocks))


def test_more_slots_than_a_select_holds_are_cut_to_its_limit_and_said() -> None:
    start = datetime(2026, 12, 3, 8, tzinfo=UTC)
    slots = [
        {"start": start + timedelta(minutes=30 * i), "end": start + timedelta(minutes=30 * i + 30)}
        for i in range(150)
    ]
    card = MeetingSchedulerCard.model_validate(
        {
            "type": "show_meeting_scheduler",
            "id": "d2",
            "title": "Sync",
            "attendees": [resolved(PRIYA).to_wire()],
            "timezone": "Europe/Berlin",
            "slots": slots,
        }
    )
    blocks = valid(card_message(card, "Meeting with Priya", page_url=PAGE, now=NOW).blocks)
    [select] = [
        e for b in blocks if b["type"] == "actions" for e in b["elements"] if e["type"] == "static_select"
    ]
    assert len(select["options"]) == MAX_OPTIONS
    assert select["options"][0]["text"]["text"] == "Thu 3 Dec 09:00-09:30"  # in the card's zone
    assert any(PAGE in text for text in texts(blocks))


def test_a_candidate_with_a_very_long_name_is_an_option_within_its_75_characters() -> None:
    long = Person(id="p9", display_name="Z" * 190, email="z@example.com")
    card = EmailDraftCard(
        type="show_new_email_draft",
        id="d1",
        subject="S",
        body="B",
        to=(NameResolution(query="Zed", status=Resolution.AMBIGUOUS, candidates=(long, PRIYA)),),
    )
    blocks = valid(card_message(card, "Email", now=NOW).blocks)
    [pick] = [
        e for b in blocks if b["type"] == "actions" for e in b["elements"] if e["type"] == "static_select"
    ]
    assert pick["action_id"] == "mt:pick:to:0"
    assert all(len(o["text"]["text"]) <= 75 for o in pick["options"])


class ReminderPayload(BaseModel):
    """A card type this module has never heard of, as another tool would declare it."""

    action: Literal["show_reminder"] = "show_reminder"
    draft_id: str
    what: str
    for_whom: tuple[NameResolution, ...] = ()
    repeat: int = 1


def test_a_new_card_type_renders_from_its_model_with_no_slack_code() -> None:
    card_model = payload_card(ReminderPayload)
    card = card_model.model_validate(
        {
            "action": "show_reminder",
            "draftId": "d7",
            "what": "Water the plants",
            "forWhom": [resolved(PRIYA).to_wire()],
            "repeat": 3,
        }
    )
    blocks = valid(card_message(card, "Reminder for Priya", now=NOW).blocks)
    shown = "\n".join(texts(blocks))
    assert "*What:* Water the plants" in shown
    assert "*For whom:* Priya Natarajan · 15:00 Thu" in shown
    assert "*Repeat:* 3" in shown
    assert [e["value"] for e in blocks[-1]["elements"]] == ["d7", "d7", "d7"]


def test_a_card_of_more_fields_than_a_message_holds_keeps_its_buttons_and_links_the_page() -> None:
    fields: dict[str, Any] = {f"part{i}": (str, ...) for i in range(70)}
    from pydantic import create_model

    many = create_model(
        "ManyPayload", action=(Literal["show_many"], "show_many"), draft_id=(str, ...), **fields
    )
    card = payload_card(many).model_validate(
        {"action": "show_many", "draftId": "d8", **{f"part{i}": "x" * 200 for i in range(70)}}
    )
    blocks = valid(card_message(card, "Many", page_url=PAGE, now=NOW).blocks)
    assert len(blocks) == MAX_BLOCKS
    assert blocks[-1]["block_id"] == "buttons"
    assert any(PAGE in text for text in texts(blocks))


@pytest.mark.parametrize(
    ("held", "status", "result", "words"),
    [
        ("sent", "done", {"messageId": "m1"}, ":white_check_mark: Sent"),
        ("booked", "done", {"bookingId": "d2"}, ":white_check_mark: Booked"),
        (
            "created",
            "done",
            {"issueKey": "WEB-12", "issueUrl": "https://acme.atlassian.net/browse/WEB-12"},
            ":white_check_mark: Created <https://acme.atlassian.net/browse/WEB-12|WEB-12>",
        ),
        ("sent", "discarded", None, ":wastebasket: Discarded: nothing was sent, booked or created."),
    ],
)
def test_the_outcome_says_what_was_done_with_its_link(
    held: str, status: str, result: dict[str, Any] | None, words: str
) -> None:
    assert outcome_words(held, status, result, None) == words


def test_the_app_knows_the_edit_modal_by_the_modals_own_callback_id() -> None:
    from multitool.slack.app import EDIT_CALLBACK_ID
    from multitool.slack.modal import CALLBACK_ID

    assert EDIT_CALLBACK_ID == CALLBACK_ID


def test_the_connect_cards_type_named_by_the_app_is_the_cards() -> None:
    from multitool.slack.app import CONNECT_ACTION as APP_CONNECT
    from multitool.toolkit.connect import CONNECT_ACTION

    assert APP_CONNECT == CONNECT_ACTION


def test_the_connect_card_names_the_account_and_links_the_consent_with_no_draft_buttons() -> None:
    from multitool.slack.blocks import AFTER_CONFIRM, connect_message

    url = "https://bedrock-agentcore.us-east-1.amazonaws.com/identities/oauth2/authorize?request_uri=a1"
    message = connect_message("Microsoft 365", url, after=AFTER_CONFIRM)
    blocks = valid(message.blocks)
    [words] = texts(blocks)
    assert "*Connect your Microsoft 365 account*" in words
    assert "nothing was sent" in words
    assert AFTER_CONFIRM in words
    [button] = [e for b in blocks if b["type"] == "actions" for e in b["elements"]]
    assert (button["url"], button["text"]["text"]) == (url, "Connect Microsoft 365")
    assert button["action_id"] == "mt:connect"  # not a Confirm, Edit or Discard: the app ignores it
    assert message.text == "Connect your Microsoft 365 account to go on: nothing was sent."


def test_a_link_past_a_buttons_url_limit_is_words_pointing_to_the_page() -> None:
    from multitool.slack.blocks import MAX_BUTTON_URL_CHARS, connect_message

    long_url = "https://bedrock-agentcore.example/authorize?request_uri=" + "a" * MAX_BUTTON_URL_CHARS
    blocks = valid(connect_message("Google Workspace", long_url, page_url=PAGE).blocks)
    assert not [b for b in blocks if b["type"] == "actions"]
    assert PAGE in " ".join(texts(blocks))
