"""POST /chat as a domain service: one user message in, the turn's message and cards out.

:class:`ChatService` validates the request, claims the session for the caller,
runs the turn on the configured runtime and shapes the response of design.md:
``{"message", "clientAction", "clientActions", "clientActionMessages", "sessionId"}``,
or ``{"message", "sessionId"}`` when the turn produced no card.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import ConfigDict, Field, SerializeAsAny

from multitool.client_actions import Card
from multitool.observability import logger, metrics
from multitool.runtimes.base import Runtime, TurnRequest
from multitool.sessions import SessionStore, new_session_id, valid_session_id
from multitool.traces import ToolResults
from multitool.wire import WireModel

DEFAULT_MAX_MESSAGE_CHARS = 4000


class ChatInputError(ValueError):
    """A request the API answers with 400; the message says what to change."""


class ChatRequest(WireModel):
    """The body of POST /chat."""

    model_config = ConfigDict(strict=True, str_strip_whitespace=True)

    message: str = Field(description="The user's message, with as many intents as they like")
    session_id: str | None = Field(
        default=None, description="Continue this session; omit to start one (the response carries its id)"
    )
    timezone: str | None = Field(default=None, description="The user's IANA time zone, e.g. Europe/Berlin")


class ChatResponse(WireModel):
    """The body POST /chat answers with."""

    message: str
    client_action: SerializeAsAny[Card] | None = Field(
        default=None, description="The last card (older clients)"
    )
    client_actions: tuple[SerializeAsAny[Card], ...] = ()
    client_action_messages: tuple[str, ...] = Field(default=(), description="One caption per card")
    session_id: str

    def to_wire(self) -> dict[str, Any]:
        wire = super().to_wire()
        if not self.client_actions:
            return {"message": wire["message"], "sessionId": wire["sessionId"]}
        return wire


def _fallback_message(results: ToolResults) -> str:
    count = len(results.client_actions)
    if count:
        return f"I prepared {count} draft{'s' if count != 1 else ''} for you to review."
    if results.failures:
        return "I could not prepare that: " + "; ".join(f.message for f in results.failures)
    return "I could not produce an answer. Please rephrase your request."


def response_from(results: ToolResults, session_id: str) -> ChatResponse:
    """The API response for a turn's results."""
    return ChatResponse(
        message=results.message or _fallback_message(results),
        client_action=results.client_action,
        client_actions=results.client_actions,
        client_action_messages=results.messages,
        session_id=session_id,
    )


class ChatService:
    """Runs chat turns for authenticated users on one runtime."""

    def __init__(
        self,
        runtime: Runtime,
        sessions: SessionStore,
        *,
        max_message_chars: int = DEFAULT_MAX_MESSAGE_CHARS,
        default_timezone: str = "UTC",
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.runtime = runtime
        self.sessions = sessions
        self.max_message_chars = max_message_chars
        self.default_timezone = default_timezone
        self.clock = clock

    def reply(self, user_id: str, request: ChatRequest, *, timezone_hint: str | None = None) -> ChatResponse:
        """Run one turn for ``user_id``.

        Raises :class:`ChatInputError`, ``SessionNotOwned`` or a runtime's ``TurnError``.
        """
        message = request.message
        if not message:
            raise ChatInputError("'message' must not be empty.")
        if len(message) > self.max_message_chars:
            raise ChatInputError(
                f"'message' is {len(message)} characters long; the limit is {self.max_message_chars}."
            )
        timezone = request.timezone or timezone_hint or self.default_timezone
        try:
            ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ChatInputError(
                f"'timezone' must be an IANA time zone such as Europe/Berlin, not {timezone!r}."
            ) from None
        session_id = request.session_id or new_session_id()
        if not valid_session_id(session_id):
            raise ChatInputError(
                "'sessionId' must be 2-100 characters of letters, digits, '.', '_', ':' or '-'."
            )
        self.sessions.claim(session_id, user_id)
        now = self.clock() if self.clock is not None else None
        results = self.runtime.run_turn(TurnRequest(user_id, session_id, message, timezone, now))
        metrics.add_metric(name="ClientActions", unit="Count", value=len(results.client_actions))
        logger.info(
            "Chat turn done",
            extra={
                "cards": [card.type for card in results.client_actions],
                "failures": len(results.failures),
            },
        )
        return response_from(results, session_id)
