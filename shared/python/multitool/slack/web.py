"""Slack's Web API as the app calls it: ``slack_sdk.WebClient`` with Slack's own retry of a rate limit.

Every call goes through :class:`SlackWeb`, which says what a failure means for the user:

- ``ratelimited`` (HTTP 429 with ``Retry-After``): retried by ``slack_sdk``'s
  ``RateLimitErrorRetryHandler`` after the seconds Slack asks for
  (https://docs.slack.dev/apis/web-api/rate-limits/), twice; a call still limited after that fails
  like any other. Nothing else is retried: a ``chat.postMessage`` whose answer was lost may have
  posted, and a second one would post twice;
- ``channel_not_found`` / ``not_in_channel`` (the bot cannot see or post in the conversation):
  :class:`SlackCallFailed` with words the app logs, and answers the user with where it can
  (an ephemeral note, a modal's error);
- any other ``ok: false`` or a transport failure: :class:`SlackCallFailed` with Slack's error code.

A turn's drafts are stored before anything is posted, so a post that fails loses no draft: each stays
confirmable (by the asker, from a card posted later, or by its id through the review API).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from multitool.observability import logger

DEFAULT_API_URL = "https://slack.com/api/"
RATE_LIMIT_RETRIES = 2
TIMEOUT_SECONDS = 10
NOT_THERE = frozenset({"channel_not_found", "not_in_channel", "is_archived", "channel_is_archived"})
"""Errors that mean the bot cannot post in that conversation: words, not a retry."""


class SlackCallFailed(Exception):
    """A Web API call Slack refused (``error``: Slack's code, ``ratelimited`` included) or never answered."""

    def __init__(self, method: str, error: str) -> None:
        super().__init__(f"Slack {method} failed: {error}")
        self.method = method
        self.error = error

    @property
    def not_there(self) -> bool:
        """The bot is not in (or cannot see) the conversation."""
        return self.error in NOT_THERE

    def words(self) -> str:
        """What the user reads about it."""
        if self.not_there:
            return (
                "I cannot post in that conversation: invite me to the channel (/invite @multitool) "
                "and ask again."
            )
        if self.error in ("expired_trigger_id", "exchanged_trigger_id"):
            return "The form could not open in time: click Edit again."
        if self.error == "ratelimited":
            return "Slack is limiting how fast I may post; your drafts are kept. Try again in a minute."
        return "Slack refused a message of mine; your drafts are kept."


def web_client(token: str, api_url: str = DEFAULT_API_URL) -> WebClient:
    """A client for ``token`` at ``api_url`` (Slack's, or a local stand-in's) that waits out a rate limit."""
    return WebClient(
        token=token,
        base_url=api_url,
        timeout=TIMEOUT_SECONDS,
        retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES)],
    )


class SlackWeb:
    """The few Web API methods the app calls, each failing as :class:`SlackCallFailed`."""

    def __init__(self, client: WebClient) -> None:
        self.client = client

    def call(self, method: str, **params: Any) -> Mapping[str, Any]:
        """``method`` (``chat.postMessage``) through the SDK's own method, which sends the content type
        Slack documents for it (JSON for ``chat.*`` and ``views.*``, a form for ``users.info``)."""
        try:
            response = getattr(self.client, method.replace(".", "_"))(**params)
        except SlackApiError as error:
            code = str(error.response.get("error") or "unknown") if error.response is not None else "unknown"
            logger.warning("Slack call refused", extra={"method": method, "slack_error": code})
            raise SlackCallFailed(method, code) from None
        except SlackClientError as error:
            logger.warning("Slack call failed", extra={"method": method, "error_type": type(error).__name__})
            raise SlackCallFailed(method, "no_answer") from None
        except OSError as error:  # the connection: refused, reset, timed out
            logger.warning("Slack call failed", extra={"method": method, "error_type": type(error).__name__})
            raise SlackCallFailed(method, "no_answer") from None
        return response.data if isinstance(response.data, dict) else {}

    def user(self, user_id: str) -> Mapping[str, Any]:
        """``users.info``: the user object (``profile.email`` needs ``users:read.email``)."""
        found = self.call("users.info", user=user_id).get("user")
        return found if isinstance(found, Mapping) else {}

    def post(
        self,
        channel: str,
        text: str,
        *,
        thread_ts: str | None = None,
        blocks: Sequence[Mapping[str, Any]] | None = None,
    ) -> str | None:
        """``chat.postMessage``; the posted message's ``ts``."""
        params: dict[str, Any] = {"channel": channel, "text": text}
        if thread_ts:
            params["thread_ts"] = thread_ts
        if blocks is not None:
            params["blocks"] = list(blocks)
        ts = self.call("chat.postMessage", **params).get("ts")
        return ts if isinstance(ts, str) else None

    def update(self, channel: str, ts: str, text: str, blocks: Sequence[Mapping[str, Any]]) -> None:
        """``chat.update``: a card's message in place."""
        self.call("chat.update", channel=channel, ts=ts, text=text, blocks=list(blocks))

    def ephemeral(
        self,
        channel: str,
        user: str,
        text: str,
        *,
        thread_ts: str | None = None,
        blocks: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        """``chat.postEphemeral``: words (or blocks) only ``user`` sees."""
        params: dict[str, Any] = {"channel": channel, "user": user, "text": text}
        if thread_ts:
            params["thread_ts"] = thread_ts
        if blocks is not None:
            params["blocks"] = list(blocks)
        self.call("chat.postEphemeral", **params)

    def open_view(self, trigger_id: str, view: Mapping[str, Any]) -> None:
        """``views.open``: a modal, within the three seconds its ``trigger_id`` lives."""
        self.call("views.open", trigger_id=trigger_id, view=dict(view))
