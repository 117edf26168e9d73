"""The bodies the HTTP API answers a failure with: one shape for every route.

``{"error": {"code", "message", "field"?, "retryable"?}}``; the review adds the
action's current state (``"action"``) when the failure leaves one worth showing.
The apps build every error body from these models and the OpenAPI document
(:mod:`multitool.api.openapi`) describes them from the same models.
API Gateway's own refusals (no route, the JWT authorizer refused the token, a
body over its limit) are :class:`GatewayMessage`.
"""

from typing import Any

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from multitool.errors import RETRY_AFTER
from multitool.wire import WireModel


class ErrorDetail(WireModel):
    code: str = Field(description="What went wrong, for programs: bad_request, not_found, slot_taken, ...")
    message: str = Field(description="What went wrong, in words to act on (never the input, never a trace)")
    field: str | SkipJsonSchema[None] = Field(
        default=None, description="The field at fault: to[0], slot.start, body, Idempotency-Key"
    )
    retryable: bool | SkipJsonSchema[None] = Field(
        default=None, description="The same confirm may be sent again as it is"
    )
    # A user's own account (multitool.ports.tokens): which provider refused, and where to connect it.
    provider: str | SkipJsonSchema[None] = Field(
        default=None, description="The provider of the user's own account: microsoft365, google, atlassian"
    )
    provider_name: str | SkipJsonSchema[None] = Field(
        default=None, description="The provider's name as the user knows it: Microsoft 365, Google Workspace"
    )
    authorization_url: str | SkipJsonSchema[None] = Field(
        default=None, description="account_not_connected: where the user connects the account"
    )
    waits_for: list[str] | SkipJsonSchema[None] = Field(
        default=None, description="waits_for: the cards this one waits for (confirm them first)"
    )


class ApiError(WireModel):
    """The body of every error the API's functions answer."""

    error: ErrorDetail

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class GatewayMessage(WireModel):
    """API Gateway's own answer, before any function runs: ``{"message": "Unauthorized"}``."""

    message: str = Field(description="Unauthorized, Not Found, Request Entity Too Large, ...")


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """``{"error": {"code", "message", ...}}`` as the wire carries it (fields left None are absent)."""
    return ApiError(error=ErrorDetail(code=code, message=message, **extra)).to_wire()


# -- how a route declares its answers (Powertools' ``responses=``, read by multitool.api.openapi) ---------

# API Gateway answers these itself too, before the function (the JWT authorizer, a body over its limit, a
# function that crashed): their body is then {"message": ...}.
_GATEWAY_TOO = frozenset({401, 500})
_GATEWAY_ONLY = frozenset({413})
GATEWAY_ERRORS: dict[int, str] = {
    401: "No signed-in user: the JWT authorizer refused the token, or it carries no user",
    413: "The body is over the API's size limit",
    500: "The service failed; nothing was acted on twice. Retry later",
}


def _retry_after(required: bool) -> dict[str, Any]:
    return {
        RETRY_AFTER: {
            "description": "Seconds to wait before retrying the same request",
            "required": required,
            "schema": {"type": "integer", "minimum": 1},
        }
    }


def openapi_responses(
    ok: type[WireModel],
    ok_description: str,
    errors: dict[int, str],
    *,
    error_model: type[ApiError] = ApiError,
    retry_after: dict[int, bool] | None = None,
    models: dict[int, type[WireModel]] | None = None,
) -> dict[int, Any]:
    """A route's ``responses=``: ``ok`` on 200, the error model on each of ``errors`` (and API Gateway's own).

    ``retry_after`` maps a status to whether its ``Retry-After`` header is always sent; ``models`` gives
    another success's body (a 202's) for a status of ``errors``.
    """
    answers: dict[int, Any] = {200: {"description": ok_description, "content": _json(ok)}}
    for status, description in sorted({**GATEWAY_ERRORS, **errors}.items()):
        model: Any = (
            models[status]
            if models and status in models
            else GatewayMessage
            if status in _GATEWAY_ONLY
            else error_model | GatewayMessage
            if status in _GATEWAY_TOO
            else error_model
        )
        answer: dict[str, Any] = {"description": description, "content": _json(model)}
        if retry_after and status in retry_after:
            answer["headers"] = _retry_after(retry_after[status])
        answers[status] = answer
    return answers


def _json(model: Any) -> dict[str, Any]:
    return {"application/json": {"model": model}}
