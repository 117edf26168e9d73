"""The offline model's requests on existing Jira issues: the demo phrases, alone and with an email."""

from __future__ import annotations

from typing import Any

import pytest
from multitool.runtimes.offline import OfflineModel
from multitool.tools import REGISTRY

from tests.unit.runtimes.test_offline_model import ask, tool_uses


def calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(u["name"], u["input"]) for u in tool_uses(ask(OfflineModel(), text))]


WEB_12 = {"said": "WEB-12", "key": "WEB-12"}


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "add a comment to WEB-12: fixed in build 42",
            [("comment_on_jira_issue", {"issue": WEB_12, "comment": "Fixed in build 42"})],
        ),
        ("close WEB-12", [("transition_jira_issue", {"issue": WEB_12, "status": "close"})]),
        (
            "move the login crash ticket to In Review",
            [
                (
                    "transition_jira_issue",
                    {
                        "issue": {"said": "the login crash ticket", "words": ["login", "crash"]},
                        "status": "In Review",
                    },
                )
            ],
        ),
        (
            "make WEB-12 high priority and assign it to Priya",
            [("update_jira_issue", {"issue": WEB_12, "priority": "High", "assignee": "Priya"})],
        ),
        (
            "link WEB-12 to OPS-3 as blocks",
            [
                (
                    "link_jira_issues",
                    {"issue": WEB_12, "other": {"said": "OPS-3", "key": "OPS-3"}, "link": "blocks"},
                )
            ],
        ),
    ],
)
def test_the_demo_phrases_call_the_tools_with_what_was_said(message: str, expected: list[Any]) -> None:
    found = calls(message)

    assert found == expected
    for name, arguments in found:  # what the model passes is what the tool takes
        REGISTRY[name].args_model.model_validate(arguments)


def test_a_comment_and_an_email_in_one_message() -> None:
    found = calls(
        "Add a comment to WEB-12: fixed in build 42, verified on staging. Then email Priya about the release"
    )

    assert [name for name, _ in found] == ["comment_on_jira_issue", "create_email_draft"]
    assert found[0][1]["comment"] == "Fixed in build 42, verified on staging"
    assert found[1][1]["to"] == ["Priya"]


def test_closing_an_issue_and_emailing_about_it() -> None:
    found = calls("close WEB-12 and email Priya that the login crash is fixed")

    assert [name for name, _ in found] == ["transition_jira_issue", "create_email_draft"]


def test_a_move_that_names_no_issue_is_not_a_transition() -> None:
    assert all(name != "transition_jira_issue" for name, _ in calls("move my sync with Priya to Friday"))
