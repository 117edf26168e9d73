"""The text of an HTTP API request body, or a typed error saying why there is none.

API Gateway hands a Lambda the body as a string, base64-encoded when it is
not text (``isBase64Encoded``). Powertools' ``decoded_body`` trusts both: a
body flagged base64 that is not base64, or base64 of bytes that are not UTF-8,
raises from inside the resolver and would answer 500. Both apps read the body
through :func:`body_text` instead; :class:`UndecodableBody` answers 400 through
each app's one generic handler.
"""

from __future__ import annotations

import base64
import binascii
import json
from http import HTTPStatus
from typing import Any

from aws_lambda_powertools.utilities.data_classes.common import BaseProxyEvent

from multitool.errors import ServiceError


class UndecodableBody(ServiceError):
    """The request body is not UTF-8 text (or not the base64 its flag claims); the message names ``body``."""

    code = "bad_request"
    status = HTTPStatus.BAD_REQUEST

    def detail(self) -> dict[str, Any]:
        return {"field": "body"}


def body_text(event: BaseProxyEvent) -> str:
    """The body as text ("" when absent): base64-decoded when flagged, always valid UTF-8.

    Raises :class:`UndecodableBody` (never echoing the body).
    """
    raw = event.body
    if not raw:
        return ""
    if not event.is_base64_encoded:
        if not _encodable(raw):
            raise UndecodableBody("body: must be valid JSON in UTF-8.")
        return raw
    try:
        data = base64.b64decode(raw.encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error):
        raise UndecodableBody("body: is flagged base64 but is not base64.") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UndecodableBody("body: must be valid JSON in UTF-8.") from None


def utf8_clean(value: Any) -> bool:
    """Whether every string in a decoded JSON value can be written as UTF-8.

    JSON may escape a lone surrogate (``"\\ud800"``): :func:`json.loads` accepts
    it, but no store, mail or Jira request can encode it later.
    """
    return _encodable(json.dumps(value, ensure_ascii=False))


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
