"""Cards in Slack, clicked as Slack sends the clicks: Confirm (with the choices made on the message),
Discard, Edit (the modal, its submission validated by the review's own code), another user's click,
and the message updated in place with the outcome; on moto, the Web API on loopback."""

from __future__ import annotations

import json
from typing import Any

import boto3
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends
from multitool.ports.drafts import DynamoDraftStore
from slack_sdk.models.views import View

from tests.support.slack_env import ALEX, COMBINED, assert_valid_blocks, handle, run_launched, slack
from tests.support.slack_wire import (
    block_actions,
    dm,
    envelope,
    event_request,
    interaction_request,
    slack_user,
    view_submission,
)

__all__ = ["slack"]  # the fixture
OTHER = "U0PRIYA01"
CHANNEL = "D0DM00001"


def sent_mail() -> list[Any]:
    return list(ses_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].sent_messages)


def cards_of(
    slack: dict[str, Any], text: str = COMBINED, event_id: str = "Ev0CARDS01"
) -> list[dict[str, Any]]:
    """Run a DM's turn; the card messages as posted, each with its ts."""
    slack["launches"].expect()
    handle(event_request(envelope(dm(ALEX, text), event_id=event_id)))
    run_launched(slack)
    posts = slack["api"].of("chat.postMessage")
    return [
        {"ts": post["answer"]["ts"], "blocks": post.params["blocks"], "text": post.params["text"]}
        for post in posts
        if "blocks" in post.params
    ]


def button(message: dict[str, Any], name: str) -> dict[str, Any]:
    buttons = message["blocks"][-1]["elements"]
    found = next(b for b in buttons if b["action_id"] == f"mt:{name}")
    return {**found, "block_id": message["blocks"][-1]["block_id"]}


def click(
    slack: dict[str, Any], user: str, message: dict[str, Any], name: str, state: Any = None
) -> dict[str, Any]:
    payload = block_actions(
        user,
        button(message, name),
        message={
            "type": "message",
            "ts": message["ts"],
            "text": message["text"],
            "blocks": message["blocks"],
        },
        channel=CHANNEL,
        state=state,
    )
    if name == "edit":  # acted on in the request: its trigger_id lives three seconds
        return handle(interaction_request(payload))
    # A Confirm or a Discard is answered at once and acted on by the asynchronous invocation it
    # launched, run here as Lambda would run it.
    launched = len(slack["launches"].sent)
    slack["launches"].expect()
    answer = handle(interaction_request(payload))
    assert answer == {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": ""}
    assert len(slack["launches"].sent) == launched + 1
    assert json.loads(slack["launches"].sent[-1]["Payload"]) == {"multitoolSlackClick": payload}
    assert run_launched(slack) == {"status": "done"}
    return answer


def draft(slack: dict[str, Any], draft_id: str) -> Any:
    return DynamoDraftStore(slack["tables"]["DRAFTS_TABLE_NAME"], boto3.client("dynamodb")).get(draft_id)


def test_confirm_sends_once_and_updates_the_message_in_place(slack: dict[str, Any]) -> None:
    email, _meeting = cards_of(slack)
    draft_id = button(email, "confirm")["value"]
    assert click(slack, ALEX, email, "confirm")["statusCode"] == 200
    assert [m.destinations["ToAddresses"] for m in sent_mail()] == [["kinshuok@example.com"]]
    [update] = slack["api"].of("chat.update")
    assert (update.params["channel"], update.params["ts"]) == (CHANNEL, email["ts"])
    assert ":white_check_mark: Sent" in json.dumps(update.params["blocks"])
    assert all(b["type"] != "actions" for b in update.params["blocks"])  # no buttons left
    assert_valid_blocks(update.params["blocks"])
    assert draft(slack, draft_id).status == "done"

    click(slack, ALEX, email, "confirm")  # an old message's button, clicked again
    assert len(sent_mail()) == 1


def test_another_users_click_is_refused_in_an_ephemeral_note_and_nothing_happens(
    slack: dict[str, Any],
) -> None:
    slack["api"].users[OTHER] = slack_user(OTHER, "priya@example.com")
    email, _meeting = cards_of(slack)
    for name in ("confirm", "discard", "edit"):
        assert click(slack, OTHER, email, name)["statusCode"] == 200
    notes = slack["api"].of("chat.postEphemeral")
    assert [n.params["user"] for n in notes] == [OTHER] * 3
    assert all(f"This card is <@{ALEX}>'s" in n.params["text"] for n in notes)
    assert sent_mail() == []
    assert slack["api"].of("chat.update") == []
    assert slack["api"].of("views.open") == []
    assert draft(slack, button(email, "confirm")["value"]).status == "proposed"


def test_discard_marks_the_message_and_sends_nothing(slack: dict[str, Any]) -> None:
    email, _meeting = cards_of(slack)
    click(slack, ALEX, email, "discard")
    [update] = slack["api"].of("chat.update")
    assert "Discarded" in json.dumps(update.params["blocks"])
    assert sent_mail() == []
    click(slack, ALEX, email, "confirm")
    [note] = slack["api"].of("chat.postEphemeral")
    assert "discarded" in note.params["text"]


def test_confirm_books_the_slot_chosen_on_the_message(slack: dict[str, Any]) -> None:
    _email, meeting = cards_of(slack)
    [select] = [
        e
        for b in meeting["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e["type"] == "static_select"
    ]
    chosen = select["options"][1]
    state = {"choices": {"mt:slot": {"type": "static_select", "selected_option": chosen}}}
    click(slack, ALEX, meeting, "confirm", state)
    stored = draft(slack, button(meeting, "confirm")["value"])
    assert stored.status == "done"
    assert stored.result["start"] == stored.payload["slots"][1]["start"]
    [update] = slack["api"].of("chat.update")
    assert_valid_blocks(update.params["blocks"])
    shown = json.dumps(update.params["blocks"])
    assert "Booked" in shown
    # The message shows the slot booked, not the choice of slots the card was drafted with.
    assert f"*Slots:* {chosen['text']['text']}" in shown
    assert "to choose from" not in shown
    assert all(o["text"]["text"] not in shown for o in select["options"] if o != chosen)
    assert "3 proposed slots" not in update.params["text"]


def test_an_ambiguous_name_is_settled_with_the_select_on_the_message(slack: dict[str, Any]) -> None:
    [email] = cards_of(slack, "Email Zoe about the launch", event_id="Ev0ZOE0001")
    picks = [
        e
        for b in email["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e["type"] == "static_select"
    ]
    assert [p["action_id"] for p in picks] == ["mt:pick:to:0"]
    assert {o["value"] for o in picks[0]["options"]} == {"p-zoe-m", "p-zoe-p"}
    click(slack, ALEX, email, "confirm")  # nothing chosen: the reviewer refuses, in words
    assert "Zoe" in slack["api"].of("chat.postEphemeral")[0].params["text"]
    assert sent_mail() == []
    park = next(o for o in picks[0]["options"] if o["value"] == "p-zoe-p")
    click(
        slack,
        ALEX,
        email,
        "confirm",
        {"choices": {"mt:pick:to:0": {"type": "static_select", "selected_option": park}}},
    )
    assert [m.destinations["ToAddresses"] for m in sent_mail()] == [["zoe.park@example.com"]]


def test_edit_opens_a_modal_whose_submission_is_validated_as_the_review_api_validates(
    slack: dict[str, Any],
) -> None:
    email, _meeting = cards_of(slack)
    click(slack, ALEX, email, "edit")
    [opened] = slack["api"].of("views.open")
    view = opened.params["view"]
    assert View(**view).to_dict() == view  # a valid modal by the SDK's model
    inputs = {b["block_id"]: b for b in view["blocks"] if b["type"] == "input"}
    assert set(inputs) == {"e:to", "e:cc", "e:subject", "e:body"}
    assert inputs["e:to"]["element"]["initial_value"] == "kinshuok@example.com"

    bad = view_submission(
        ALEX, view, {"e:to": {"value": {"type": "plain_text_input", "value": "not a person"}}}
    )
    answer = handle(interaction_request(bad))
    assert answer["statusCode"] == 200
    errors = json.loads(answer["body"])
    assert errors["response_action"] == "errors"
    assert list(errors["errors"]) == ["e:to"]
    assert sent_mail() == []

    values = {
        "e:to": {"value": {"type": "plain_text_input", "value": "kinshuok@example.com, priya@example.com"}},
        "e:subject": {"value": {"type": "plain_text_input", "value": "The doc, revised"}},
    }
    answer = handle(interaction_request(view_submission(ALEX, view, values)))
    assert answer["body"] == ""  # closes the modal
    [mail] = sent_mail()
    assert mail.destinations["ToAddresses"] == ["kinshuok@example.com", "priya@example.com"]
    assert mail.subject == "The doc, revised"
    [update] = slack["api"].of("chat.update")
    assert update.params["ts"] == email["ts"]
    assert_valid_blocks(update.params["blocks"])
    # The message shows the mail as sent: the edited subject and both recipients, not the draft's.
    shown = json.dumps(update.params["blocks"])
    assert "*Subject:* The doc, revised" in shown
    assert "Priya" in shown
    assert "Kinshuok" in shown
    drafted = next(b for b in email["blocks"] if "*Subject:*" in json.dumps(b))
    assert json.dumps(drafted) not in shown
    assert update.params["text"].endswith("The doc, revised")  # the caption too


def test_an_edit_by_chat_posts_the_revised_card_and_marks_the_one_it_replaced(slack: dict[str, Any]) -> None:
    [sync] = cards_of(slack, "Schedule a sync with Priya on Thursday", event_id="Ev0SYNC001")
    slack["launches"].expect()
    handle(
        event_request(envelope(dm(ALEX, "make it 45 minutes", ts="1765000009.000900"), event_id="Ev0SYNC002"))
    )
    run_launched(slack)
    longer = slack["api"].of("chat.postMessage")[-1]
    assert "45" in json.dumps(longer.params["blocks"])
    [update] = slack["api"].of("chat.update")
    assert (update.params["channel"], update.params["ts"]) == (CHANNEL, sync["ts"])
    assert "Replaced by the revised card below" in json.dumps(update.params["blocks"])
    assert_valid_blocks(update.params["blocks"])
    assert draft(slack, button(sync, "confirm")["value"]).status == "superseded"


def test_an_edit_whose_trigger_expired_says_to_click_again(slack: dict[str, Any]) -> None:
    email, _meeting = cards_of(slack)
    slack["api"].refuse("views.open", "expired_trigger_id")
    click(slack, ALEX, email, "edit")
    [note] = slack["api"].of("chat.postEphemeral")
    assert note.params["text"] == "The form could not open in time: click Edit again."


def test_a_click_whose_invocation_cannot_be_launched_is_acted_on_in_the_request(
    slack: dict[str, Any],
) -> None:
    email, _meeting = cards_of(slack)
    slack["launches"].stubber.add_client_error("invoke", "TooManyRequestsException", http_status_code=429)
    payload = block_actions(
        ALEX,
        button(email, "confirm"),
        message={"type": "message", "ts": email["ts"], "text": email["text"], "blocks": email["blocks"]},
        channel=CHANNEL,
    )
    assert handle(interaction_request(payload))["statusCode"] == 200
    assert [m.destinations["ToAddresses"] for m in sent_mail()] == [["kinshuok@example.com"]]
    assert ":white_check_mark: Sent" in json.dumps(slack["api"].of("chat.update")[0].params["blocks"])
