"""Microsoft Graph over urllib3: one request, Graph's throttling retried, Graph's errors mapped once.

The Microsoft 365 adapters (:mod:`multitool.ports.microsoft365`) send every request through
:meth:`GraphHttp.send`, which

- asks the token source for the user's token for the scopes the call needs;
- retries a 429 (and a 503/504, which Graph answers under load too) after its ``Retry-After``,
  else with exponential backoff, as Graph's throttling guidance asks
  (https://learn.microsoft.com/graph/throttling), never past the function's ``deadline``;
- maps what Graph answers (https://learn.microsoft.com/graph/errors) to the provider errors of
  :mod:`multitool.ports.tokens`: 401 ``InvalidAuthenticationToken`` is
  :class:`AccountNotConnected` (the token expired or was revoked: reconnect), a 404
  (``ErrorItemNotFound``, ``MailboxNotEnabledForRESTAPI``, ``ResourceNotFound``) and the other
  4xx are :class:`ProviderRefused` in words a user can act on, a throttling that outlasts the
  retries is :class:`ProviderThrottled`, a 5xx or an unreachable service :class:`ProviderUnavailable`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote, urlencode

import msgspec

from multitool.ports.tokens import (
    Account,
    AccountNotConnected,
    ProviderRefused,
    ProviderThrottled,
    ProviderUnavailable,
    TokenSource,
)

if TYPE_CHECKING:
    import urllib3

GRAPH_URL = "https://graph.microsoft.com/v1.0"
PROVIDER: Final = "microsoft365"
MAX_ATTEMPTS = 4
FIRST_BACKOFF_SECONDS = 0.5
MAX_WAIT_SECONDS = 30.0
# A request is not started with less than this left: its own answer needs the time.
REQUEST_SECONDS = 5.0
_RETRIED = frozenset({429, 503, 504})
_NOT_FOUND_WORDS = {
    "ErrorItemNotFound": "the calendar item no longer exists",
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


class GraphHttp:
    """Requests to Graph for one account, over the function's one ``PoolManager``."""

    def __init__(
        self,
        account: Account,
        tokens: TokenSource,
        *,
        http: urllib3.PoolManager,
        base_url: str | None = None,
        deadline: Callable[[], float] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.account = account
        self._tokens = tokens
        self._http = http
        self._base = (base_url or GRAPH_URL).rstrip("/")
        self._deadline = deadline
        self._sleep = sleep

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
    ) -> GraphAnswer:
        """One Graph call; ``what`` names it in errors ("reading free/busy")."""
        import urllib3

        url = self._base + path + (f"?{urlencode(query, quote_via=quote, safe='$,()')}" if query else "")
        token = self._tokens.access_token(PROVIDER, self.account, scopes)
        sent = {"Authorization": f"Bearer {token}", "Accept": "application/json", **(headers or {})}
        payload = None
        if body is not None:
            payload = json.dumps(body, ensure_ascii=False).encode()
            sent["Content-Type"] = "application/json"
        wait = FIRST_BACKOFF_SECONDS
        for attempt in range(1, MAX_ATTEMPTS + 1):
            if self._left() < REQUEST_SECONDS:
                raise ProviderUnavailable(
                    PROVIDER, f"Microsoft 365 did not answer in time while {what}; try again."
                )
            try:
                response = self._http.request(
                    method,
                    url,
                    body=payload,
                    headers=sent,
                    timeout=urllib3.Timeout(connect=3.0, read=max(1.0, min(20.0, self._left() - 1.0))),
                    retries=False,
                    redirect=False,
                )
            except urllib3.exceptions.HTTPError as error:
                if attempt == MAX_ATTEMPTS:
                    raise ProviderUnavailable(
                        PROVIDER,
                        f"Microsoft 365 could not be reached while {what} "
                        f"({type(error).__name__}); try again.",
                    ) from error
                self._pause(wait)
                wait *= 2
                continue
            answer = GraphAnswer(response.status, _json(response.data), dict(response.headers))
            if answer.status < 400:
                return answer
            if answer.status in _RETRIED:
                retry_after = _retry_after(answer.headers)
                pause = retry_after if retry_after is not None else wait
                if attempt < MAX_ATTEMPTS and pause <= min(MAX_WAIT_SECONDS, self._left() - REQUEST_SECONDS):
                    self._pause(pause)
                    wait *= 2
                    continue
                if answer.status == 429:
                    raise ProviderThrottled(
                        PROVIDER,
                        f"Microsoft 365 is throttling requests while {what}; nothing was changed. Try again"
                        + (f" in {round(retry_after)} s." if retry_after else " shortly."),
                        retry_after=retry_after,
                    )
            raise graph_error(answer, what)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _left(self) -> float:
        return self._deadline() if self._deadline is not None else float("inf")

    def _pause(self, seconds: float) -> None:
        self._sleep(max(0.0, seconds))


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
    if answer.status >= 500 or answer.status in _RETRIED:
        return ProviderUnavailable(
            PROVIDER,
            f"Microsoft 365 failed while {what} ({answer.status}); try again.",
            retry_after=_retry_after(answer.headers),
        )
    return ProviderRefused(PROVIDER, f"Microsoft 365 refused {what}{said}.")


def _json(data: bytes) -> Any:
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def _retry_after(headers: Mapping[str, str]) -> float | None:
    for name, value in headers.items():
        if name.lower() == "retry-after":
            try:
                return max(0.0, float(value))
            except ValueError:
                return None  # an HTTP date: Graph sends seconds; back off as without one
    return None
