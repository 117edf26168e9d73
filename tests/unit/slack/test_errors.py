"""The Slack app's own errors: what each answers Slack (its status and code), and never the words
that say why a request was refused or a secret could not be read (those go to the log only)."""

from __future__ import annotations

from typing import Any

import pytest
from multitool.errors import ServiceError
from multitool.slack.events import LedgerUnavailable
from multitool.slack.secrets import SlackNotConfigured
from multitool.slack.verify import NotFromSlack

CASES: list[tuple[ServiceError, int, str]] = [
    (NotFromSlack("bad or stale signature"), 401, "unauthenticated"),
    (LedgerUnavailable("The event could not be recorded."), 503, "unavailable"),
    (SlackNotConfigured("The Slack bot token is empty."), 503, "not_configured"),
]


@pytest.mark.parametrize(("error", "status", "code"), CASES)
def test_each_slack_error_has_its_status_and_code(error: Any, status: int, code: str) -> None:
    assert (int(error.status), error.code) == (status, code)


def test_a_refused_request_is_answered_without_saying_why() -> None:
    refused = NotFromSlack("bad or stale signature")

    assert "stale" not in refused.public_message()
    assert refused.public_message() == "The request is not signed by Slack."
