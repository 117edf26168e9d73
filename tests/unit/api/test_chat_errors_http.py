"""Every chat error, swept through the chat API: the status, the body and the headers it answers.

The errors carry their code, status and the words the caller reads; the API maps every one of them
in one generic handler. This sweep pins what each answers, so the mapping's move changes nothing
on the wire.
"""

from __future__ import annotations

from typing import Any

import pytest
from multitool.api.bodies import UndecodableBody
from multitool.api.chat_app import Unauthenticated, chat_app
from multitool.chat.async_turns import TooManyTurns, TurnsUnavailable
from multitool.chat.idempotency import IdempotencyKeyReused, IdempotencyUnavailable, RequestInProgress
from multitool.chat.service import ChatInputError
from multitool.chat.sessions import SessionNotFound, SessionNotOwned
from multitool.chat.turn_invocations import TurnNotFound
from multitool.errors import ServiceError
from multitool.ports.rate import RateLimited
from multitool.runtimes.base import ModelBusy, ModelFailed, RuntimeNotConfigured
from multitool.settings import SettingsError

from tests.support.error_sweeps import assert_answers, assert_carries_its_code_and_status, err
from tests.support.http_events import FakeLambdaContext, http_api_event


def answer(error: Exception) -> dict[str, Any]:
    def raising() -> Any:
        raise error

    app = chat_app(service=raising, turns=lambda: None, limiter=lambda: None)
    event = http_api_event(
        "GET", "/sessions/s-1", path_parameters={"id": "s-1"}, route_key="GET /sessions/{id}"
    )
    response: dict[str, Any] = app.resolve(event, FakeLambdaContext())
    return response


NOT_CONFIGURED = err("not_configured", "The chat service is not configured.")
CASES: list[tuple[Exception, int, dict[str, Any], dict[str, str]]] = [
    (Unauthenticated("Sign in first."), 401, err("unauthenticated", "Sign in first."), {}),
    (
        ChatInputError("message", "must not be empty."),
        400,
        err("bad_request", "message: must not be empty.", field="message"),
        {},
    ),
    (UndecodableBody("body: not UTF-8."), 400, err("bad_request", "body: not UTF-8.", field="body"), {}),
    (
        SessionNotOwned("owned by user-2"),
        403,
        err(
            "session_not_owned",
            "This sessionId belongs to another user. Omit sessionId to start a new session.",
        ),
        {},
    ),
    (SessionNotFound("s-1"), 404, err("not_found", "No such session for this user."), {}),
    (
        RateLimited("chat", 2.5),
        429,
        err(
            "rate_limited",
            "You are sending chat requests faster than this deployment allows one user; try again in "
            "3 s. Other users are not affected.",
        ),
        {"Retry-After": "3"},
    ),
    (IdempotencyKeyReused("Key used."), 422, err("idempotency_key_reused", "Key used."), {}),
    (
        RequestInProgress("Still running.", 4),
        409,
        err("request_in_progress", "Still running."),
        {"Retry-After": "4"},
    ),
    (
        IdempotencyUnavailable("The store is away."),
        503,
        err(
            "idempotency_unavailable",
            "The store is away. Retry in a few seconds with the same Idempotency-Key.",
        ),
        {"Retry-After": "2"},
    ),
    (TurnNotFound("t-1"), 404, err("not_found", "No such turn for this user."), {}),
    (
        TurnsUnavailable("The turns table is away."),
        503,
        err(
            "turns_unavailable",
            "The turns table is away. Retry in a few seconds (with the same Idempotency-Key, if any).",
        ),
        {"Retry-After": "2"},
    ),
    (
        TooManyTurns(3, 250.0),
        429,
        err(
            "too_many_turns",
            "You already have 3 turns running, the most one user may run at once. Wait for one to end "
            "(GET /turns/{id}) and send again; nothing was started. Other users are not affected.",
        ),
        {"Retry-After": "10"},
    ),
    (
        ModelBusy("bedrock throttled", 0),
        503,
        err("model_busy", "The assistant is busy right now. Retry in 1 seconds."),
        {"Retry-After": "1"},
    ),
    (
        ModelFailed("bedrock said no"),
        502,
        err(
            "model_failed",
            "The assistant could not answer. Try again; if it keeps failing, rephrase the request.",
        ),
        {},
    ),
    (RuntimeNotConfigured("MODEL_ID is missing"), 500, NOT_CONFIGURED, {}),
    (SettingsError("TABLE is missing"), 500, NOT_CONFIGURED, {}),
    (RuntimeError("the user's words"), 500, err("internal_error", "Something went wrong; try again."), {}),
]


@pytest.mark.parametrize(("error", "status", "body", "headers"), CASES, ids=lambda v: type(v).__name__)
def test_each_error_answers_its_status_body_and_headers(
    error: Exception, status: int, body: dict[str, Any], headers: dict[str, str]
) -> None:
    assert_answers(answer(error), status, body, headers)


@pytest.mark.parametrize(
    "error",
    [error for error, *_ in CASES if not isinstance(error, RuntimeError)],
    ids=lambda v: type(v).__name__,
)
def test_each_chat_error_carries_the_code_and_status_it_answers(error: ServiceError) -> None:
    assert_carries_its_code_and_status(answer(error), error)


def test_the_reviews_errors_share_the_chat_paths_error_model() -> None:
    from multitool.toolkit.errors import InvalidEdits, ReviewError

    error = InvalidEdits("to[0]: not an address.", field="to[0]")

    assert issubclass(ReviewError, ServiceError)
    assert (error.code, error.status, error.public_message()) == (
        "invalid_edits",
        422,
        "to[0]: not an address.",
    )
    assert error.detail() == {"field": "to[0]"}
