"""The offline grammar reads replies and forwards (multitool.runtimes.offline.answers): the message as
the user said it (its sender's name as people, its other words as words), reply or reply all, the
text, whom a forward goes to and its note; with another request in the same message, both calls in
the order said. Every call is one its tool accepts."""

from __future__ import annotations

from typing import Any

import pytest
from multitool.tools import REGISTRY

from tests.unit.runtimes.test_offline_phrasings import Row, answer, uses


def calls(message: str) -> list[tuple[str, dict[str, Any]]]:
    made = [(c["name"], c["input"]) for c in uses(answer(Row(message)))]
    for name, arguments in made:
        REGISTRY[name].args_model.model_validate(arguments)
    return made


def test_a_reply_names_the_message_by_sender_and_words_and_carries_the_text() -> None:
    [(name, args)] = calls("reply to Priya's email about the budget: sounds good, let's do Thursday")

    assert name == "reply_to_email"
    assert args == {
        "message": {"said": "Priya's email about the budget", "people": ["Priya"], "words": ["budget"]},
        "body": "Sounds good, let's do Thursday",
    }


def test_reply_all_without_a_message_named_answers_the_latest() -> None:
    [(name, args)] = calls("reply all and say I'm in")

    assert name == "reply_to_email"
    assert args == {"message": {"said": "my last email"}, "body": "I'm in", "replyAll": True}


def test_a_forward_names_the_message_its_recipients_and_its_note() -> None:
    [(name, args)] = calls(
        "forward the invoice from Mei to accounting@acme.com with a note: please pay by Friday"
    )

    assert name == "forward_email"
    assert args == {
        "message": {"said": "the invoice from Mei", "people": ["Mei"], "words": ["invoice"]},
        "to": ["accounting@acme.com"],
        "note": "Please pay by Friday",
    }


def test_a_forward_said_without_a_note_has_none() -> None:
    [(_, args)] = calls("forward the invoice from Mei to accounting@acme.com with a note")

    assert "note" not in args


def test_a_reply_beside_another_request_makes_both_calls_in_the_order_said() -> None:
    made = calls("reply to Priya's email and file a WEB bug for what she reported")

    assert [name for name, _ in made] == ["reply_to_email", "create_jira_ticket_draft"]
    assert made[0][1]["message"] == {"said": "Priya's email", "people": ["Priya"]}
    assert made[1][1]["project"] == "WEB"


@pytest.mark.parametrize(
    "message",
    [
        "Email Kinshuok about the doc",
        "Schedule a sync with Priya on Thursday",
        "please send the report to Mei",
    ],
)
def test_a_message_without_a_reply_or_forward_reads_as_before(message: str) -> None:
    assert all(name not in ("reply_to_email", "forward_email") for name, _ in calls(message))


def test_a_reply_with_no_text_gets_a_plain_acknowledgement_the_card_lets_the_user_change() -> None:
    [(_, args)] = calls("reply to Alex")

    assert args == {"message": {"said": "Alex", "people": ["Alex"]}, "body": "Thanks, I'm on it."}
