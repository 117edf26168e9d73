"""HTTP to Google's APIs for the Google Workspace adapters: one call, its token, retries and errors.

Every call takes a bearer token from the :class:`~multitool.ports.tokens.TokenSource` for the
scopes it needs, and maps Google's answers to the provider errors every adapter raises, in one
place (:func:`error_for`):

- 429, and the rate-limit 403s (``rateLimitExceeded``, ``userRateLimitExceeded``): retried with
  exponential backoff and jitter, as Google asks
  (https://developers.google.com/workspace/calendar/api/guides/errors#exponential_backoff),
  honouring ``Retry-After`` when Google sends one, never past the function's ``deadline``
  (the one policy of :mod:`multitool.ports.retry`); then :class:`ProviderThrottled`.
- 401 (``authError``: the token expired or was revoked), and 403 ``insufficientPermissions``
  (the token lacks a scope the user never granted): :class:`AccountNotConnected`.
- 404 (no such calendar, event or user): :class:`ProviderRefused`; other 4xx too, with Google's
  message.
- 5xx, a timeout, or no answer: :class:`ProviderUnavailable`, retried first for a call that
  cannot do a thing twice (a read, a delete). A call that can (a Gmail send, an event insert
  that mails the invitations) is never made twice: sent without an answer (a timeout, a dropped
  connection, a 502/503/504) it is :class:`ProviderOutcomeUnknown`.

urllib3 is the client (already in the layer as botocore's dependency): one ``PoolManager`` per
function, handed in by the caller and reused across invocations.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, urlencode

import msgspec

from multitool.ports import retry
from multitool.ports.tokens import (
    AccountNotConnected,
    ProviderError,
    ProviderOutcomeUnknown,
    ProviderRefused,
    ProviderThrottled,
    ProviderUnavailable,
)

# Where each API lives (each discovery document's rootUrl + servicePath).
ROOTS: dict[str, str] = {
    "calendar": "https://www.googleapis.com/calendar/v3",
    "gmail": "https://gmail.googleapis.com/gmail/v1",
    "people": "https://people.googleapis.com/v1",
}
SERVICE_NAMES = {"calendar": "Google Calendar", "gmail": "Gmail", "people": "the Google Workspace directory"}
RATE_LIMIT_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded"})
RECONNECT_REASONS = frozenset({"insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT"})
READ_TIMEOUT = 10.0


class Answer(msgspec.Struct, frozen=True):
    status: int
    body: Any
    headers: Mapping[str, str]


def path(*segments: str) -> str:
    """A URL path from segments, each percent-encoded (an address or id never adds a ``/``)."""
    return "/" + "/".join(quote(segment, safe="@:") for segment in segments)


class GoogleApi(retry.AccountClient):
    """Calls of one user's Google Workspace APIs."""

    def url(self, service: str, relative: str, query: Sequence[tuple[str, str]] = ()) -> str:
        root = ROOTS[service]
        if self._base_url is not None:  # a stand-in serves every API under one origin, same paths
            root = self._base_url + root[root.index("/", len("https://")) :]
        return root + relative + (f"?{urlencode(list(query))}" if query else "")

    def call(
        self,
        method: str,
        service: str,
        relative: str,
        *,
        scopes: Sequence[str],
        query: Sequence[tuple[str, str]] = (),
        body: Any = None,
        idempotent: bool = True,
        check: str | None = None,
        accept: Sequence[int] = (200,),
        if_match: str | None = None,
    ) -> Answer:
        """The answer to one call: a status in ``accept``, or the mapped error raised.

        ``if_match``: an etag the resource must still have (``If-Match``): Google answers 412
        and writes nothing when it changed since
        (https://developers.google.com/workspace/calendar/api/guides/version-resources).

        ``idempotent``: whether making the call twice does what making it once does; one that is
        not (a send, an insert), sent without an answer, is :class:`ProviderOutcomeUnknown`,
        telling the user to look in ``check`` before confirming again."""
        url = self.url(service, relative, query)
        payload = None if body is None else json.dumps(body).encode()
        token = self._tokens.access_token("google", self.account, scopes)
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        if payload is not None:
            headers["Content-Type"] = "application/json"
        if if_match:
            headers["If-Match"] = if_match
        name = SERVICE_NAMES[service]
        try:
            raw = retry.send(
                self._http,
                method,
                url,
                body=payload,
                headers=headers,
                idempotent=idempotent,
                deadline=self._deadline,
                throttled=_throttled,
                read_timeout=READ_TIMEOUT,
                sleep=self._sleep,
                jitter=self._jitter,
            )
        except retry.OutcomeUnknown as unknown:
            raise ProviderOutcomeUnknown(
                "google",
                f"{name} did not answer after the request was sent ({unknown.cause}); it may have gone "
                f"through. Check {check or name} before confirming again.",
            ) from unknown
        except retry.Unreachable as unreachable:
            raise ProviderUnavailable(
                "google", f"{name} could not be reached ({unreachable.cause}); try again."
            ) from unreachable
        answer = Answer(status=raw.status, body=retry.body_json(raw.data), headers=raw.headers)
        if answer.status in accept:
            return answer
        raise error_for(service, answer)


def _throttled(status: int, data: bytes) -> bool:
    """Google's throttling: a 429, or a 403 whose reason is a rate limit."""
    if status == 429:
        return True
    return status == 403 and bool(error_reasons(retry.body_json(data))[0] & RATE_LIMIT_REASONS)


def error_reasons(body: Any) -> tuple[set[str], str]:
    """Google's error reasons (``errors[].reason``, and ``details[].reason``) and its message."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return set(), ""
    reasons = {
        str(e.get("reason")) for e in error.get("errors") or () if isinstance(e, dict) and e.get("reason")
    }
    reasons |= {
        str(d.get("reason")) for d in error.get("details") or () if isinstance(d, dict) and d.get("reason")
    }
    return reasons, str(error.get("message") or "").strip()


def error_for(service: str, answer: Answer) -> ProviderError:
    """The provider error for a Google answer that is not a success."""
    name = SERVICE_NAMES[service]
    status = answer.status
    reasons, message = error_reasons(answer.body)
    said = f": {message}" if message else ""
    if status == 429 or (status == 403 and reasons & RATE_LIMIT_REASONS):
        return ProviderThrottled(
            "google",
            f"{name} is limiting requests right now; try again shortly.",
            retry_after=retry.retry_after(answer.headers),
        )
    if status == 401:
        return AccountNotConnected(
            "google",
            "Your Google Workspace sign-in has expired or was revoked: reconnect the account; "
            "nothing was sent.",
        )
    if status == 403 and reasons & RECONNECT_REASONS:
        return AccountNotConnected(
            "google",
            "Your Google Workspace connection lacks a permission this needs: reconnect the account; "
            "nothing was sent.",
        )
    if status in (404, 410):
        return ProviderRefused("google", f"{name} has no such calendar, event or user (HTTP {status}){said}")
    if status >= 500:
        return ProviderUnavailable(
            "google",
            f"{name} failed (HTTP {status}); try again.",
            retry_after=retry.retry_after(answer.headers),
        )
    return ProviderRefused("google", f"{name} refused the request (HTTP {status}){said}")
