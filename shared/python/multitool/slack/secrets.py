"""The Slack app's two secrets (the bot token and the signing secret), read from Secrets Manager with a cache.

Each is a plain-string secret (``SecretString`` is the value itself, as ``aws secretsmanager
put-secret-value --secret-string`` writes it). A value is kept for :data:`CACHE_SECONDS` per warm
function, so a request costs no Secrets Manager call, and a value pasted or rotated after the deploy
is read within minutes without a new deploy; an empty secret (the stack creates them empty, the
operator pastes the values: docs/slack.md) is :class:`SlackNotConfigured`. A value is never logged,
traced or put in an exception's text: :class:`SlackSecret` keeps it out of its ``repr``.

Locally (``multitool serve --slack``, the tests) the values come straight from ``SLACK_BOT_TOKEN``
and ``SLACK_SIGNING_SECRET``; the stack sets only the ``…_ARN`` variables.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import TYPE_CHECKING

import msgspec
from botocore.exceptions import BotoCoreError, ClientError

from multitool.errors import ServiceError
from multitool.records import Redacted

if TYPE_CHECKING:
    from mypy_boto3_secretsmanager import SecretsManagerClient

CACHE_SECONDS = 300.0
"""How long a value read from Secrets Manager is used before it is read again."""
REREAD_AFTER_SECONDS = 60.0
"""A value that failed a check is read again early, but not more often than this: a flood of forged
requests costs one Secrets Manager call a minute, not one each."""


class SlackNotConfigured(ServiceError):
    """A secret is missing or empty: the operator has not pasted it yet (docs/slack.md)."""

    code = "not_configured"
    status = HTTPStatus.SERVICE_UNAVAILABLE


class SlackSecret(Redacted, msgspec.Struct, frozen=True):
    """One secret's value, left out of ``repr``."""

    redacted = frozenset({"value"})

    value: str


class CachedSecret:
    """One Secrets Manager secret's string, read at most every :data:`CACHE_SECONDS` per warm function."""

    def __init__(
        self,
        client: Callable[[], SecretsManagerClient],
        secret_id: str,
        *,
        name: str,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._secret_id = secret_id
        self._name = name
        self._clock = clock
        self._cached: tuple[float, SlackSecret] | None = None
        self._lock = threading.Lock()

    def get(self) -> str:
        with self._lock:
            now = self._clock()
            if self._cached is None or now - self._cached[0] >= CACHE_SECONDS:
                self._cached = (now, self._read())
            return self._cached[1].value

    def forget(self) -> None:
        """Read the secret again on next use (a value that failed a check may have been rotated), if
        the one held was read at least :data:`REREAD_AFTER_SECONDS` ago."""
        with self._lock:
            if self._cached is not None and self._clock() - self._cached[0] >= REREAD_AFTER_SECONDS:
                self._cached = None

    def _read(self) -> SlackSecret:
        try:
            answer = self._client().get_secret_value(SecretId=self._secret_id)
        except ClientError as error:
            code = error.response.get("Error", {}).get("Code", "Unknown")
            raise SlackNotConfigured(f"The Slack {self._name} could not be read ({code}).") from None
        except BotoCoreError as error:
            raise SlackNotConfigured(
                f"Secrets Manager could not be reached ({type(error).__name__})."
            ) from None
        value = (answer.get("SecretString") or "").strip()
        if not value:
            raise SlackNotConfigured(f"The Slack {self._name} is empty: paste it (docs/slack.md).")
        return SlackSecret(value)


class FixedSecret:
    """A value given directly (the local server, the tests)."""

    def __init__(self, value: str, *, name: str) -> None:
        self._secret = SlackSecret(value)
        self._name = name

    def get(self) -> str:
        if not self._secret.value:
            raise SlackNotConfigured(f"The Slack {self._name} is empty.")
        return self._secret.value

    def forget(self) -> None:
        """Nothing to read again."""
