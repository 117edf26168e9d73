"""Microsoft Graph over urllib3: one request, Graph's throttling retried, Graph's errors mapped once.

The Microsoft 365 adapters (:mod:`multitool.ports.microsoft365.graph`) send every request through
:meth:`GraphHttp.send`, which

- asks the token source for the user's token for the scopes the call needs;
- retries as every provider client does (:mod:`multitool.ports.retry`): a 429 after its
  ``Retry-After``, else with exponential backoff and jitter, as Graph's throttling guidance asks
  (https://learn.microsoft.com/graph/throttling), never past the function's ``deadline``; a
  request left unanswered (a read timeout, a dropped connection) or answered 503/504 (which Graph
  answers under load too) is tried again only when it is idempotent: ``sendMail`` and an
  event's creation are :class:`ProviderOutcomeUnknown` then (it may have gone out), never sent
  twice;
- maps what Graph answers (https://learn.microsoft.com/graph/errors) to the provider errors of
  :mod:`multitool.ports.tokens`: 401 ``InvalidAuthenticationToken`` is
  :class:`AccountNotConnected` (the token expired or was revoked: reconnect), a 404
  (``ErrorItemNotFound``, ``MailboxNotEnabledForRESTAPI``, ``ResourceNotFound``) and the other
  4xx are :class:`ProviderRefused` in words a user can act on, a throttling that outlasts the
  retries is :class:`ProviderThrottled`, a 5xx or an unreachable service :class:`ProviderUnavailable`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final
from urllib.parse import quote, urlencode

import msgspec

from multitool.ports import retry
from multitool.ports.tokens import (
    AccountNotConnected,
    ProviderOutcomeUnknown,
    ProviderRefused,
    ProviderThrottled,
    ProviderUnavailable,
)
from multitool.text import single_line

GRAPH_URL = "https://graph.microsoft.com/v1.0"
PROVIDER: Final = "microsoft365"
READ_TIMEOUT_SECONDS = 20.0  # sendMail and an event's creation can take a while to answer
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE"})
ITEM_NOT_FOUND: Final = "ErrorItemNotFound"
_NOT_FOUND_WORDS = {
    ITEM_NOT_FOUND: "the calendar item no longer exists",
    "MailboxNotEnabledForRESTAPI": "the account has no Exchange Online mailbox (or it is on premises)",
    "ResourceNotFound": "the user or mailbox does not exist in this organization",
}


class GraphAnswer(msgspec.Struct, frozen=True):
    status: int
    body: Any
    headers: Mapping[str, str]


def user_path(address: str) -> str:
    """``/users/{address}``, the address escaped as one path segment."""
    return f"/users/{quote(address, safe='@')}"


class GraphHttp(retry.AccountClient):
    """Requests to Graph for one account, over the function's one ``PoolManager``."""

    def send(
        self,
        method: str,
        path: str,
        *,
        scopes: Sequence[str],
        query: Mapping[str, str] | None = None,
        body: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        what: str,
        idempotent: bool | None = None,
        check: str = "Microsoft 365",
    ) -> GraphAnswer:
        """One Graph call; ``what`` names it in errors ("reading free/busy").

        ``idempotent``: whether sending it twice does what sending it once does (default: by the
        method; a POST that only reads, such as getSchedule, says so). One that is not, sent
        without an answer, is :class:`ProviderOutcomeUnknown`, telling the user to look in
        ``check`` before confirming again."""
        url = (
            (self._base_url or GRAPH_URL)
            + path
            + (f"?{urlencode(query, quote_via=quote, safe='$,()')}" if query else "")
        )
        token = self._tokens.access_token(PROVIDER, self.account, scopes)
        sent = {"Authorization": f"Bearer {token}", "Accept": "application/json", **(headers or {})}
        payload = None
        if body is not None:
            payload = json.dumps(body, ensure_ascii=False).encode()
            sent["Content-Type"] = "application/json"
        try:
            raw = retry.send(
                self._http,
                method,
                url,
                body=payload,
                headers=sent,
                idempotent=method in IDEMPOTENT_METHODS if idempotent is None else idempotent,
                deadline=self._deadline,
                read_timeout=READ_TIMEOUT_SECONDS,
                sleep=self._sleep,
                jitter=self._jitter,
            )
        except retry.OutcomeUnknown as unknown:
            raise ProviderOutcomeUnknown(
                PROVIDER,
                f"Microsoft 365 did not answer after the request was sent while {what} ({unknown.cause}); "
                f"it may have gone through. Check {check} before confirming again.",
            ) from unknown
        except retry.Unreachable as unreachable:
            raise ProviderUnavailable(
                PROVIDER,
                f"Microsoft 365 could not be reached while {what} ({unreachable.cause}); try again.",
            ) from unreachable
        answer = GraphAnswer(raw.status, retry.body_json(raw.data), raw.headers)
        if answer.status < 400:
            return answer
        if answer.status == 429:
            retry_after = retry.retry_after(answer.headers)
            raise ProviderThrottled(
                PROVIDER,
                f"Microsoft 365 is throttling requests while {what}; nothing was changed. Try again"
                + (f" in {round(retry_after)} s." if retry_after else " shortly."),
                retry_after=retry_after,
            )
        raise graph_error(answer, what)

    def get_item(
        self,
        path: str,
        *,
        scopes: Sequence[str],
        query: Mapping[str, str],
        headers: Mapping[str, str],
        what: str,
    ) -> GraphAnswer | None:
        """``GET`` of one event or message that may be gone: None when Graph answers 404
        ``ErrorItemNotFound`` (deleted since it was shown); any other error as :meth:`send` raises it."""
        try:
            return self.send("GET", path, scopes=scopes, query=query, headers=headers, what=what)
        except ProviderRefused as refused:
            if _NOT_FOUND_WORDS[ITEM_NOT_FOUND] in str(refused):
                return None
            raise


def values(body: Any) -> list[dict[str, Any]]:
    """The objects of a Graph collection's ``value`` ([] for any other answer)."""
    found = body.get("value") if isinstance(body, dict) else None
    return [v for v in found or () if isinstance(v, dict)]


def recipient(address: str) -> dict[str, Any]:
    """A Graph ``recipient``: the address alone (Exchange fills in the name it knows)."""
    return {"emailAddress": {"address": single_line(address)}}


def graph_error(answer: GraphAnswer, what: str) -> Exception:
    """The provider error for a Graph error answer (4xx or 5xx, retries spent)."""
    error = answer.body.get("error", {}) if isinstance(answer.body, dict) else {}
    code = str(error.get("code") or "")
    message = str(error.get("message") or "").strip()
    said = f" ({code}: {message[:200]})" if code or message else ""
    if answer.status == 401:
        return AccountNotConnected(
            PROVIDER,
            "Your Microsoft 365 sign-in has expired or was revoked: reconnect the account to go on. "
            "Nothing was sent.",
        )
    if answer.status == 404:
        words = _NOT_FOUND_WORDS.get(code, "Microsoft 365 has no such user, mailbox or item")
        return ProviderRefused(PROVIDER, f"Microsoft 365 refused {what}: {words}{said}.")
    if answer.status == 403:
        return ProviderRefused(
            PROVIDER,
            f"Microsoft 365 denied access while {what}: the app lacks the permission, or the "
            f"organization's application access policy does not cover this mailbox{said}.",
        )
    if answer.status >= 500:
        return ProviderUnavailable(
            PROVIDER,
            f"Microsoft 365 failed while {what} ({answer.status}); try again.",
            retry_after=retry.retry_after(answer.headers),
        )
    return ProviderRefused(PROVIDER, f"Microsoft 365 refused {what}{said}.")
