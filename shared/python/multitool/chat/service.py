"""POST /chat as a domain service: one user message in, the turn's message and cards out.

:class:`ChatService` validates the request, claims the session for the caller,
runs the turn on the configured runtime and shapes the response of design.md:
``{"message", "clientAction", "clientActions", "clientActionMessages", "sessionId"}``,
or ``{"message", "sessionId"}`` when the turn produced no card.

A request may carry an ``Idempotency-Key``: with :class:`ChatIdempotency`
configured, the first response for a (user, key) is stored (Powertools
idempotency on DynamoDB) and replayed for a retry of the same body, so a
retried request never runs the model twice nor makes a second set of drafts.
"""

import hashlib
import json
import re
import time
from collections.abc import Callable
from datetime import datetime
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field

from multitool.chat.idempotency import (
    ChatIdempotency,
)
from multitool.chat.sessions import (
    HISTORY_EXCHANGES,
    History,
    SessionStore,
    SessionWriteFailed,
    bounded,
    card_entry,
    converse_messages,
    exchange,
    new_session_id,
    valid_session_id,
)
from multitool.errors import ServiceError
from multitool.observability import logger, metrics
from multitool.runtimes.base import ModelBusy, Runtime, TurnError, TurnProgress, TurnRequest
from multitool.runtimes.traces import ToolResults
from multitool.text import MultiLine
from multitool.toolkit.cards import Card
from multitool.toolkit.connect import CONNECT_ACTION, ConnectAccountCard
from multitool.wire import WireModel
from multitool.zones import iana_zone, valid_locale

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from multitool.chat.session_views import SessionView

DEFAULT_MAX_MESSAGE_CHARS = 4000
RESPONSE_RESERVE_SECONDS = 1.0
API_SECONDS = 29.0
"""How long an answer given within the request may take: API Gateway cuts every request at 30 s."""
# Visible ASCII (no space, no control character), as the Idempotency-Key header allows.
IDEMPOTENCY_KEY_PATTERN = re.compile(r"^[\x21-\x7e]{1,128}$")


class ChatInputError(ServiceError, ValueError):
    """A request the API answers with 400: ``field: what to change`` (multitool.validation's paths)."""

    code = "bad_request"
    status = HTTPStatus.BAD_REQUEST

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field

    def detail(self) -> dict[str, Any]:
        return {"field": self.field}


def idempotency_key(header: str | None) -> str | None:
    """The key of an ``Idempotency-Key`` header value, None when the header is absent.

    The value is 1-128 visible ASCII characters; the structured-field form of the
    IETF draft (a quoted string, ``"8e03978e-…"``) is accepted and unquoted.
    Raises :class:`ChatInputError` for anything else (never echoing the value).
    """
    if header is None:
        return None
    value = header.strip(" \t")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    if '"' in value or not IDEMPOTENCY_KEY_PATTERN.match(value):
        raise ChatInputError(
            "Idempotency-Key",
            "must be 1-128 visible ASCII characters without spaces, for example a UUID.",
        )
    return value


def body_hash(request: "ChatRequest") -> str:
    """A digest of the request body as validated (so whitespace and key order do not matter)."""
    return hashlib.sha256(request.model_dump_json().encode()).hexdigest()


def wire_text(wire: dict[str, Any]) -> str:
    """A response body as the HTTP resolver would write it: compact JSON, keys in the model's order."""
    return json.dumps(wire, separators=(",", ":"))


class ChatRequest(WireModel):
    """The body of POST /chat."""

    model_config = ConfigDict(strict=True, str_strip_whitespace=True)

    # Cleaned as multi-line text (multitool.text): no null bytes or other controls reach the model.
    message: MultiLine = Field(
        description=(
            "The user's message, with as many intents as they like; not empty, and at most "
            f"{DEFAULT_MAX_MESSAGE_CHARS} characters unless the deployment sets another limit"
        )
    )
    session_id: str | None = Field(
        default=None, description="Continue this session; omit to start one (the response carries its id)"
    )
    timezone: str | None = Field(default=None, description="The user's IANA time zone, e.g. Europe/Berlin")


class ChatResponse(WireModel):
    """The body POST /chat answers with."""

    message: str
    client_action: Card | None = Field(default=None, description="The last card (older clients)")
    client_actions: tuple[Card, ...] = ()
    client_action_messages: tuple[str, ...] = Field(default=(), description="One caption per card")
    session_id: str

    def to_wire(self) -> dict[str, Any]:
        wire = super().to_wire()
        if not self.client_actions:
            return {"message": wire["message"], "sessionId": wire["sessionId"]}
        return wire


def _fallback_message(results: ToolResults) -> str:
    connect = [card for card in results.client_actions if isinstance(card, ConnectAccountCard)]
    count = len(results.client_actions) - len(connect)
    waiting = " ".join(
        f"Connect your {name} account to go on: nothing was sent."
        for name in dict.fromkeys(card.provider_name for card in connect)
    )
    if count:
        drafts = f"I prepared {count} draft{'s' if count != 1 else ''} for you to review."
        return f"{drafts} {waiting}".strip()
    if waiting:
        return waiting
    if results.failures:
        return "I could not prepare that: " + "; ".join(dict.fromkeys(f.message for f in results.failures))
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


def turn_deadline(context: "LambdaContext | None", *, limit: float | None = None) -> float | None:
    """When the turn must have answered: the invocation's end (or ``limit`` seconds from now, if sooner)
    less a second to write the response."""
    remaining: float | None = limit
    if context is not None:
        try:
            left = int(context.get_remaining_time_in_millis()) / 1000
        except (AttributeError, TypeError, ValueError):
            left = None
        if left is not None:
            remaining = left if remaining is None else min(remaining, left)
    if remaining is None:
        return None
    return time.monotonic() + remaining - RESPONSE_RESERVE_SECONDS


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
        idempotency: ChatIdempotency | None = None,
        history_exchanges: int = HISTORY_EXCHANGES,
        carry_in_session: bool = False,
    ) -> None:
        """``history_exchanges``: earlier exchanges a turn sees; 0 for a runtime that keeps its own.

        ``carry_in_session``: the runtime carries its paused step in the session's item
        (:class:`multitool.runtimes.carryover.DynamoCarryOver`), so the claim takes it in the same write.
        """
        self.carry_in_session = carry_in_session
        self.runtime = runtime
        self.sessions = sessions
        self.max_message_chars = max_message_chars
        self.default_timezone = default_timezone
        self.clock = clock
        self.history_exchanges = history_exchanges
        self.idempotency = idempotency
        self._reply_once = idempotency.wrap(self._reply_body) if idempotency is not None else None

    def reply_body(
        self,
        user_id: str,
        request: ChatRequest,
        *,
        timezone_hint: str | None = None,
        user_email: str | None = None,
        idempotency_key: str | None = None,
        lambda_context: "LambdaContext | None" = None,
        user_token: str | None = None,
        locale_hint: str | None = None,
    ) -> str:
        """The response body (JSON text) for one turn; with an ``idempotency_key``, the stored one on a retry.

        The text itself is what is stored, so a replay is the first answer byte for byte
        (a stored dict would come back re-serialized, its keys sorted).

        Raises what :meth:`reply` raises, plus :class:`IdempotencyKeyReused`,
        :class:`RequestInProgress` and :class:`IdempotencyUnavailable`.
        """
        self.validate(request, timezone_hint)  # a bad request never takes an idempotency record
        if idempotency_key is None or self._reply_once is None or self.idempotency is None:
            if idempotency_key is not None:
                logger.warning("Idempotency-Key ignored: no idempotency table is configured")
            return wire_text(
                self.reply(
                    user_id,
                    request,
                    timezone_hint=timezone_hint,
                    user_email=user_email,
                    deadline=turn_deadline(lambda_context, limit=API_SECONDS),
                    user_token=user_token,
                    locale_hint=locale_hint,
                ).to_wire()
            )
        self.idempotency.register_lambda_context(lambda_context)
        request_key = {"userId": user_id, "idempotencyKey": idempotency_key, "bodyHash": body_hash(request)}
        return self.idempotency.call(
            self._reply_once,
            user_id,
            request,
            timezone_hint,
            user_email,
            turn_deadline(lambda_context, limit=API_SECONDS),
            user_token,
            locale_hint,
            request_key=request_key,
        )

    def _reply_body(
        self,
        user_id: str,
        request: ChatRequest,
        timezone_hint: str | None,
        user_email: str | None,
        deadline: float | None,
        user_token: str | None,
        locale_hint: str | None = None,
        *,
        request_key: dict[str, str],
    ) -> str:
        # request_key only keys (and is all that is hashed into) the stored response (see ChatIdempotency);
        # the turn does not read it, and the user token is never part of it.
        return wire_text(
            self.reply(
                user_id,
                request,
                timezone_hint=timezone_hint,
                user_email=user_email,
                deadline=deadline,
                user_token=user_token,
                locale_hint=locale_hint,
            ).to_wire()
        )

    def conversation(self, user_id: str, session_id: str) -> "SessionView":
        """``user_id``'s session as the page draws it again; ``SessionNotFound`` for anyone else's."""
        # Its views load with the route's first request: a chat turn never shows a session.
        from multitool.chat.session_views import conversation_view

        if not valid_session_id(session_id):
            raise ChatInputError("id", "must be 2-100 characters of letters, digits, '.', '_', ':' or '-'.")
        return conversation_view(session_id, self.sessions.read(session_id, user_id))

    def validate(self, request: ChatRequest, timezone_hint: str | None) -> str:
        """The turn's time zone, once the request is known to be runnable; :class:`ChatInputError` if not."""
        message = request.message
        if not message:
            raise ChatInputError("message", "must not be empty.")
        if len(message) > self.max_message_chars:
            raise ChatInputError(
                "message", f"is {len(message)} characters long; the limit is {self.max_message_chars}."
            )
        # The hint (the token's zoneinfo) is free text the user never sent here: unusable, it is ignored.
        hint = timezone_hint if timezone_hint and iana_zone(timezone_hint) is not None else None
        timezone = request.timezone or hint or self.default_timezone
        if iana_zone(timezone) is None:
            shown = timezone if len(timezone) <= 64 else f"{timezone[:61]}..."
            raise ChatInputError(
                "timezone", f"must be an IANA time zone such as Europe/Berlin, not {shown!r}."
            )
        if request.session_id and not valid_session_id(request.session_id):
            raise ChatInputError(
                "sessionId", "must be 2-100 characters of letters, digits, '.', '_', ':' or '-'."
            )
        return timezone

    def reply(
        self,
        user_id: str,
        request: ChatRequest,
        *,
        timezone_hint: str | None = None,
        user_email: str | None = None,
        deadline: float | None = None,
        progress: TurnProgress | None = None,
        user_token: str | None = None,
        locale_hint: str | None = None,
    ) -> ChatResponse:
        """Run one turn for ``user_id`` (``progress`` is told of each card as it is made; ``user_token``,
        the sender's JWT, reaches the tool calls run here, for the user's own suite; ``locale_hint``,
        the token's ``locale``, says how the user writes dates, and is ignored unless a BCP 47 tag).

        Raises :class:`ChatInputError`, ``SessionNotOwned`` or a runtime's ``TurnError``.
        """
        timezone = self.validate(request, timezone_hint)
        message = request.message
        session_id = request.session_id or new_session_id()
        carried: tuple[dict[str, Any], ...] | None = None
        if self.carry_in_session:
            claimed = self.sessions.claim_taking_carry(session_id, user_id)
            history, carried = claimed.history, tuple(claimed.carried)
        else:
            history = self.sessions.claim(session_id, user_id)
        now = self.clock() if self.clock is not None else None
        remembered = bounded(history, max_exchanges=self.history_exchanges)
        turn = TurnRequest(
            user_id,
            session_id,
            message,
            timezone,
            now,
            converse_messages(remembered),
            deadline=deadline,
            user_email=user_email,
            progress=progress,
            carried=carried,
            user_token=user_token,
            locale=valid_locale(locale_hint),
        )
        try:
            results = self.runtime.run_turn(turn)
        except TurnError as error:
            # Counted for the stack's alarms (infra.components.operations): a busy model is a quota, a
            # failed one (the harness, agent or Converse call) a fault.
            metrics.add_metric(
                name="ModelBusy" if isinstance(error, ModelBusy) else "ModelFailed", unit="Count", value=1
            )
            raise
        metrics.add_metric(name="ClientActions", unit="Count", value=len(results.client_actions))
        logger.info(
            "Chat turn done",
            extra={
                "cards": [card.type for card in results.client_actions],
                "failures": len(results.failures),
                "history_messages": len(remembered),
            },
        )
        response = response_from(results, session_id)
        if self.history_exchanges > 0:
            self._remember(session_id, user_id, remembered, message, response)
        return response

    def _remember(
        self, session_id: str, user_id: str, history: History, message: str, response: ChatResponse
    ) -> None:
        """Append the turn to the session's conversation; a failed write costs memory, not the answer."""
        # A consent card has no draft behind it to read back: the conversation keeps the drafts only.
        cards = [
            card_entry(card.id, card.type, line)
            for card, line in zip(response.client_actions, response.client_action_messages, strict=False)
            if card.type != CONNECT_ACTION
        ]
        updated = bounded(
            (*history, *exchange(message, response.message, cards)), max_exchanges=self.history_exchanges
        )
        try:
            self.sessions.remember(session_id, user_id, updated)
        except SessionWriteFailed as error:
            logger.warning("Conversation not stored", extra={"error_type": type(error.__cause__).__name__})
