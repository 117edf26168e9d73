"""The bodies the HTTP API answers a failure with: one shape for every route.

``{"error": {"code", "message", "field"?, "retryable"?}}``; the review adds the
action's current state (``"action"``) when the failure leaves one worth showing.
The apps build every error body from these models and the OpenAPI document
(:mod:`multitool.api.openapi`) describes them from the same models.
API Gateway's own refusals (no route, the JWT authorizer refused the token, a
body over its limit) are :class:`GatewayMessage`.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

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
