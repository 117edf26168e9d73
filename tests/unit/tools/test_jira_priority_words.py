"""A priority as the model or an edit writes it, in any case, is Jira's own word, in every Jira model
that takes one (multitool.tools.jira.jira_draft.AnyCasePriority): the new ticket's arguments and
edits, the update's arguments and edits."""

from __future__ import annotations

from typing import Any

import pytest
from multitool.tools.jira.confirm import JiraEdits
from multitool.tools.jira.jira_draft import JiraTicketArgs, Priority
from multitool.tools.jira_update.confirm import UpdateEdits
from multitool.tools.jira_update.jira_update import JiraUpdateArgs
from pydantic import BaseModel, ValidationError

TICKET = {"project": "WEB", "issueType": "Bug", "summary": "Login fails"}
ISSUE = {"issue": {"said": "WEB-12"}}
MODELS: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (JiraTicketArgs, TICKET),
    (JiraEdits, {}),
    (JiraUpdateArgs, ISSUE),
    (UpdateEdits, {}),
]


@pytest.mark.parametrize(("model", "rest"), MODELS)
@pytest.mark.parametrize("said", [" high ", "HIGH", "High"])
def test_a_priority_in_any_case_is_the_one_jira_names(
    model: type[BaseModel], rest: dict[str, Any], said: str
) -> None:
    assert model.model_validate({**rest, "priority": said}).priority is Priority.HIGH  # type: ignore[attr-defined]


@pytest.mark.parametrize(("model", "rest"), MODELS)
def test_a_priority_jira_does_not_have_is_refused(model: type[BaseModel], rest: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        model.model_validate({**rest, "priority": "urgent"})
