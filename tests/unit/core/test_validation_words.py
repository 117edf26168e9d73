"""multitool.validation's words: never the model's class name, whatever pydantic says."""

from __future__ import annotations

import pytest
from multitool.chat.service import ChatRequest
from multitool.tools.meeting.booking import MeetingEdits
from multitool.validation import first_field, problems
from pydantic import ValidationError


@pytest.mark.parametrize(
    ("validate", "words", "field"),
    [
        (lambda: MeetingEdits.model_validate({"slot": "tomorrow"}), "slot: must be a JSON object", "slot"),
        (lambda: ChatRequest.model_validate_json("[1, 2]"), "body: must be a JSON object", "body"),
        (lambda: ChatRequest.model_validate_json('{"message": '), "body: must be valid JSON", "body"),
        (lambda: ChatRequest.model_validate_json("{}"), "message: is missing", "message"),
    ],
)
def test_problems_name_the_field_and_no_internal_class(validate, words: str, field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        validate()

    assert problems(caught.value) == words
    assert first_field(caught.value) == field
    assert "Slot" not in problems(caught.value)
    assert "ChatRequest" not in problems(caught.value)
