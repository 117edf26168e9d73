"""The dataset: JSON Lines cases, each a user, a message, its history and the cards expected."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError, field_validator

from multitool.wire import WireModel

CARD_TYPES = (
    "show_new_email_draft",
    "show_email_reply",
    "show_email_forward",
    "show_meeting_scheduler",
    "show_jira_ticket_draft",
)
PEOPLE_FIELDS = frozenset({"to", "cc", "attendees", "assignee"})
AMBIGUOUS = "?"
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
RELATIVE_DAY = re.compile(r"^\+(\d{1,3})$")


class DatasetError(ValueError):
    """A dataset line that cannot be a case: ``file:line: what to change``."""


def _check_day(value: str) -> str:
    text = value.strip().casefold()
    if text in WEEKDAYS or text == "today" or RELATIVE_DAY.match(text):
        return text
    try:
        date.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"day must be a weekday name, 'today', '+N' or an ISO date (2026-12-03), not {value!r}"
        ) from None
    return text


class ExpectedCard(WireModel):
    """One card the message must produce; every field besides ``type`` is compared as listed."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    type: Literal[
        "show_new_email_draft",
        "show_email_reply",
        "show_email_forward",
        "show_meeting_scheduler",
        "show_jira_ticket_draft",
    ]

    @property
    def fields(self) -> dict[str, Any]:
        """The listed fields (wire names), ``type`` left out."""
        return dict(self.model_extra or {})

    @field_validator("type", mode="before")
    @classmethod
    def _known_type(cls, value: Any) -> Any:
        if value not in CARD_TYPES:
            raise ValueError(f"type must be one of {', '.join(CARD_TYPES)}, not {value!r}")
        return value

    def model_post_init(self, _context: Any) -> None:
        for name, value in self.fields.items():
            if name in PEOPLE_FIELDS:
                people = [value] if name == "assignee" and isinstance(value, str) else value
                if not isinstance(people, list) or not all(isinstance(p, str) and p for p in people):
                    raise ValueError(f"{name} must be a list of directory ids, addresses or '?'")
            elif name == "day":
                if not isinstance(value, str):
                    raise ValueError("day must be a string")
                _check_day(value)
            elif name == "durationMinutes" and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError("durationMinutes must be a whole number of minutes")


class Expectation(WireModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    cards: tuple[ExpectedCard, ...] = ()
    asks: bool = False

    def model_post_init(self, _context: Any) -> None:
        if self.asks and self.cards:
            raise ValueError("asks: true means no card is right; list no cards with it")
        if not self.asks and not self.cards:
            raise ValueError("list the cards the message must produce, or set asks: true")


class HistoryMessage(WireModel):
    """An earlier user message as an object (a plain string is the same)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    role: Literal["user"] = "user"
    text: str = Field(min_length=1)


class Case(WireModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str = Field(min_length=1, max_length=100)
    user: str = Field(min_length=1)
    message: str = Field(min_length=1)
    history: tuple[str | HistoryMessage, ...] = ()
    expect: Expectation
    note: str | None = Field(default=None, description="Why the case expects what it does (not scored)")

    @property
    def earlier_messages(self) -> tuple[str, ...]:
        return tuple(m if isinstance(m, str) else m.text for m in self.history)


def load_cases(paths: Sequence[Path]) -> tuple[Case, ...]:
    """Every case of every file, in order; :class:`DatasetError` names the file, line and field."""
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as error:
            raise DatasetError(f"{path}: cannot read it ({error.strerror or error})") from None
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                case = Case.model_validate_json(line)
            except ValidationError as error:
                first = error.errors()[0]
                place = ".".join(str(p) for p in first["loc"]) or "line"
                message = first["msg"].removeprefix("Value error, ")
                raise DatasetError(f"{where}: {place}: {message}") from None
            if case.id in seen:
                raise DatasetError(f"{where}: id {case.id!r} is already used at {seen[case.id]}")
            seen[case.id] = where
            cases.append(case)
    if not cases:
        raise DatasetError(f"{', '.join(map(str, paths))}: no cases")
    return tuple(cases)
