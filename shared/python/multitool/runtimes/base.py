"""What every runtime shares: the turn it runs, the errors it raises, how it reaches the tools."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from http import HTTPStatus
from typing import Any, Protocol

import msgspec
from botocore.exceptions import BotoCoreError, ClientError, ConnectTimeoutError, ReadTimeoutError

from multitool.errors import RETRY_AFTER, ServiceError
from multitool.observability import logger
from multitool.records import Redacted
from multitool.runtimes.flow import Flow, ToolResult
from multitool.runtimes.traces import ToolResults, extract_tool_results
from multitool.toolkit.cards import Card

# Bedrock error codes that mean "busy, try again shortly" (503 + Retry-After); anything else is a 502.
_RETRYABLE_CODES = frozenset(
    {
        "ThrottlingException",
        "throttlingException",
        "ServiceUnavailableException",
        "serviceUnavailableException",
        "ServiceQuotaExceededException",
        "ModelNotReadyException",
        "ModelTimeoutException",
        "TooManyRequestsException",
        "dependencyFailedException",
    }
)
DEFAULT_RETRY_AFTER_SECONDS = 2
MODEL_CALL_RESERVE_SECONDS = 10.0
"""The time a further model call may take: with less left, the turn answers with what it has.
The HTTP API cuts every request at 30 s, so a turn that starts a call it cannot finish loses
the drafts it already made from the user's view."""

OUT_OF_TIME = (
    "I ran out of time before finishing your request. Review what I prepared below, "
    "then ask again for anything missing."
)

UNFINISHED = (
    "I prepared the drafts below, but the assistant failed before finishing the rest of your request. "
    "Review these, then ask again for anything missing."
)


class TurnProgress(Protocol):
    """Where a running turn reports what the user may see before it ends (a turn run past its request)."""

    def card(self, card: Card, caption: str) -> None:
        """A draft now exists: its card and caption, as the turn's answer will carry them."""

    def text(self, delta: str) -> None:
        """More of the assistant's text, as the runtime streams it."""


class TurnRequest(Redacted, msgspec.Struct, frozen=True):
    """One user message to run: who sent it, in which session, in which time zone, at what time.

    ``history`` is the conversation so far as text-only Converse messages
    (user, assistant, user, …; see :mod:`multitool.chat.sessions`), for runtimes
    that do not keep it themselves; the Bedrock agent keeps its own by ``sessionId``.
    """

    redacted = frozenset({"user_token"})

    user_id: str
    session_id: str
    message: str
    timezone: str = "UTC"
    now: datetime | None = None
    history: tuple[Mapping[str, Any], ...] = ()
    deadline: float | None = None
    """``time.monotonic()`` by which the turn must answer (the invocation's end); None: no limit."""
    user_email: str | None = None
    """The sender's verified address, when the token carries one (their own bookings count as busy)."""
    progress: TurnProgress | None = None
    """Told of each card (and streamed text) as the turn makes it; None: only the answer counts."""
    carried: tuple[Mapping[str, Any], ...] | None = None
    """The harness step carried into this turn, when the session claim already took it from the
    store (one write for both); None: the runtime takes it from its own carry store."""
    user_token: str | None = None
    """The sender's own JWT, for the tool calls this function runs (the user's own suite); never
    stored, logged, traced or sent to a model or a harness."""
    locale: str | None = None
    """The sender's BCP 47 locale ("en-GB"), from the token's ``locale`` claim: how they write dates."""

    def has_time_for_model_call(self) -> bool:
        """Whether another model call can still finish before the deadline."""
        return self.deadline is None or self.deadline - time.monotonic() >= MODEL_CALL_RESERVE_SECONDS

    def session_attributes(self) -> dict[str, str]:
        """What action groups read from ``sessionAttributes`` (``userId``, ``timezone``, ``now``,
        ``userEmail``, ``locale``)."""
        attributes = {"userId": self.user_id, "timezone": self.timezone}
        if self.now is not None:
            attributes["now"] = self.now.isoformat()
        if self.user_email is not None:
            attributes["userEmail"] = self.user_email
        if self.locale is not None:
            attributes["locale"] = self.locale
        return attributes


def streamed_text(events: Iterable[Any], progress: TurnProgress | None) -> Iterator[Any]:
    """``events`` (a Converse-shaped stream) as they come, each text delta also told to ``progress``.

    A failing listener costs only the progress: the turn reads the stream as if it were not there.
    """
    for event in events:
        if progress is not None and isinstance(event, Mapping):
            delta = event.get("contentBlockDelta", {})
            text = delta.get("delta", {}).get("text") if isinstance(delta, Mapping) else None
            if isinstance(text, str) and text:
                try:
                    progress.text(text)
                except Exception as error:
                    logger.warning("Text progress not reported", extra={"error_type": type(error).__name__})
                    progress = None
        yield event


class Runtime(Protocol):
    """Runs one user message through a model and returns what the turn produced."""

    def run_turn(self, request: TurnRequest) -> ToolResults: ...


FlowFactory = Callable[[TurnRequest], Flow]
"""Builds the tool flow (product step, context, ports) for one turn."""


MODEL_BUSY = "The assistant is busy right now. Retry in {seconds} seconds."
MODEL_FAILED = "The assistant could not answer. Try again; if it keeps failing, rephrase the request."
NOT_CONFIGURED = "The chat service is not configured."


class TurnError(ServiceError):
    """A model runtime failed; the API answers 502, 503 or (misconfigured) 500.

    The caller reads fixed words: the exception's own message names the service and its error code.
    """


class ModelBusy(TurnError):
    """The model is throttled or not ready: retry after ``retry_after`` seconds (HTTP 503)."""

    code = "model_busy"
    status = HTTPStatus.SERVICE_UNAVAILABLE

    def __init__(self, message: str, retry_after: int = DEFAULT_RETRY_AFTER_SECONDS) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    def public_message(self) -> str:
        return MODEL_BUSY.format(seconds=max(1, self.retry_after))

    def headers(self) -> dict[str, str]:
        return {RETRY_AFTER: str(max(1, self.retry_after))}


class ModelFailed(TurnError):
    """The model call failed in a way a retry is unlikely to fix soon (HTTP 502)."""

    code = "model_failed"
    status = HTTPStatus.BAD_GATEWAY
    answer = MODEL_FAILED


class RuntimeNotConfigured(TurnError):
    """The environment selects a runtime whose settings are missing."""

    code = "not_configured"
    status = HTTPStatus.INTERNAL_SERVER_ERROR
    answer = NOT_CONFIGURED


def model_error(error: Exception, service: str) -> TurnError:
    """The typed error for a botocore failure of ``service`` (logged without its message text)."""
    code = ""
    if isinstance(error, ClientError):
        code = str(error.response.get("Error", {}).get("Code", ""))
    logger.warning(
        "Model call failed", extra={"service": service, "code": code, "error_type": type(error).__name__}
    )
    if code in _RETRYABLE_CODES or isinstance(error, ConnectTimeoutError | ReadTimeoutError):
        return ModelBusy(f"{service} is busy right now; retry in a few seconds.")
    return ModelFailed(f"{service} could not answer ({code or type(error).__name__}).")


BEDROCK_ERRORS = (ClientError, BotoCoreError)


def results_so_far(events: list[Any], error: TurnError) -> ToolResults:
    """The drafts a turn already made when the model fails later in it; ``error`` if there are none.

    Those drafts are stored and confirmable: failing the whole request would hide them from the
    user (and a retry might word them differently), so the turn answers with them instead.
    """
    results = extract_tool_results(events)
    if not results.client_actions:
        raise error
    logger.warning(
        "Model failed after drafts were made; answering with them",
        extra={"error_type": type(error).__name__, "cards": len(results.client_actions)},
    )
    return ToolResults(
        message=UNFINISHED,
        client_actions=results.client_actions,
        messages=results.messages,
        failures=results.failures,
    )


def out_of_time(results: ToolResults, *, model_calls: int) -> ToolResults:
    """The turn so far, answered as it is because the deadline leaves no time for another model call."""
    logger.warning(
        "Turn stopped before its deadline; answering with what it made",
        extra={"model_calls": model_calls, "cards": len(results.client_actions)},
    )
    return ToolResults(
        message=OUT_OF_TIME,
        client_actions=results.client_actions,
        messages=results.messages,
        failures=results.failures,
    )


def result_is_error(result: ToolResult) -> bool:
    """A flow error result, or a tool's ``{"error": {...}}`` body."""
    content = result.content
    return result.is_error or (isinstance(content, Mapping) and isinstance(content.get("error"), Mapping))


def result_json(result: ToolResult) -> dict[str, Any]:
    """A tool result as a JSON object (text results become ``{"message": text}``, errors ``{"error"}``)."""
    content = result.content
    if isinstance(content, Mapping):
        return dict(content)
    text = content if isinstance(content, str) else json.dumps(content, default=str)
    if result.is_error:
        return {"error": {"code": "tool_failed", "message": text}}
    return {"message": text}


def result_text(result: ToolResult) -> str:
    """A tool result as the text an action-group Lambda would have returned (the trace's output text)."""
    return json.dumps(result_json(result), ensure_ascii=False, default=str)


class TraceRecorder(msgspec.Struct):
    """Records a runtime's own tool calls as InvokeAgent-shaped trace events for the extractor."""

    session_id: str
    events: list[dict[str, Any]] = msgspec.field(default_factory=list)

    def _trace(self, inner: dict[str, Any]) -> None:
        self.events.append({"trace": {"sessionId": self.session_id, "trace": {"orchestrationTrace": inner}}})

    def call(self, trace_id: str, action_group: str | None, api_path: str | None, name: str) -> None:
        self._trace(
            {
                "invocationInput": {
                    "traceId": trace_id,
                    "invocationType": "ACTION_GROUP",
                    "actionGroupInvocationInput": {
                        "actionGroupName": action_group or name,
                        "apiPath": api_path or name,
                        "function": name,
                        "verb": "post",
                        "executionType": "RETURN_CONTROL",
                    },
                }
            }
        )

    def result(self, trace_id: str, text: str) -> None:
        self._trace(
            {
                "observation": {
                    "traceId": trace_id,
                    "type": "ACTION_GROUP",
                    "actionGroupInvocationOutput": {"text": text},
                }
            }
        )

    def final(self, trace_id: str, text: str) -> None:
        self._trace({"observation": {"traceId": trace_id, "type": "FINISH", "finalResponse": {"text": text}}})
