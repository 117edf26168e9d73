"""How a status or a link type as the user said it names one of the issue's transitions or the
site's link types."""

from __future__ import annotations

import pytest
from multitool.tools.jira.existing import link_type_for, matching_transitions

OFFERED = [
    {"id": "31", "name": "Send to review", "toStatus": "In Review"},
    {"id": "11", "name": "Stop progress", "toStatus": "To Do"},
    {"id": "41", "name": "Close issue", "toStatus": "Done"},
]
KINDS = [
    {"name": "Blocks", "outward": "blocks", "inward": "is blocked by"},
    {"name": "Duplicate", "outward": "duplicates", "inward": "is duplicated by"},
    {"name": "Relates", "outward": "relates to", "inward": "relates to"},
]


@pytest.mark.parametrize(
    ("said", "ids"),
    [
        ("In Review", ["31"]),
        ("review", ["31"]),
        ("To Do", ["11"]),
        ("to done", ["41"]),
        ("close", ["41"]),
        ("resolved", ["41"]),
        ("stop progress", ["11"]),
        ("QA", []),
    ],
)
def test_a_status_as_said_names_the_transitions_that_lead_there(said: str, ids: list[str]) -> None:
    assert [t["id"] for t in matching_transitions(said, OFFERED)] == ids


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("blocks", ("Blocks", True)),
        ("is blocked by", ("Blocks", False)),
        ("blocked by", ("Blocks", False)),
        ("relates to", ("Relates", True)),
        ("duplicate", ("Duplicate", True)),
        ("as duplicates", ("Duplicate", True)),
        ("follows", None),
    ],
)
def test_a_link_as_said_names_a_site_type_and_its_direction(
    said: str, expected: tuple[str, bool] | None
) -> None:
    assert link_type_for(said, KINDS) == expected
