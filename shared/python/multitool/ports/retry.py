"""One retry policy for every provider client: Microsoft Graph, Google's APIs, Jira, and the token
endpoints (Google's domain-wide delegation, Microsoft Entra's client credentials).

:func:`send` makes one logical request over the function's ``urllib3.PoolManager`` and decides,
in one place, what may be tried again:

- **Nothing reached the provider** (no connection, a connect timeout): tried again, any method.
- **Throttled** (429, or what the client says is throttling, e.g. Google's rate-limit 403s): tried
  again, any method: the provider refused the request without acting on it. Graph, Google and
  Jira all ask for this, after ``Retry-After`` when they send one
  (https://learn.microsoft.com/graph/throttling,
  https://developers.google.com/workspace/calendar/api/guides/errors#exponential_backoff,
  https://developer.atlassian.com/cloud/jira/platform/rate-limiting/).
- **Sent, and no answer says what became of it** (a read timeout, a dropped connection, or a
  502/503/504 from a gateway in front of the service): tried again only when the request is
  idempotent (a read, a delete, a write the caller made idempotent). A request that is not (a
  mail sent, an event created, an issue created: no provider takes an idempotency key for them
  here) is never sent twice: it raises :class:`OutcomeUnknown`, which each client reports as
  "outcome unknown" (Jira's ``jira_outcome_unknown``, the suites' ``provider_outcome_unknown``),
  and the user checks before confirming again.

Every wait is exponential backoff with jitter (``Retry-After`` when the provider sends one,
seconds or an HTTP date, parsed by :meth:`urllib3.util.Retry.parse_retry_after`), and no wait
or request is started that would end past the ``deadline`` (the seconds the function has left).
The loop is here rather than in :class:`urllib3.util.Retry` because that one cannot see a
deadline (it sleeps a ``Retry-After`` whole) nor a throttling told by the body (Google's 403s),
and urllib3 is told ``retries=False``: one mechanism, one place.

:func:`invocation_deadline` bounds every request in a block by the Lambda invocation's own
remaining time (the review API sets it around each request); :func:`budget` is a deadline that
also ends a fixed number of seconds after it was made.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final, Protocol

import msgspec

if TYPE_CHECKING:
    import urllib3

    from multitool.ports.tokens import Account, TokenSource

MAX_ATTEMPTS: Final = 4
FIRST_BACKOFF_SECONDS: Final = 0.5
MAX_BACKOFF_SECONDS: Final = 8.0
MAX_RETRY_AFTER_SECONDS: Final = 30.0
CONNECT_TIMEOUT_SECONDS: Final = 3.0
READ_TIMEOUT_SECONDS: Final = 10.0
REQUEST_SECONDS: Final = 2.0
"""A retry is not started with less than this left after its wait: its own answer needs the time."""
MARGIN_SECONDS: Final = 0.5
"""Kept for answering the user after the last request."""
REQUEST_BUDGET_SECONDS: Final = 25.0
"""What one request of a suite or Jira may spend, retries included, when nothing tighter is known:
the HTTP API cuts every request at 30 s, and the answer needs the rest."""
UNKNOWN_STATUSES: Final = frozenset({502, 503, 504})
"""Gateway answers: the service behind may have acted before the gateway gave up."""
RETRIED_STATUSES: Final = frozenset({500}) | UNKNOWN_STATUSES

_INVOCATION_ENDS: ContextVar[float | None] = ContextVar("multitool_invocation_ends", default=None)


class RemainingTime(Protocol):
    def get_remaining_time_in_millis(self) -> int: ...


@contextmanager
def invocation_deadline(context: RemainingTime | None) -> Iterator[None]:
    """Within the block, every :func:`send` ends before the Lambda invocation does."""
    ends = None
    if context is not None:
        try:
            ends = time.monotonic() + int(context.get_remaining_time_in_millis()) / 1000
        except (AttributeError, TypeError, ValueError):
            ends = None
    token = _INVOCATION_ENDS.set(ends)
    try:
        yield
    finally:
        _INVOCATION_ENDS.reset(token)


def budget(seconds: float = REQUEST_BUDGET_SECONDS) -> Callable[[], float]:
    """A deadline (seconds left) ending ``seconds`` from now, or with the invocation if sooner."""
    ends = time.monotonic() + seconds
    return lambda: ends - time.monotonic()


def seconds_left(deadline: Callable[[], float] | None) -> float:
    """What ``deadline`` leaves, bounded by the invocation's end when one is set."""
    left = deadline() if deadline is not None else REQUEST_BUDGET_SECONDS
    ends = _INVOCATION_ENDS.get()
    return left if ends is None else min(left, ends - time.monotonic())


class Answer(msgspec.Struct, frozen=True):
    """What the provider answered the last attempt: for the client to map."""

    status: int
    data: bytes
    headers: Mapping[str, str]


class AccountClient:
    """What a client of one user's account at a provider (Graph, Google's APIs) keeps between calls.

    The account and its token source, the function's one ``PoolManager``, a stand-in's origin
    (``base_url``, None for the provider's own), the deadline its requests keep to, and the wait and
    jitter :func:`send` uses (a test's clock): one constructor for every such client.
    """

    def __init__(
        self,
        account: Account,
        tokens: TokenSource,
        *,
        http: urllib3.PoolManager,
        base_url: str | None = None,
        deadline: Callable[[], float] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self.account = account
        self._tokens = tokens
        self._http = http
        self._base_url = base_url.rstrip("/") if base_url else None
        self._deadline = deadline
        self._sleep = sleep
        self._jitter = jitter


class RequestFailed(Exception):
    """No answer to map; ``cause`` names what happened (``ReadTimeoutError``, ``HTTP 503``)."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


class Unreachable(RequestFailed):
    """Nothing the provider acted on: no connection, no time left, or an idempotent request whose
    tries all went unanswered. The same request can be made again."""


class OutcomeUnknown(RequestFailed):
    """A request that is not idempotent was sent and nothing says whether the provider acted on
    it: never sent again here; the user checks before confirming again."""


def retry_after(headers: Mapping[str, str]) -> float | None:
    """``Retry-After`` in seconds (from seconds or an HTTP date); None without a readable one."""
    import urllib3

    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return None
    try:
        return max(0.0, urllib3.util.Retry().parse_retry_after(str(value)))
    except urllib3.exceptions.InvalidHeader:
        return None


def never_sent(error: BaseException) -> bool:
    """Whether ``error`` happened before the request left: no connection, or a connect timeout
    (urllib3's ``NewConnectionError`` and ``NameResolutionError`` are ``ConnectTimeoutError``\\ s)."""
    import urllib3

    if isinstance(error, urllib3.exceptions.MaxRetryError) and error.reason is not None:
        error = error.reason
    return isinstance(
        error,
        urllib3.exceptions.ConnectTimeoutError
        | urllib3.exceptions.EmptyPoolError
        | urllib3.exceptions.LocationValueError,
    )


def send(
    http: urllib3.PoolManager,
    method: str,
    url: str,
    *,
    body: bytes | None = None,
    headers: Mapping[str, str],
    idempotent: bool,
    deadline: Callable[[], float] | None = None,
    throttled: Callable[[int, bytes], bool] | None = None,
    read_timeout: float = READ_TIMEOUT_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
    jitter: Callable[[], float] = random.random,
) -> Answer:
    """The answer to one request, retried as the module says.

    Returns the last answer (a success, a refusal, or a throttling or failure the retries did not
    outlast) for the client to map; raises :class:`Unreachable` or :class:`OutcomeUnknown` when
    there is no answer to map. ``idempotent``: sending it twice does what sending it once does.
    """
    import urllib3

    is_throttled = throttled or (lambda status, _data: status == 429)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        left = seconds_left(deadline) - MARGIN_SECONDS
        if left <= 0:
            raise Unreachable("no time left")
        try:
            response = http.request(
                method,
                url,
                body=body,
                headers=dict(headers),
                timeout=urllib3.Timeout(
                    connect=min(CONNECT_TIMEOUT_SECONDS, left), read=max(0.5, min(read_timeout, left))
                ),
                retries=False,
                redirect=False,
            )
        except urllib3.exceptions.HTTPError as error:
            cause = type(
                error.reason if isinstance(error, urllib3.exceptions.MaxRetryError) else error
            ).__name__
            if not (never_sent(error) or idempotent):
                raise OutcomeUnknown(cause) from error
            if not _pause(attempt, None, deadline, sleep, jitter):
                raise Unreachable(cause) from error
            continue
        answer = Answer(int(response.status), response.data or b"", dict(response.headers))
        if is_throttled(answer.status, answer.data):
            if _pause(attempt, retry_after(answer.headers), deadline, sleep, jitter):
                continue
            return answer
        if answer.status in UNKNOWN_STATUSES and not idempotent:
            raise OutcomeUnknown(f"HTTP {answer.status}")
        retried = answer.status in RETRIED_STATUSES and idempotent
        if retried and _pause(attempt, retry_after(answer.headers), deadline, sleep, jitter):
            continue
        return answer
    raise AssertionError("unreachable")  # pragma: no cover - the last attempt returns or raises


def _pause(
    attempt: int,
    asked: float | None,
    deadline: Callable[[], float] | None,
    sleep: Callable[[float], None],
    jitter: Callable[[], float],
) -> bool:
    """Wait before attempt ``attempt + 1``; False when there is none to make (tries or time spent)."""
    if attempt >= MAX_ATTEMPTS:
        return False
    if asked is not None:
        wait = asked
    else:
        backoff = min(MAX_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2.0 ** (attempt - 1))
        wait = backoff + jitter() * FIRST_BACKOFF_SECONDS
    if wait > MAX_RETRY_AFTER_SECONDS or wait + REQUEST_SECONDS > seconds_left(deadline) - MARGIN_SECONDS:
        return False
    sleep(wait)
    return True


def body_json(data: bytes) -> Any:
    """An answer's JSON body; None when it has none or it is not JSON."""
    import json

    if not data:
        return None
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
