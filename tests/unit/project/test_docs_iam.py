"""docs/architecture.md names exactly the DynamoDB actions the stack grants the review function."""

from __future__ import annotations

import re

from infra.paths import ROOT
from infra.stack import (
    AUDIT_ACTIONS,
    BOOKING_WRITE_ACTIONS,
    LIMIT_ACTIONS,
    RATE_LIMIT_ACTIONS,
    TOOL_READ_ACTIONS,
)


def _review_paragraph() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = text.index("The review function is the only one granted")
    return " ".join(text[start : text.index("\n\n", start)].split())


def _named(sentence: str) -> set[str]:
    return {f"dynamodb:{name}" for name in re.findall(r"`([A-Z][A-Za-z]+Item)`", sentence)}


def test_the_review_grants_in_the_docs_are_the_stacks() -> None:
    paragraph = _review_paragraph()
    directory = paragraph[paragraph.index("reads the directory") : paragraph.index("the bookings table")]
    bookings = paragraph[paragraph.index("the bookings table") : paragraph.index("the limits table")]
    limits = paragraph[paragraph.index("the limits table") : paragraph.index("the audit table")]
    audit = paragraph[paragraph.index("the audit table") :].split(";")[0]

    assert _named(directory) == set(TOOL_READ_ACTIONS)
    assert _named(bookings) == set(BOOKING_WRITE_ACTIONS)
    assert _named(limits) == {*LIMIT_ACTIONS, *RATE_LIMIT_ACTIONS}
    assert _named(audit) == set(AUDIT_ACTIONS)
