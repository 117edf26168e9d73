"""The chat API: ``POST /chat``.

A Powertools ``APIGatewayHttpResolver`` (HTTP API, payload format 2.0) over
:class:`multitool.chat.service.ChatService`. The caller is the JWT authorizer's
``sub`` claim; an ``Idempotency-Key`` header makes a retry replay the first
response byte for byte (see :meth:`multitool.chat.service.ChatService.reply_body`); typed errors
become HTTP responses in one place, :func:`_map_errors`. The deployed handler, the local server and the tests
serve this same app; the deployed one's service, turns and limiter are :mod:`multitool.wiring.orchestrator`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from pydantic import ValidationError

from multitool.api import bearer_token, verified_email
from multitool.api.bodies import body_text
from multitool.chat.service import ChatInputError, ChatRequest, ChatService, idempotency_key
from multitool.chat.turn_invocations import ASYNC_MODE, INTERNAL, TurnNotFound
from multitool.errors import ServiceError
from multitool.observability import error_fields, logger
from multitool.ports.rate import RateLimiter
from multitool.validation import first_field, problems

if TYPE_CHECKING:
    from multitool.chat.async_turns import ChatTurns

ChatServiceProvider = Callable[[], ChatService]
ChatTurnsProvider = Callable[[], "ChatTurns | None"]
LimiterProvider = Callable[[], RateLimiter | None]
IDEMPOTENCY_HEADER = "Idempotency-Key"
PREFER_HEADER = "Prefer"


class Unauthenticated(ServiceError):
    """The request carries no user (no JWT ``sub`` claim)."""

    code = "unauthenticated"
    status = HTTPStatus.UNAUTHORIZED


def no_turns() -> None:
    """No turn runs past its request: ``Prefer: respond-async`` is answered inline (RFC 7240 lets a
    server ignore it), ``GET /turns/{id}`` finds none."""
    return None


def no_limit() -> None:
    """No per-user limit on /chat."""
    return None


def prefers_async(header: str | None) -> bool:
    """Whether a ``Prefer`` header (RFC 7240) asks for ``respond-async``."""
    if not header:
        return False
    return any(part.split(";", 1)[0].strip().lower() == ASYNC_MODE for part in header.split(","))


def run_turn_event(turn_id: str, context: Any, turns: ChatTurnsProvider) -> dict[str, str]:
    """The asynchronous invocation that runs a started turn (see :mod:`multitool.chat.async_turns`)."""
    chat_turns = turns()
    if chat_turns is None:
        logger.error("A turn invocation arrived, but no turns table is configured")
        return {"status": "skipped"}
    return {"status": chat_turns.run(turn_id, context)}


def chat_app(
    service: ChatServiceProvider,
    turns: ChatTurnsProvider = no_turns,
    limiter: LimiterProvider = no_limit,
    *,
    described: bool = False,
) -> APIGatewayHttpResolver:
    """The routes over the given service, turns and limiter, each asked for on a request's first use
    (the deployed ones: :mod:`multitool.wiring.orchestrator`).

    ``described``: each route carries its answers for the OpenAPI document (:mod:`multitool.api.openapi`).
    An app that serves requests never reads them, and without them a cold start defines none of the
    views and error models that only the document and other routes name."""
    app = APIGatewayHttpResolver()
    answers = _answers() if described else {}

    def caller() -> str:
        claims = app.current_event.request_context.authorizer.jwt_claim or {}
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub.strip():
            raise Unauthenticated("Sign in first: the request carries no user.")
        return sub.strip()

    @app.post(
        "/chat",
        operation_id="chat",
        summary="Send one message; get the reply and one card per action",
        description=(
            "The model calls every tool the message asks for in one turn; each card is a draft that "
            "nothing sends, books or creates until POST /actions/{id}/confirm. With an Idempotency-Key, "
            "a retry of the same body answers the first response byte for byte. With Prefer: "
            "respond-async the turn runs past the request (for minutes if it needs them): 202 answers "
            "its id at once, and GET /turns/{id} shows each card as it is made, then the reply."
        ),
        responses=answers.get("chat"),
    )
    def chat() -> Response[str]:
        user_id = caller()
        bucket = limiter()
        if bucket is not None:
            bucket.take(user_id, "chat")
        key = idempotency_key(app.current_event.headers.get(IDEMPOTENCY_HEADER))
        request = ChatRequest.model_validate_json(body_text(app.current_event))
        claims = app.current_event.request_context.authorizer.jwt_claim or {}
        zone = claims.get("zoneinfo")
        locale = claims.get("locale")  # OpenID Connect's standard claim: a BCP 47 tag, "en-GB"
        chat_turns = turns() if prefers_async(app.current_event.headers.get(PREFER_HEADER)) else None
        if chat_turns is not None:
            started = chat_turns.start_body(
                user_id,
                request,
                function_name=str(getattr(app.lambda_context, "function_name", "")),
                timezone_hint=zone if isinstance(zone, str) else None,
                user_email=verified_email(claims),
                idempotency_key=key,
                lambda_context=app.lambda_context,
                locale_hint=locale if isinstance(locale, str) else None,
            )
            turn_id = json.loads(started)["turnId"]
            return Response(
                status_code=HTTPStatus.ACCEPTED,
                content_type=content_types.APPLICATION_JSON,
                body=started,
                headers={"Location": f"/turns/{turn_id}", "Preference-Applied": ASYNC_MODE},
            )
        body = service().reply_body(
            user_id,
            request,
            timezone_hint=zone if isinstance(zone, str) else None,
            user_email=verified_email(claims),
            idempotency_key=key,
            lambda_context=app.lambda_context,
            user_token=bearer_token(app.current_event.headers.get("authorization")),
            locale_hint=locale if isinstance(locale, str) else None,
        )
        # The text as stored: a replay answers the very same bytes.
        return Response(status_code=HTTPStatus.OK, content_type=content_types.APPLICATION_JSON, body=body)

    @app.get(
        "/turns/<id>",
        operation_id="getTurn",
        summary="Follow a turn started with Prefer: respond-async",
        description=(
            "The turn's events from position after on: a card as soon as its draft exists, the "
            "assistant's text where the model streams it, then done (the reply POST /chat would have "
            "answered) or failed (the error it would have answered). Poll with after=next until the "
            "status is not running. Only the turn's owner can read it; anyone else gets 404."
        ),
        responses=answers.get("getTurn"),
    )
    def get_turn(id: str) -> Response[Any]:
        user_id = caller()
        after = _cursor(app.current_event.get_query_string_value("after"))
        chat_turns = turns()
        if chat_turns is None:
            raise TurnNotFound(id)
        view = chat_turns.view(user_id, id, after)
        return Response(
            status_code=HTTPStatus.OK,
            content_type=content_types.APPLICATION_JSON,
            body=view,
            headers={"Cache-Control": "no-store"},
        )

    @app.get(
        "/sessions/<id>",
        operation_id="getSession",
        summary="Read a session's conversation and the cards it produced",
        description=(
            "What a page shows again after a reload: each exchange the session keeps (the user's "
            "message, the reply, and the id and caption of each card), oldest first. GET /actions/{id} "
            "has each card and its state. Only the session's owner can read it; anyone else gets 404. "
            "A deployment on Bedrock Agents keeps the conversation in the agent: its exchanges are empty."
        ),
        responses=answers.get("getSession"),
    )
    def get_session(id: str) -> Response[Any]:
        view = service().conversation(caller(), id)
        return Response(
            status_code=HTTPStatus.OK,
            content_type=content_types.APPLICATION_JSON,
            body=json.dumps(view.to_wire()),
            headers={"Cache-Control": "no-store"},
        )

    _map_errors(app)
    return app


def _answers() -> dict[str, dict[int, Any]]:
    """Each route's answers, by operation id, as the OpenAPI document describes them."""
    from multitool.api.errors import openapi_responses
    from multitool.chat.service import ChatResponse
    from multitool.chat.session_views import SessionView
    from multitool.chat.turn_views import TurnStarted, TurnView

    return {
        "chat": openapi_responses(
            ChatResponse,
            "The reply; clientActions holds one card per action (absent when the turn made none)",
            {
                202: "Prefer: respond-async: the turn runs; follow it at GET /turns/{turnId} (Location)",
                400: "The body, a field or the Idempotency-Key header is invalid; error.field names it",
                403: "The sessionId belongs to another user (session_not_owned)",
                409: "The first request with this Idempotency-Key is still running (request_in_progress)",
                422: "This Idempotency-Key was used with another body (idempotency_key_reused)",
                429: (
                    "This user sent turns faster than one user may (rate_limited), or already runs as "
                    "many Prefer: respond-async turns as one user may (too_many_turns); see Retry-After"
                ),
                500: "The service failed or is not configured",
                502: "The model could not answer (model_failed)",
                503: "The model is busy, or the idempotency or turns store is away; retry after Retry-After",
            },
            retry_after={409: True, 429: True, 503: True},
            models={202: TurnStarted},
        ),
        "getTurn": openapi_responses(
            TurnView,
            "The turn's status and its events after the cursor",
            {
                400: "after is not a whole number of at least 0 (error.field: after)",
                404: "No such turn for this user (unknown, expired, or another user's)",
                503: "The turns store is away; retry after Retry-After",
            },
            retry_after={503: True},
        ),
        "getSession": openapi_responses(
            SessionView,
            "The session's exchanges, oldest first",
            {
                400: "id is not a session id (error.field: id)",
                404: "No such session for this user (unknown, expired, or another user's)",
            },
        ),
    }


MAX_CURSOR = 10_000


def _cursor(raw: str | None) -> int:
    if raw is None or raw == "":
        return 0
    if not raw.isascii() or not raw.isdigit() or int(raw) > MAX_CURSOR:
        raise ChatInputError("after", f"must be a whole number from 0 to {MAX_CURSOR}.")
    return int(raw)


def _error(
    status: int,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    *,
    field: str | None = None,
    **detail: Any,
) -> Response[Any]:
    """``detail``: the error's further fields (a provider error's ``provider``, ``authorizationUrl``)."""
    from multitool.api.errors import error_body  # a request that fails loads the error models

    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body=error_body(code, message, field=field, **detail),
        headers=headers,
    )


def _map_errors(app: APIGatewayHttpResolver) -> None:
    """The one place chat errors become HTTP responses (a message, never a stack trace).

    Each error says what it answers (:class:`multitool.errors.ServiceError`: the chat path's, an
    undecodable body, the user's rate limit); only the request's own validation (pydantic) is mapped here.
    """

    @app.exception_handler(ServiceError)  # type: ignore[untyped-decorator]
    def refused(error: ServiceError) -> Response[Any]:
        if error.code == "not_configured":
            logger.error(
                "Chat is misconfigured", extra={"error_type": type(error).__name__, "detail": str(error)}
            )
        else:
            logger.info("Chat request refused", extra={"code": error.code, "status": int(error.status)})
        return _error(
            error.status, error.code, error.public_message(), error.headers() or None, **error.detail()
        )

    @app.exception_handler(ValidationError)  # type: ignore[untyped-decorator]
    def invalid_body(error: ValidationError) -> Response[Any]:
        return _error(HTTPStatus.BAD_REQUEST, "bad_request", problems(error), field=first_field(error))

    @app.exception_handler(Exception)  # type: ignore[untyped-decorator]
    def unexpected(error: Exception) -> Response[Any]:
        # Type only: an exception's message may quote what the user wrote.
        logger.error("Chat request failed", extra=error_fields(error))
        return _error(HTTPStatus.INTERNAL_SERVER_ERROR, "internal_error", INTERNAL)

    @app.not_found
    def no_route(_missing: NotFoundError) -> Response[Any]:
        event = app.current_event
        return _error(HTTPStatus.NOT_FOUND, "not_found", f"No route {event.http_method} {event.path}.")
