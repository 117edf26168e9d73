"""The review API: ``GET /actions/{id}``, ``POST /actions/{id}/confirm``, ``POST /actions/{id}/discard``,
``POST /actions/confirm-all`` (several cards in dependency order, :mod:`multitool.review.links`).

A Powertools ``APIGatewayHttpResolver`` (HTTP API, payload format 2.0) over
:class:`multitool.review.Reviewer`. The caller is the JWT authorizer's ``sub``
claim; typed errors become HTTP responses in one place, :func:`_map_errors`.
The deployed handler, the local server and the tests serve this same app; the deployed one's
reviewer, limiter and accounts are :mod:`multitool.wiring.review`'s.
"""

import json
from collections.abc import Callable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from pydantic import Field, ValidationError
from pydantic.json_schema import SkipJsonSchema

from multitool.api import bearer_token, groups_claim, verified_email
from multitool.api.bodies import body_text, utf8_clean
from multitool.api.errors import ApiError, ErrorDetail, openapi_responses
from multitool.errors import ServiceError
from multitool.observability import error_fields, logger
from multitool.ports.rate import RateLimiter
from multitool.ports.retry import invocation_deadline
from multitool.review import (
    Caller,
    ReviewError,
    name_claim,
)
from multitool.review.accounts import (
    Accounts,
    AccountsNotConfigured,
    ConnectionsView,
    ConnectionView,
)
from multitool.review.links import ConfirmAllView
from multitool.review.reviewer import Reviewer
from multitool.review.views import DraftView
from multitool.toolkit.context import MAX_CALLS_PER_BATCH
from multitool.validation import problems
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.drafts import Draft

ReviewerProvider = Callable[[], Reviewer]
LimiterProvider = Callable[[], RateLimiter | None]
AccountsProvider = Callable[[], Accounts | None]


PREREQUISITES_PARAMETER = "prerequisites"
PREREQUISITES_FIRST = "first"
"""``POST /actions/{id}/confirm?prerequisites=first``: confirm the cards it waits for first."""

MAX_CONFIRM_ALL = 4 * MAX_CALLS_PER_BATCH
"""How many cards one confirm-all names at most: a few turns' worth."""


class ConfirmAllRequest(WireModel):
    """``POST /actions/confirm-all``'s body."""

    ids: list[str] = Field(
        min_length=1,
        max_length=MAX_CONFIRM_ALL,
        description="The cards to confirm (a turn's open cards), any order: they run in dependency order",
    )
    edits: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Per card id, the fields the user changed (as for one confirm)"
    )


class Unauthenticated(ReviewError):
    code = "unauthenticated"
    status = HTTPStatus.UNAUTHORIZED


class BadRequest(ReviewError):
    code = "bad_request"
    status = HTTPStatus.BAD_REQUEST

    def detail(self) -> dict[str, Any]:
        return {"field": "body"}


class ReviewApiError(ApiError):
    """A review error; with the action's current state when the failure leaves one to show."""

    action: DraftView | SkipJsonSchema[None] = Field(
        default=None, description="The action as it is now (a conflict, a failed side effect)"
    )


def no_limit() -> None:
    """No per-user limit on the confirms."""
    return None


def no_accounts() -> None:
    """A deployment that connects no accounts of its users: ``/connections`` answers 404."""
    return None


def review_app(
    reviewer: ReviewerProvider,
    limiter: LimiterProvider = no_limit,
    accounts: AccountsProvider = no_accounts,
) -> APIGatewayHttpResolver:
    """The routes over the given reviewer, limiter and accounts, each asked for on a request's first
    use (the deployed ones: :mod:`multitool.wiring.review`)."""
    app = APIGatewayHttpResolver()

    def within_the_invocation(
        resolver: APIGatewayHttpResolver, next_middleware: Callable[..., Response[Any]]
    ) -> Response[Any]:
        """A provider request's retries end before the Lambda invocation does."""
        with invocation_deadline(resolver.lambda_context):
            return next_middleware(resolver)

    app.use(middlewares=[within_the_invocation])

    def caller() -> Caller:
        claims = app.current_event.request_context.authorizer.jwt_claim
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub.strip():
            raise Unauthenticated("Sign in first: the request carries no user.")
        return Caller(
            user_id=sub.strip(),
            email=verified_email(claims),
            name=name_claim(claims),
            groups=groups_claim(claims),
            user_token=bearer_token(app.current_event.headers.get("authorization")),
        )

    def json_object() -> dict[str, Any]:
        raw = body_text(app.current_event)
        if not raw.strip():
            return {}
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than the decoder recurses
            raise BadRequest("body: must be valid JSON.") from None
        if not isinstance(body, dict):
            raise BadRequest("body: must be a JSON object of the card's fields.")
        if not utf8_clean(body):
            raise BadRequest("body: must be UTF-8 text: it escapes a lone surrogate (\\ud800-\\udfff).")
        return body

    # ``id`` as the deployed routes name it (/actions/{id}), so the OpenAPI document matches them.
    @app.get(
        "/actions/<id>",
        operation_id="getAction",
        summary="Read an action (a draft card) and its state",
        description="Only the draft's owner sees it: anyone else's draft, or an unknown id, is 404.",
        responses=_answers("The action"),
    )
    def get_action(id: str) -> dict[str, Any]:
        return DraftView.of(reviewer().get(caller(), id)).to_wire()

    @app.post(
        "/actions/<id>/confirm",
        operation_id="confirmAction",
        summary="Confirm an action, with the fields as the user edited them: send, book or create, once",
        description=(
            "The body holds the card's fields the user changed (the edits of the action's tool); "
            "fields left out keep their last confirmed value, else the draft's. A confirm after done "
            "with the same content answers the stored result without acting again."
        ),
        responses=_answers(
            "The action, done (its result says what was sent, booked or created)",
            {
                400: "The body is not a JSON object",
                403: (
                    "The account waits for an administrator's approval (approval_required), or the "
                    "user's own Microsoft 365 or Google account is not connected (account_not_connected)"
                ),
                409: (
                    "The action is in progress, done with other content, discarded, or the slot was "
                    "taken; it waits for another card not confirmed yet (waits_for, naming it in "
                    "waitsFor); or the card it waited for was discarded or failed, and its placeholder "
                    "was removed (link_dropped: review the card and confirm again)"
                ),
                422: (
                    "An edit is invalid, a name is still unsettled, or an address is not one this "
                    "deployment mails (recipient_not_allowed); error.field names it (to[0], slot)"
                ),
                429: (
                    "The daily recipient quota would be passed (recipient_quota_exceeded), or this user "
                    "confirms faster than the per-user rate allows (rate_limited); nothing was sent"
                ),
                502: "The backend refused the action; it can be confirmed again after a change",
                503: "The backend is busy or away, or not configured; retry (after Retry-After when sent)",
            },
        ),
    )
    def confirm_action(id: str) -> dict[str, Any]:
        who = caller()
        bucket = limiter()
        if bucket is not None:
            bucket.take(who.user_id, "confirm")
        first = app.current_event.get_query_string_value(PREREQUISITES_PARAMETER)
        if first not in (None, "", PREREQUISITES_FIRST):
            raise BadRequest(f"{PREREQUISITES_PARAMETER}: must be '{PREREQUISITES_FIRST}' or absent.")
        if first == PREREQUISITES_FIRST:
            return DraftView.of(reviewer().confirm_in_order(who, id, json_object())).to_wire()
        return DraftView.of(reviewer().confirm(who, id, json_object())).to_wire()

    @app.post(
        "/actions/confirm-all",
        operation_id="confirmAllActions",
        summary="Confirm several actions (a turn's cards) in dependency order, each once",
        description=(
            "Each card named in ids is confirmed with its edits (edits.<id>), a card after every card "
            "of the set it waits for (links). The answer says what happened to each: sent, booked or "
            "created, discarded, replaced, refused (with its error's code and message) or held (it waits "
            "for a card that was refused or needs a choice). A retry confirms nothing twice."
        ),
        responses=openapi_responses(
            ConfirmAllView,
            "Each card's outcome, in the order they were confirmed",
            {400: "The body is not {ids, edits?}", 429: "This user confirms faster than the rate allows"},
            error_model=ReviewApiError,
            retry_after={429: True},
        ),
    )
    def confirm_all_actions() -> dict[str, Any]:
        who = caller()
        try:
            request = ConfirmAllRequest.model_validate(json_object())
        except ValidationError as error:
            raise BadRequest(f"body: {problems(error) or 'must be {ids, edits}'}") from None
        bucket = limiter()
        if bucket is not None:
            bucket.take(who.user_id, "confirm")
        return reviewer().confirm_all(who, request.ids, request.edits).to_wire()

    @app.post(
        "/actions/<id>/undo",
        operation_id="undoAction",
        summary="Undo a confirmed action within its undo window: nothing is sent, the card is a draft again",
        description=(
            "A confirm of an action that can wait (a mail) answers status scheduled with dueAt and "
            "undoUntil; until then this cancels it (status proposed, the confirmed edits kept). After "
            "it, 409 too_late_to_undo with the action as it is (being sent or done). An action with "
            "nothing scheduled (proposed, failed, discarded, replaced) is answered as it is."
        ),
        responses=_answers(
            "The action, back to a draft (or as it is, when nothing was scheduled)",
            {409: "Too late: the action is being sent or done (too_late_to_undo)"},
        ),
    )
    def undo_action(id: str) -> dict[str, Any]:
        return DraftView.of(reviewer().undo(caller(), id)).to_wire()

    @app.post(
        "/actions/<id>/discard",
        operation_id="discardAction",
        summary="Discard an action: nothing is sent, booked or created",
        description="A proposed or failed action can be discarded; a done one cannot (409).",
        responses=_answers("The action, discarded", {409: "The action is in progress or already done"}),
    )
    def discard_action(id: str) -> dict[str, Any]:
        return DraftView.of(reviewer().discard(caller(), id)).to_wire()

    def connected_accounts() -> Accounts:
        found = accounts()
        if found is None:
            raise AccountsNotConfigured("no identity settings")
        return found

    @app.get(
        "/connections",
        operation_id="listConnections",
        summary="The caller's own accounts (Microsoft 365, Google Workspace) and whether each is connected",
        description="Each provider this deployment connects, with this user's status: never another user's.",
        responses=openapi_responses(
            ConnectionsView, "Each provider this deployment connects", {404: "This deployment connects none"}
        ),
    )
    def list_connections() -> dict[str, Any]:
        return connected_accounts().list(caller().user_id).to_wire()

    @app.post(
        "/connections/complete",
        operation_id="completeConnection",
        summary="Finish a consent: the page posts the session_id the provider returned with",
        description=(
            "Only the user the consent was started for can finish it: anyone else is 403 "
            "consent_not_yours and nothing is connected. Body: {sessionUri, provider}."
        ),
        responses=openapi_responses(
            ConnectionView,
            "The account, connected",
            {
                400: "sessionUri or provider is missing or malformed",
                403: "The consent was started by another user, expired, or was already used",
                404: "This deployment connects no accounts",
                502: "AgentCore Identity refused the consent",
                503: "AgentCore Identity is busy or away; retry",
            },
        ),
    )
    def complete_connection() -> dict[str, Any]:
        who = caller()
        return connected_accounts().complete(who.user_id, who.user_token, json_object(), who.email).to_wire()

    @app.post(
        "/connections/<provider>/disconnect",
        operation_id="disconnectConnection",
        summary="Disconnect an account: no token is taken for it again without a new consent",
        description=(
            "AgentCore Identity offers no call that deletes a user's token from its vault: the account is "
            "marked disconnected and the next use asks for a new consent (forceAuthentication)."
        ),
        responses=openapi_responses(
            ConnectionView,
            "The account, disconnected",
            {400: "No such provider in this deployment", 404: "This deployment connects no accounts"},
        ),
    )
    def disconnect_connection(provider: str) -> dict[str, Any]:
        return connected_accounts().disconnect(caller().user_id, provider).to_wire()

    _map_errors(app)
    return app


def _answers(ok: str, errors: dict[int, str] | None = None) -> dict[int, Any]:
    """A review route's answers: the action on 200, ``ReviewApiError`` otherwise (404 on every route)."""
    return openapi_responses(
        DraftView,
        ok,
        {404: "No such action for this user (another user's action is 404 too)", **(errors or {})},
        error_model=ReviewApiError,
        retry_after={
            **({503: False} if errors and 503 in errors else {}),
            **({429: True} if errors and 429 in errors else {}),
        }
        or None,
    )


def _response(error: ServiceError, draft: "Draft | None") -> Response[Any]:
    """``{"error": {"code", "message", ...detail}}``, with the action's current state when there is one."""
    body = ReviewApiError(
        error=ErrorDetail(code=error.code, message=error.public_message(), **error.detail()),
        action=DraftView.of(draft) if draft is not None else None,
    )
    return Response(
        status_code=int(error.status),
        content_type=content_types.APPLICATION_JSON,
        body=body.to_wire(),
        headers=error.headers() or None,
    )


def _body(code: str, message: str) -> dict[str, Any]:
    return ApiError(error=ErrorDetail(code=code, message=message)).to_wire()


def _map_errors(app: APIGatewayHttpResolver) -> None:
    """The one place review errors become HTTP responses: each error carries its code and status
    (:class:`multitool.errors.ServiceError`: the review's, an undecodable body, the user's rate limit)."""

    @app.exception_handler(ServiceError)  # type: ignore[untyped-decorator]
    def refused(error: ServiceError) -> Response[Any]:
        draft = error.draft if isinstance(error, ReviewError) else None
        field = error.detail().get("field")
        # Code and place only: the message may quote the draft's content.
        logger.info(
            "Review request refused",
            extra={
                "code": error.code,
                "status": int(error.status),
                **({"field": field} if field is not None else {}),
                **({"draft_id": draft.id} if draft is not None else {}),
            },
        )
        return _response(error, draft)

    @app.exception_handler(Exception)  # type: ignore[untyped-decorator]
    def unexpected(error: Exception) -> Response[Any]:
        # Type and place only: the exception's text may quote a draft's content.
        logger.error("Review request failed", extra=error_fields(error))
        return Response(
            status_code=int(HTTPStatus.INTERNAL_SERVER_ERROR),
            content_type=content_types.APPLICATION_JSON,
            body=_body("internal_error", "Something went wrong; try again."),
        )

    @app.not_found
    def no_route(_error: NotFoundError) -> Response[Any]:
        event = app.current_event
        return Response(
            status_code=int(HTTPStatus.NOT_FOUND),
            content_type=content_types.APPLICATION_JSON,
            body=_body("not_found", f"No route {event.http_method} {event.path}."),
        )
