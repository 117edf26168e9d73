"""Observability: unexpected failures are logged without the personal content they quote."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import pytest
from multitool.api.review_app import review_app
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDraftStore
from multitool.observability import logger
from multitool.ports.mail import Mail, SentMail
from multitool.review import ReviewConfig
from multitool.review.reviewer import Reviewer
from multitool.runtimes.flow import Flow, Step, ToolCall, stay, tool, tools

from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.review_support import NOW, OWNER, SENDER, email_draft

SECRET = "Dear Priya, the merger closes on Friday"


class _Failing(Step):
    id = "failing"

    @tool
    def send_note(self, args: Any) -> Any:
        raise ValueError(f"could not send {args['body']}")

    @tools(["send_note", "other"])
    def both(self, calls: Sequence[ToolCall]) -> Any:
        raise ValueError(f"could not send {calls[0].args['body']}")

    @tool
    def other(self, args: Any) -> Any:
        return stay()


def test_flow_logs_carry_type_and_place_not_content(caplog: pytest.LogCaptureFixture) -> None:
    flow = Flow(steps=[_Failing], start=_Failing)
    with caplog.at_level(logging.DEBUG):
        flow.dispatch([ToolCall("c1", "send_note", {"body": SECRET})])
        flow.dispatch([ToolCall("c2", "send_note", {"body": SECRET}), ToolCall("c3", "other", {})])
    lines = [logger.registered_formatter.format(record) for record in caplog.records]
    assert len(lines) == 2
    assert all("ValueError" in line for line in lines)
    assert not [line for line in lines if SECRET in line]


class _ExplodingMailer:
    def send(self, mail: Mail) -> SentMail:
        raise RuntimeError(f"transport broke while sending {mail.text}")


def test_an_unexpected_side_effect_failure_is_logged_without_the_mail(
    caplog: pytest.LogCaptureFixture,
) -> None:
    drafts = MemoryDraftStore()
    [draft] = drafts.create_many([email_draft(body=SECRET)])
    reviewer = Reviewer(
        drafts,
        mailer=_ExplodingMailer(),
        calendar=MemoryCalendar(),
        jira=None,
        config=ReviewConfig(sender_email=SENDER),
        clock=lambda: NOW,
    )
    app = review_app(lambda: reviewer)

    with caplog.at_level(logging.DEBUG):
        response = app.resolve(
            http_api_event("POST", f"/actions/{draft.id}/confirm", {}, sub=OWNER), FakeLambdaContext()
        )

    assert response["statusCode"] == 500
    assert json_body(response)["error"]["code"] == "internal_error"
    lines = [logger.registered_formatter.format(record) for record in caplog.records]
    assert any("RuntimeError" in line for line in lines)
    assert not [line for line in lines if SECRET in line]
    stored = drafts.get(draft.id)
    assert stored is not None
    assert stored.status.value == "failed"
    assert SECRET not in (stored.error or "")
