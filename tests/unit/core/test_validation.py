"""One field-path style and one message format for every API's validation errors."""

from __future__ import annotations

import pytest
from multitool.validation import field_path, first_field, problems
from pydantic import BaseModel, Field, ValidationError


class _Slot(BaseModel):
    start: str


class _Body(BaseModel):
    to: list[str] = Field(min_length=1)
    subject: str
    slot: _Slot | None = None


def _error(data: object) -> ValidationError:
    with pytest.raises(ValidationError) as raised:
        _Body.model_validate(data)
    return raised.value


def test_field_paths_read_like_the_wire() -> None:
    assert field_path(("to", 0)) == "to[0]"
    assert field_path(("slot", "start")) == "slot.start"
    assert field_path(("attendees", 2, "email")) == "attendees[2].email"
    assert field_path(()) == "body"


def test_the_request_body_itself_is_not_part_of_a_path() -> None:
    # Powertools locates body fields under "body": the same field reads the same from every API.
    assert field_path(("body", "to", 0)) == "to[0]"
    assert field_path(("body",)) == "body"
    assert field_path(("slot", "body")) == "slot.body"


def test_problems_name_each_field_and_never_echo_the_input() -> None:
    error = _error({"to": ["secret-value", 7], "slot": {}})

    text = problems(error)

    assert text == "to[1]: Input should be a valid string; subject: is missing; slot.start: is missing"
    assert "secret-value" not in text
    assert first_field(error) == "to[1]"


def test_a_body_that_is_not_an_object_is_named_body() -> None:
    error = _error("nope")

    assert first_field(error) == "body"
    assert problems(error).startswith("body: ")
    assert problems(error, empty="payload").startswith("payload: ")
