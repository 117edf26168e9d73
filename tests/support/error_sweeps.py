"""The checks the HTTP error sweeps (chat, review, tools) share: what an error body is, and what
an API's answer to an error must carry."""

from __future__ import annotations

from typing import Any

from multitool.errors import ServiceError

from tests.support.http_events import json_body


def err(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """The error body the APIs answer: ``{"error": {"code", "message", ...detail}}``."""
    return {"error": {"code": code, "message": message, **extra}}


def retry_after(response: dict[str, Any]) -> dict[str, str]:
    """The answer's ``Retry-After`` header, if any, as the only header the sweeps pin."""
    return {k: v for k, v in (response.get("headers") or {}).items() if k == "Retry-After"}


def assert_answers(
    response: dict[str, Any], status: int, body: dict[str, Any], headers: dict[str, str]
) -> None:
    """An HTTP API answer is ``status`` with ``body`` and (of the headers the sweeps pin) ``headers``."""
    assert response["statusCode"] == status
    assert json_body(response) == body
    assert retry_after(response) == headers


def assert_carries_its_code_and_status(response: dict[str, Any], error: ServiceError) -> None:
    """An HTTP API's answer to ``error`` is the status, code, words, detail and headers it carries."""
    assert isinstance(error, ServiceError)
    assert response["statusCode"] == error.status
    assert json_body(response)["error"] == {
        "code": error.code,
        "message": error.public_message(),
        **error.detail(),
    }
    assert retry_after(response) == {k: v for k, v in error.headers().items() if k == "Retry-After"}
