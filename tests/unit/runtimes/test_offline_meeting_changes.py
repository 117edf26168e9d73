"""The offline model on meetings that already exist: the issue's phrases become move_meeting,
cancel_meeting and answer_invitation calls with the meeting as said (its people, day and words)
and the new time through the time contract; edits by chat change those cards."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from multitool.runtimes.converse import tool_specs_from_registry
from multitool.runtimes.offline import OfflineModel, edits
from multitool.runtimes.prompts import system_prompt

TOOLS = {"tools": tool_specs_from_registry()}
NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)  # Monday 7 December 2026
SYSTEM = [{"text": system_prompt(timezone="Europe/London", now=NOW)}]


def calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    response = OfflineModel().converse(
        modelId="offline",
        messages=[{"role": "user", "content": [{"text": text}]}],
        system=SYSTEM,
        toolConfig=TOOLS,
    )
    return [
        (b["toolUse"]["name"], b["toolUse"]["input"])
        for b in response["output"]["message"]["content"]
        if "toolUse" in b
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "move my sync with Priya to Friday afternoon",
            (
                "move_meeting",
                {
                    "meeting": {"said": "my sync with Priya", "people": ["Priya"], "words": ["sync"]},
                    "when": "Friday afternoon",
                    "times": ["2026-12-11T13:00/17:00"],
                },
            ),
        ),
        (
            "push the 1:1 30 minutes later",
            ("move_meeting", {"meeting": {"said": "the 1:1", "words": ["1:1"]}, "shiftMinutes": 30}),
        ),
        (
            "make tomorrow's standup 15 minutes",
            (
                "move_meeting",
                {
                    "meeting": {
                        "said": "tomorrow's standup",
                        "words": ["standup"],
                        "fromDay": "2026-12-08",
                        "toDay": "2026-12-08",
                    },
                    "durationMinutes": 15,
                },
            ),
        ),
        (
            "cancel tomorrow's sync with Priya, say I'm sick",
            (
                "cancel_meeting",
                {
                    "meeting": {
                        "said": "tomorrow's sync with Priya",
                        "people": ["Priya"],
                        "words": ["sync"],
                        "fromDay": "2026-12-08",
                        "toDay": "2026-12-08",
                    },
                    "message": "I'm sick",
                },
            ),
        ),
        (
            "cancel next Monday's 1:1 only",
            (
                "cancel_meeting",
                {
                    "meeting": {
                        "said": "next Monday's 1:1 only",
                        "words": ["1:1"],
                        "fromDay": "2026-12-14",
                        "toDay": "2026-12-14",
                    },
                    "scope": "occurrence",
                },
            ),
        ),
        (
            "push the whole weekly sync series 30 minutes later",
            (
                "move_meeting",
                {
                    "meeting": {"said": "the whole weekly sync series", "words": ["weekly", "sync"]},
                    "shiftMinutes": 30,
                    "scope": "series",
                },
            ),
        ),
        (
            "cancel the whole weekly sync series",
            (
                "cancel_meeting",
                {
                    "meeting": {"said": "the whole weekly sync series", "words": ["weekly", "sync"]},
                    "scope": "series",
                },
            ),
        ),
        (
            "accept Mei's offsite planning",
            (
                "answer_invitation",
                {
                    "meeting": {
                        "said": "Mei's offsite planning",
                        "people": ["Mei"],
                        "words": ["offsite", "planning"],
                    },
                    "response": "accepted",
                },
            ),
        ),
        (
            "decline the Friday retro, I'm out",
            (
                "answer_invitation",
                {
                    "meeting": {
                        "said": "the Friday retro",
                        "words": ["retro"],
                        "fromDay": "2026-12-11",
                        "toDay": "2026-12-11",
                    },
                    "response": "declined",
                    "message": "I'm out",
                },
            ),
        ),
        (
            "pull the design review forward by an hour",
            (
                "move_meeting",
                {
                    "meeting": {"said": "the design review", "words": ["design", "review"]},
                    "shiftMinutes": -60,
                },
            ),
        ),
    ],
)
def test_the_issues_phrases_are_one_call_each(text: str, expected: tuple[str, dict[str, Any]]) -> None:
    assert calls(text) == [expected]


def test_a_move_and_an_email_about_why_in_one_message() -> None:
    (move, email) = calls("move my sync with Priya to Friday and email her why")

    assert move == (
        "move_meeting",
        {
            "meeting": {"said": "my sync with Priya", "people": ["Priya"], "words": ["sync"]},
            "when": "Friday",
            "times": ["2026-12-11"],
        },
    )
    assert email[0] == "create_email_draft"
    assert email[1]["to"] == ["Priya"]
    assert "why I moved my sync with Priya" in email[1]["body"]


def test_editing_it_to_a_time_or_a_message_changes_the_card() -> None:
    cards = [
        edits.Card(
            "move_meeting", {"meeting": {"said": "the 1:1", "words": ["1:1"]}, "shiftMinutes": 30}, "d-move"
        ),
        edits.Card("cancel_meeting", {"meeting": {"said": "the sync"}, "message": "I'm sick"}, "d-cancel"),
    ]

    thursday, _ = edits.revise("actually make it Thursday", cards[:1], None)
    late, _ = edits.revise("say I'm running late instead", cards, None)

    assert thursday is not None
    assert thursday.args == {
        "meeting": {"said": "the 1:1", "words": ["1:1"]},
        "when": "Thursday",
        "revises": "d-move",
    }
    assert late is not None
    assert late.args["message"] == "I'm running late"
    assert late.revises == "d-cancel"


def test_moving_a_card_by_chat_is_not_a_meeting_move() -> None:
    assert calls("move it to Friday") == []  # an edit of a card: none in this conversation
