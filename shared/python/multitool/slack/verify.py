"""Slack's request signature, checked on the raw body before anything is parsed.

Slack signs every request it sends (events, interactions, commands) with the app's signing secret:
``X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<X-Slack-Request-Timestamp>:<raw body>">``, and asks
apps to refuse a timestamp more than five minutes from their clock, which makes a replayed request
stale (https://docs.slack.dev/authentication/verifying-requests-from-slack/). The check is
``slack_sdk.signature.SignatureVerifier``: the same base string, ``hmac.compare_digest`` (constant
time), the same five minutes. What it does not guard is done here first: a timestamp that is not a
whole number (the SDK's ``int()`` would raise), a body that is not the bytes Slack signed (API Gateway
hands a non-text body base64-encoded: it is decoded to the exact bytes before the HMAC).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import Any

from slack_sdk.signature import Clock, SignatureVerifier

from multitool.errors import ServiceError

SIGNATURE_HEADER = "x-slack-signature"
TIMESTAMP_HEADER = "x-slack-request-timestamp"
RETRY_NUM_HEADER = "x-slack-retry-num"
MAX_TIMESTAMP_DIGITS = 12


class NotFromSlack(ServiceError):
    """No signature, a wrong one, or a stale timestamp: 401, and nothing of the body was read."""

    code = "unauthenticated"
    status = HTTPStatus.UNAUTHORIZED
    answer = "The request is not signed by Slack."


class _WallClock(Clock):
    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now

    def now(self) -> float:
        return self._now()


def headers_of(event: Mapping[str, Any]) -> dict[str, str]:
    """The request's headers, names lower-cased (HTTP API payload 2.0 lower-cases them already)."""
    raw = event.get("headers") or {}
    return {str(k).lower(): str(v) for k, v in raw.items()} if isinstance(raw, Mapping) else {}


def raw_body(event: Mapping[str, Any]) -> bytes:
    """The body's bytes as Slack sent them; :class:`NotFromSlack` when a base64 flag lies."""
    body = event.get("body") or ""
    if not isinstance(body, str):
        raise NotFromSlack("body is not a string")
    if not event.get("isBase64Encoded"):
        try:
            return body.encode("utf-8")
        except UnicodeEncodeError:
            raise NotFromSlack("body is not UTF-8") from None
    try:
        return base64.b64decode(body.encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error):
        raise NotFromSlack("body is flagged base64 but is not base64") from None


def verified_body(
    event: Mapping[str, Any], signing_secret: str, now: Callable[[], float] | None = None
) -> bytes:
    """The raw body of a request Slack signed within the last five minutes; else :class:`NotFromSlack`."""
    headers = headers_of(event)
    timestamp = headers.get(TIMESTAMP_HEADER, "")
    signature = headers.get(SIGNATURE_HEADER, "")
    if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= MAX_TIMESTAMP_DIGITS):
        raise NotFromSlack("no usable timestamp")
    if not signature.startswith("v0="):
        raise NotFromSlack("no v0 signature")
    body = raw_body(event)
    verifier = SignatureVerifier(signing_secret, _WallClock(now) if now is not None else Clock())
    if not verifier.is_valid(body, timestamp, signature):
        raise NotFromSlack("bad or stale signature")
    return body


def retry_number(event: Mapping[str, Any]) -> int:
    """Which delivery of an event this is (``X-Slack-Retry-Num``; 0 for the first)."""
    value = headers_of(event).get(RETRY_NUM_HEADER, "0")
    return int(value) if value.isascii() and value.isdigit() and len(value) < 4 else 0
