"""The error an API answers on purpose: its code, its HTTP status, the words the caller reads.

A base type: it imports nothing of the layer. An error of the chat path subclasses it and says
what it answers; :mod:`multitool.api.chat_app` turns any of them into a response in one
generic handler (the review's errors follow the same shape, :mod:`multitool.review.errors`).
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any, ClassVar

RETRY_AFTER = "Retry-After"


class ServiceError(Exception):
    """A failure the API answers with ``{"error": {"code", "message", ...detail}}`` and ``status``.

    ``answer``: fixed words the caller reads instead of the exception's own message, for errors whose
    message may quote the input, another user or a backend.
    """

    code: ClassVar[str] = "internal_error"
    status: ClassVar[int] = HTTPStatus.INTERNAL_SERVER_ERROR
    answer: ClassVar[str | None] = None

    def public_message(self) -> str:
        return self.answer if self.answer is not None else str(self)

    def detail(self) -> dict[str, Any]:
        """The error detail's fields beside ``code`` and ``message`` (``field``)."""
        return {}

    def headers(self) -> dict[str, str]:
        return {}
