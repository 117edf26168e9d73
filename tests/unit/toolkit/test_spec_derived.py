"""What a tool's spec derives instead of asking for it again: the action string from the payload
model's ``action`` Literal, a card from the payload's fields with a fingerprint of them, and a
confirm's content as the edits laid over what came before."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

import pytest
from multitool.drafts import new_draft
from multitool.toolkit.cards import Card, CardSpec, fields_fingerprint, literal_action, payload_card
from multitool.toolkit.common import Prepared
from multitool.toolkit.confirm import ActionReview, Caller, ReviewConfig, ReviewContext, overlaid
from multitool.toolkit.spec import ToolSpec
from multitool.tools import REGISTRY
from multitool.wire import WireModel
from pydantic import Field, ValidationError


class NotePayload(WireModel):
    action: Literal["show_note"] = "show_note"
    draft_id: str
    title: str = Field(max_length=80, description="The note's title")
    tags: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


class NoteEdits(WireModel):
    title: str | None = None
    tags: tuple[str, ...] | None = None


class NoteContent(WireModel):
    title: str
    tags: tuple[str, ...] = ()


NOTE_REVIEW = ActionReview.overlay(NoteEdits, NoteContent, lambda *_: {})


def spec(
    payload_model: type[WireModel] = NotePayload,
    card: CardSpec[Any] | None = None,
    review: ActionReview[Any, Any] | str = NOTE_REVIEW,
) -> ToolSpec:
    return ToolSpec(
        name="create_note",
        action_group="note",
        api_path="/notes",
        args_model=NoteContent,
        payload_model=payload_model,
        description="Draft a note.",
        prepare=lambda args, ctx, config: Prepared(names=[], finish=lambda *_: {}),
        card=card or CardSpec.of_payload(NotePayload, caption=lambda card: card.title),
        review=review,
        group_description="Drafts notes.",
        nouns=("a note", "notes"),
    )


def test_the_action_is_read_from_the_payload_models_literal() -> None:
    assert spec().action == "show_note"
    assert {s.action for s in REGISTRY.values()} == {
        "show_new_email_draft",
        "show_email_reply",
        "show_email_forward",
        "show_meeting_scheduler",
        "show_jira_ticket_draft",
        "show_meeting_move",
        "show_meeting_cancel",
        "show_invitation_answer",
        "show_agenda",
        "show_free_times",
        "show_jira_comment",
        "show_jira_transition",
        "show_jira_update",
        "show_jira_link",
    }


def test_a_review_given_in_place_is_the_review() -> None:
    assert spec().action_review() is NOTE_REVIEW


def test_a_review_named_by_module_and_name_is_imported_when_first_asked_for() -> None:
    named = spec(review=f"{__name__}:NOTE_REVIEW")

    assert named.review == f"{__name__}:NOTE_REVIEW"
    assert named.action_review() is NOTE_REVIEW


@pytest.mark.parametrize(
    "review", ["NOTE_REVIEW", "tests.unit:", ":NOTE_REVIEW", "a..b:NAME", "a.b:NOT-A-NAME"]
)
def test_a_review_that_names_no_module_and_name_is_refused(review: str) -> None:
    with pytest.raises(TypeError, match=f"create_note: its review '{review}' is not 'package.module:NAME'"):
        spec(review=review)


def test_each_tool_names_its_confirm_in_a_module_of_its_own() -> None:
    # The propose side (the action groups, the orchestrator) never imports a confirm.
    reviews = {s.name: s.action_review() for s in REGISTRY.values()}

    assert all(isinstance(s.review, str) for s in REGISTRY.values())
    assert {name: review.edits_model.__name__ for name, review in reviews.items()} == {
        "create_email_draft": "EmailEdits",
        "reply_to_email": "ReplyEdits",
        "forward_email": "ForwardEdits",
        "propose_meeting": "MeetingEdits",
        "create_jira_ticket_draft": "JiraEdits",
        "move_meeting": "MoveEdits",
        "cancel_meeting": "CancelEdits",
        "answer_invitation": "AnswerEdits",
        "show_calendar": "AgendaEdits",
        "find_free_time": "FreeTimeEdits",
        "comment_on_jira_issue": "CommentEdits",
        "transition_jira_issue": "TransitionEdits",
        "update_jira_issue": "UpdateEdits",
        "link_jira_issues": "LinkEdits",
    }
    assert all(isinstance(review, ActionReview) for review in reviews.values())


def test_a_payload_without_a_literal_action_is_refused_naming_the_field() -> None:
    class Loose(WireModel):
        action: str = "show_note"
        draft_id: str

    with pytest.raises(TypeError, match=r"Loose\.action must be a Literal of one string"):
        literal_action(Loose, "action")


def test_a_card_whose_type_is_not_the_payloads_action_is_refused() -> None:
    class OtherCard(Card):
        type: Literal["show_other"] = "show_other"

    with pytest.raises(TypeError, match="card's type is 'show_other', its payload's 'show_note'"):
        spec(card=CardSpec(OtherCard, fields_fingerprint, lambda card: ""))


def test_the_derived_card_has_the_payloads_own_fields_and_its_action_as_type() -> None:
    card_model = payload_card(NotePayload)

    card = card_model.model_validate(
        {"action": "show_note", "draftId": "d_1", "title": "Milk", "tags": ["home"], "extra": 1}
    )

    assert card_model.__name__ == "NoteCard"
    assert card.to_wire() == {
        "type": "show_note",
        "id": "d_1",
        "title": "Milk",
        "tags": ["home"],
        "notes": [],
        "revises": None,
        "links": [],
    }
    schema = card_model.model_json_schema(mode="serialization")
    assert schema["properties"]["title"]["maxLength"] == 80
    assert schema["properties"]["type"]["const"] == "show_note"
    with pytest.raises(ValidationError):
        card_model.model_validate({"action": "show_other", "draftId": "d_1", "title": "Milk"})


def test_the_default_fingerprint_tells_cards_apart_by_their_own_fields_only() -> None:
    card_model = payload_card(NotePayload)

    def card(draft_id: str, title: str, tags: list[str]) -> Card:
        return card_model.model_validate({"type": "show_note", "id": draft_id, "title": title, "tags": tags})

    assert fields_fingerprint(card("d_1", "Buy  MILK", ["a"])) == fields_fingerprint(
        card("d_2", "buy milk", ["a"])
    )
    assert fields_fingerprint(card("d_1", "Buy milk", ["a"])) != fields_fingerprint(
        card("d_1", "Buy milk", ["b"])
    )


def review_context(payload: dict[str, Any]) -> ReviewContext:
    draft = new_draft(
        owner="user-1",
        session_id="s-1",
        action="show_note",
        arguments=["create_note", {}],
        payload=payload,
        now=datetime(2026, 12, 1, tzinfo=UTC),
    )
    return ReviewContext(
        draft=draft, caller=Caller("user-1"), config=ReviewConfig("a@example.com"), people={}
    )


def test_the_default_content_lays_the_edits_over_the_confirmed_content_else_the_payload() -> None:
    review = ActionReview.overlay(NoteEdits, NoteContent, lambda *_: {})
    ctx = review_context({"action": "show_note", "title": "Milk", "tags": ["home"], "notes": []})

    first = review.content(NoteEdits(), None, ctx)
    edited = review.content(NoteEdits(title="Oat milk"), None, ctx)
    again = review.content(NoteEdits(tags=("shop",)), edited, ctx)

    assert first == NoteContent(title="Milk", tags=("home",))
    assert edited == NoteContent(title="Oat milk", tags=("home",))
    assert again == NoteContent(title="Oat milk", tags=("shop",))


def test_default_content_that_is_not_valid_content_raises_for_the_reviewer_to_answer() -> None:
    with pytest.raises(ValidationError):
        overlaid(NoteContent, NoteEdits(), None, {"action": "show_note", "tags": []})
