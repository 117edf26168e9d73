"""Events API: a direct message or a mention is one chat turn, started at once and run asynchronously.

Slack waits three seconds for the answer to an event and sends it again (``X-Slack-Retry-Num``) when
it gets none (https://docs.slack.dev/apis/events-api/#retries). So an event only *starts* a turn:
:class:`multitool.chat.async_turns.ChatTurns` stores it and invokes this function again
asynchronously (the orchestrator's own mechanism: ``InvocationType=Event``, no retry, failures to
the failed-turns queue), and the event is answered 200. That invocation runs the turn with the
function's own timeout, then posts the reply and one message per card in the thread
(:func:`post_turn`).

Each event runs at most once: its ``event_id`` is written first with a conditional ``PutItem``
(:class:`EventLedger`, in the limits table), so a retry (or a duplicate delivery) finds it and
starts nothing; a start that failed before its turn was stored takes the entry back, so Slack's
retry can start it.

What starts a turn (everything else is answered 200 and ignored):

- ``message`` in a direct message (``channel_type: im``) without a ``subtype`` (edits, joins and bot
  posts have one) and without ``bot_id``;
- ``app_mention`` in a channel, the mention itself taken out of the text.

The session is the conversation: ``slack:<team>:<channel>:<thread ts>`` for a thread (a mention
starts its own thread), ``slack:<team>:<channel>:im`` for a direct message outside a thread; the
replies go where the message was.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
from botocore.exceptions import BotoCoreError, ClientError

from multitool.chat.service import ChatRequest
from multitool.errors import ServiceError
from multitool.observability import error_fields, logger
from multitool.ports.directory import Directory
from multitool.slack.identity import NO_ACCESS, who_is
from multitool.slack.web import SlackCallFailed, SlackWeb

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

    from multitool.chat.async_turns import ChatTurns

SESSION_PREFIX = "slack:"
DM = "im"
EVENT_KEEP_SECONDS = 24 * 3600
"""An event id is remembered this long: Slack retries for minutes, never for a day."""
_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")


class Conversation(msgspec.Struct, frozen=True):
    """Where a turn's answers go: the channel, and the thread (None: a direct message's main view)."""

    team: str
    channel: str
    thread_ts: str | None

    @property
    def session_id(self) -> str:
        return f"{SESSION_PREFIX}{self.team}:{self.channel}:{self.thread_ts or DM}"

    @classmethod
    def of_session(cls, session_id: str) -> Conversation | None:
        parts = session_id.split(":")
        if len(parts) != 4 or f"{parts[0]}:" != SESSION_PREFIX or not all(parts):
            return None
        return cls(parts[1], parts[2], None if parts[3] == DM else parts[3])


class Ledger(Protocol):
    def first(self, key: str) -> bool:
        """Record ``key``; False when it was already recorded."""
        ...

    def release(self, key: str) -> None:
        """Forget ``key`` (its event may run again)."""
        ...


class LedgerUnavailable(ServiceError):
    """The event could not be recorded: answered 503, and Slack sends it again."""

    code = "unavailable"
    status = 503


class EventLedger:
    """Each event id once, in the limits table: ``SLACKEVENT#<team>#<event id>``, kept a day (TTL)."""

    def __init__(
        self, table_name: str, client: DynamoDBClient, clock: Callable[[], float] = time.time
    ) -> None:
        self.table_name = table_name
        self.client = client
        self.clock = clock

    def first(self, key: str) -> bool:
        try:
            self.client.put_item(
                TableName=self.table_name,
                Item={"pk": {"S": key}, "expiresAt": {"N": str(int(self.clock()) + EVENT_KEEP_SECONDS)}},
                ConditionExpression="attribute_not_exists(pk)",
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise LedgerUnavailable("The event could not be recorded.") from None
        except BotoCoreError:
            raise LedgerUnavailable("The event could not be recorded.") from None
        return True

    def release(self, key: str) -> None:
        try:
            self.client.delete_item(TableName=self.table_name, Key={"pk": {"S": key}})
        except (ClientError, BotoCoreError) as error:
            logger.warning("Slack event not released", extra=error_fields(error))


class MemoryLedger:
    """The ledger in memory (tests, the local server)."""

    def __init__(self) -> None:
        self.keys: set[str] = set()

    def first(self, key: str) -> bool:
        if key in self.keys:
            return False
        self.keys.add(key)
        return True

    def release(self, key: str) -> None:
        self.keys.discard(key)


def event_key(envelope: Mapping[str, Any]) -> str | None:
    team, event_id = envelope.get("team_id"), envelope.get("event_id")
    if not isinstance(team, str) or not isinstance(event_id, str) or not team or not event_id:
        return None
    return f"SLACKEVENT#{team}#{event_id}"[:512]


def bot_user(envelope: Mapping[str, Any]) -> str | None:
    """The app's own bot user, as the event's authorization names it."""
    for authorization in envelope.get("authorizations") or ():
        if isinstance(authorization, Mapping) and authorization.get("is_bot"):
            user = authorization.get("user_id")
            return user if isinstance(user, str) else None
    return None


CARD_KEEP_SECONDS = 8 * 24 * 3600
"""Where a card was posted is kept a little longer than a draft lives (seven days)."""


class CardPlaces(Protocol):
    """Where each card's message is, so a revision can mark the card it replaced."""

    def remember(self, draft_id: str, channel: str, ts: str, caption: str) -> None: ...

    def where(self, draft_id: str) -> tuple[str, str, str] | None:
        """The channel, the message's ``ts`` and the card's caption."""
        ...


class DynamoCardPlaces:
    """``SLACKCARD#<draft id>`` in the limits table: the channel and the message's ``ts``."""

    def __init__(
        self, table_name: str, client: DynamoDBClient, clock: Callable[[], float] = time.time
    ) -> None:
        self.table_name = table_name
        self.client = client
        self.clock = clock

    def remember(self, draft_id: str, channel: str, ts: str, caption: str) -> None:
        try:
            self.client.put_item(
                TableName=self.table_name,
                Item={
                    "pk": {"S": f"SLACKCARD#{draft_id}"[:512]},
                    "channel": {"S": channel},
                    "ts": {"S": ts},
                    "caption": {"S": caption[:500]},
                    "expiresAt": {"N": str(int(self.clock()) + CARD_KEEP_SECONDS)},
                },
            )
        except (ClientError, BotoCoreError) as error:  # the card is posted; only its later mark is lost
            logger.warning("Slack card's place not kept", extra=error_fields(error))

    def where(self, draft_id: str) -> tuple[str, str, str] | None:
        try:
            item = self.client.get_item(
                TableName=self.table_name, Key={"pk": {"S": f"SLACKCARD#{draft_id}"[:512]}}
            ).get("Item")
        except (ClientError, BotoCoreError) as error:
            logger.warning("Slack card's place not read", extra=error_fields(error))
            return None
        if not item:
            return None
        return item["channel"]["S"], item["ts"]["S"], item.get("caption", {}).get("S", "An earlier card")


class MemoryCardPlaces:
    """Card places in memory (tests, the local server)."""

    def __init__(self) -> None:
        self.places: dict[str, tuple[str, str, str]] = {}

    def remember(self, draft_id: str, channel: str, ts: str, caption: str) -> None:
        self.places[draft_id] = (channel, ts, caption)

    def where(self, draft_id: str) -> tuple[str, str, str] | None:
        return self.places.get(draft_id)


class Ask(msgspec.Struct, frozen=True):
    """A message that asks for a turn: who, where and what."""

    team: str
    user: str
    text: str
    conversation: Conversation


def ask_of(envelope: Mapping[str, Any]) -> Ask | None:
    """The turn an ``event_callback`` asks for, None for an event that asks for none."""
    event = envelope.get("event")
    team = envelope.get("team_id")
    if not isinstance(event, Mapping) or not isinstance(team, str):
        return None
    kind = event.get("type")
    user, channel, text, ts = (event.get(k) for k in ("user", "channel", "text", "ts"))
    if event.get("bot_id") or event.get("subtype") or user == bot_user(envelope):
        return None  # the bot's own posts, other apps', edits, joins
    if not all(isinstance(v, str) and v for v in (user, channel, ts)) or not isinstance(text, str):
        return None
    thread = event.get("thread_ts") if isinstance(event.get("thread_ts"), str) else None
    if kind == "message" and event.get("channel_type") == "im":
        where = Conversation(team, str(channel), thread)
    elif kind == "app_mention":
        where = Conversation(team, str(channel), thread or str(ts))
    else:
        return None
    words = html.unescape(_MENTION.sub(" ", text))  # Slack escapes &, < and > in message text
    words = " ".join(words.split())
    return Ask(team, str(user), words, where) if words else None


class EventHandler:
    """Starts the turn an event asks for, once."""

    def __init__(
        self,
        web: Callable[[], SlackWeb],
        directory: Callable[[], Directory],
        turns: Callable[[], ChatTurns | None],
        ledger: Callable[[], Ledger],
    ) -> None:
        self.web = web
        self.directory = directory
        self.turns = turns
        self.ledger = ledger

    def on_event(self, envelope: Mapping[str, Any], function_name: str) -> None:
        ask = ask_of(envelope)
        key = event_key(envelope)
        if ask is None or key is None:
            logger.info("Slack event ignored", extra={"event_type": _event_type(envelope)})
            return
        if not self.ledger().first(key):
            logger.info("Slack event already seen", extra={"event_id": envelope.get("event_id")})
            return
        try:
            self._start(ask, function_name)
        except _TakeBack:
            self.ledger().release(key)

    def _start(self, ask: Ask, function_name: str) -> None:
        web = self.web()
        where = ask.conversation
        try:
            person = who_is(web, self.directory(), ask.team, ask.user)
        except SlackCallFailed as failed:
            logger.warning("Slack user not read", extra={"slack_error": failed.error})
            raise _TakeBack from None
        if person is None:
            logger.info("Slack user without a directory match")
            _say(web, where, NO_ACCESS)
            return
        turns = self.turns()
        if turns is None:
            _say(web, where, "Chat from Slack is not set up in this deployment (it needs the turns table).")
            return
        request = ChatRequest(message=ask.text, session_id=where.session_id)
        try:
            turns.start_body(
                person.owner,
                request,
                function_name=function_name,
                timezone_hint=person.timezone,
                user_email=person.person.email,
            )
        except ServiceError as refused:
            logger.info("Slack turn not started", extra={"code": refused.code})
            _say(web, where, _refusal_words(refused))
            if refused.code == "turns_unavailable":
                raise _TakeBack from None


class _TakeBack(Exception):
    """Nothing was started: the event's record is taken back, so Slack's retry starts it."""


def _refusal_words(refused: ServiceError) -> str:
    if refused.code == "session_not_owned":
        return (
            "This thread is another person's conversation with me: start your own thread "
            "or message me directly."
        )
    return refused.public_message()


def _say(web: SlackWeb, where: Conversation, text: str) -> None:
    try:
        web.post(where.channel, text, thread_ts=where.thread_ts)
    except SlackCallFailed as failed:
        logger.warning("Slack answer not posted", extra={"slack_error": failed.error, "why": failed.words()})


def _event_type(envelope: Mapping[str, Any]) -> str:
    event = envelope.get("event")
    kind = event.get("type") if isinstance(event, Mapping) else None
    return str(kind)[:64] if kind else str(envelope.get("type"))[:64]


def final_event(events: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """A finished turn's last event: ``done`` (with the /chat answer) or ``failed``."""
    return next((event for event in reversed(events) if event.get("type") in ("done", "failed")), None)
