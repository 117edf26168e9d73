"""Chat sessions and who owns them.

A session id belongs to the first user who uses it: the store claims it with
one conditional write (``attribute_not_exists(sessionId) OR owner = :me``), so
a second user presenting the same id is refused instead of joining another
person's conversation (and its drafts).

The session item also holds the conversation so far, for runtimes that do not
keep it themselves (Converse, offline): the last exchanges as text-only
Converse messages, a user message and the assistant's reply with a one-line
summary of the cards it produced (each card's draft id, tool and caption, so a
model can revise a card by its id). No ``toolUse``/``toolResult`` blocks are kept
(they must pair exactly and would bloat the item), and the stored JSON is
bounded in exchanges and bytes, far below DynamoDB's 400 KB item limit.
"""

import re
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from http import HTTPStatus
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

import msgspec
from botocore.exceptions import BotoCoreError, ClientError
from msgspec import Meta

from multitool.errors import ServiceError
from multitool.observability import logger
from multitool.ports.tables import SESSIONS
from multitool.runtimes.carryover import CARRY_ATTRIBUTE, Messages, parse_carry
from multitool.tools import REGISTRY

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

SESSION_TTL_SECONDS = 24 * 3600
# Bedrock's sessionId rule: 2-100 characters of [0-9a-zA-Z._:-].
SESSION_ID_PATTERN = re.compile(r"^[0-9a-zA-Z._:-]{2,100}$")
HISTORY_EXCHANGES = 10
MAX_HISTORY_BYTES = 64 * 1024
MAX_STORED_TEXT_CHARS = 4000
HISTORY_ATTRIBUTE = "history"


class SessionError(Exception):
    """A session that cannot be used; the message says why."""


class SessionNotOwned(SessionError, ServiceError):
    """The session id belongs to another user."""

    code = "session_not_owned"
    status = HTTPStatus.FORBIDDEN
    answer = "This sessionId belongs to another user. Omit sessionId to start a new session."


class SessionWriteFailed(SessionError):
    """The conversation could not be stored (the turn itself succeeded)."""


class SessionNotFound(SessionError, ServiceError):
    """No session with this id for this user (never started, expired, or another user's)."""

    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    answer = "No such session for this user."


# --------------------------------------------------------------------------- conversation history


class TextBlock(msgspec.Struct, frozen=True):
    text: Annotated[str, Meta(min_length=1, max_length=MAX_STORED_TEXT_CHARS)]


class HistoryMessage(msgspec.Struct, frozen=True):
    """A text-only Converse message: ``{"role": "user"|"assistant", "content": [{"text": …}]}``.

    Stored in the session item and handed to the model, never on an API: a ``msgspec.Struct``
    (defined and first read in microseconds where a pydantic model took about 0.7 ms of a cold start),
    written as the JSON the model's messages are (the same text the pydantic model wrote)."""

    role: Literal["user", "assistant"]
    content: Annotated[tuple[TextBlock, ...], Meta(min_length=1)]

    @classmethod
    def of(cls, role: Literal["user", "assistant"], text: str) -> "HistoryMessage":
        return cls(role=role, content=(TextBlock(text=_clip(text)),))

    @property
    def text(self) -> str:
        return "\n".join(block.text for block in self.content)

    def to_wire(self) -> dict[str, Any]:
        """The Converse message."""
        return {"role": self.role, "content": [{"text": block.text} for block in self.content]}


History = tuple[HistoryMessage, ...]
_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(History)


def _clip(text: str) -> str:
    text = text.strip() or "…"
    return text if len(text) <= MAX_STORED_TEXT_CHARS else text[: MAX_STORED_TEXT_CHARS - 1] + "…"


def card_entry(card_id: str, action: str, caption: str) -> tuple[str, str]:
    """A card as the history names it: its id, and its caption after the tool that made it.

    The model reads the tool and the draft id there, to revise that card (``revises``).
    """
    tool = REGISTRY.by_action(action)
    return card_id, f"{tool.name if tool is not None else action}: {caption}"


def cards_summary(cards: Sequence[tuple[str, str]]) -> str:
    """One line naming a turn's cards, from (id, caption) pairs (see :func:`card_entry`).

    ``[cards: d_1 create_email_draft: Draft email to Kinshuok Sharma: About the doc; d_2 …]``
    """
    if not cards:
        return ""
    return "[cards: " + "; ".join(f"{card_id} {caption}" for card_id, caption in cards) + "]"


def exchange(user_text: str, reply_text: str, cards: Sequence[tuple[str, str]] = ()) -> History:
    """One turn as two history messages: what the user wrote, what the assistant answered and made."""
    summary = cards_summary(cards)
    reply = f"{reply_text.strip()}\n{summary}" if summary else reply_text
    return HistoryMessage.of("user", user_text), HistoryMessage.of("assistant", reply)


def history_json(history: Sequence[HistoryMessage]) -> str:
    return _ENCODER.encode(history).decode()


def exchanges_of(history: Sequence[HistoryMessage]) -> list[History]:
    """The (user, assistant) pairs of a history; a message out of turn is dropped with its partner."""
    pairs: list[History] = []
    index = 0
    while index + 1 < len(history):
        first, second = history[index], history[index + 1]
        if first.role == "user" and second.role == "assistant":
            pairs.append((first, second))
            index += 2
        else:
            index += 1
    return pairs


def bounded(
    history: Sequence[HistoryMessage],
    *,
    max_exchanges: int = HISTORY_EXCHANGES,
    max_bytes: int = MAX_HISTORY_BYTES,
) -> History:
    """The newest whole exchanges that fit: at most ``max_exchanges``, at most ``max_bytes`` of JSON."""
    pairs = exchanges_of(history)[-max_exchanges:] if max_exchanges > 0 else []
    kept: list[History] = []
    size = 1  # "[" and "]", less the separator the first pair does not need
    for pair in reversed(pairs):
        pair_size = len(history_json(pair).encode()) - 1  # "a,b" and the separator before it
        if size + pair_size > max_bytes:
            break
        kept.append(pair)
        size += pair_size
    return tuple(message for pair in reversed(kept) for message in pair)


def parse_history(raw: str | None) -> History:
    """Stored history, validated; a damaged value is dropped (logged without content), never raised."""
    if not raw:
        return ()
    try:
        history = _DECODER.decode(raw)
    except msgspec.DecodeError as error:  # not JSON, not an array, or a message msgspec refuses
        logger.warning("Stored conversation dropped: invalid", extra={"error_type": type(error).__name__})
        return ()
    return tuple(message for pair in exchanges_of(history) for message in pair)


def converse_messages(history: History) -> tuple[dict[str, Any], ...]:
    """The history as Converse ``messages`` entries."""
    return tuple(message.to_wire() for message in history)


def new_session_id() -> str:
    """A fresh, unguessable session id."""
    return f"s-{secrets.token_urlsafe(18)}"


def valid_session_id(value: str) -> bool:
    return bool(SESSION_ID_PATTERN.match(value))


class ClaimedTurn(msgspec.Struct, frozen=True):
    """What claiming a session for a turn read: the conversation, and the harness step carried
    into this turn (:mod:`multitool.runtimes.carryover`), now removed from the store."""

    history: History
    carried: Messages


class SessionStore(Protocol):
    def claim(self, session_id: str, user_id: str, now: datetime | None = None) -> History:
        """Record a turn in ``session_id`` for ``user_id`` and return the conversation so far.

        Raises :class:`SessionNotOwned` if another user owns the session.
        """
        ...

    def claim_taking_carry(self, session_id: str, user_id: str, now: datetime | None = None) -> ClaimedTurn:
        """:meth:`claim`, also taking the step carried into this turn (in the same write, for DynamoDB)."""
        ...

    def remember(self, session_id: str, user_id: str, history: History, now: datetime | None = None) -> None:
        """Store the conversation (already bounded) of the owner's session; :class:`SessionWriteFailed`."""
        ...

    def read(self, session_id: str, user_id: str) -> History:
        """The owner's stored conversation, changing nothing; :class:`SessionNotFound` for anyone else."""
        ...


class DynamoSessionStore:
    """Sessions in the DynamoDB sessions table (``sessionId`` key, ``expiresAt`` TTL)."""

    def __init__(
        self, table_name: str, client: "DynamoDBClient", ttl_seconds: int = SESSION_TTL_SECONDS
    ) -> None:
        self.table_name = table_name
        self.client = client
        self.ttl_seconds = ttl_seconds

    def claim(self, session_id: str, user_id: str, now: datetime | None = None) -> History:
        return parse_history(
            self._claim(session_id, user_id, now, take_carry=False).get(HISTORY_ATTRIBUTE, {}).get("S")
        )

    def claim_taking_carry(self, session_id: str, user_id: str, now: datetime | None = None) -> ClaimedTurn:
        # One UpdateItem instead of a claim and a carryover take: REMOVE the carried step and read
        # the item as it was (ALL_OLD: the claim never changes the history, so it is current).
        before = self._claim(session_id, user_id, now, take_carry=True)
        return ClaimedTurn(
            parse_history(before.get(HISTORY_ATTRIBUTE, {}).get("S")),
            parse_carry(before.get(CARRY_ATTRIBUTE, {}).get("S")),
        )

    def _claim(
        self, session_id: str, user_id: str, now: datetime | None, *, take_carry: bool
    ) -> dict[str, Any]:
        """The conditional claim's UpdateItem: the item after it (before it, with ``take_carry``)."""
        moment = now or datetime.now(UTC)
        names = {"#owner": "owner", "#key": SESSIONS.partition_key}
        update = (
            "SET #owner = if_not_exists(#owner, :owner), createdAt = if_not_exists(createdAt, :now), "
            "updatedAt = :now, expiresAt = :expires ADD turns :one"
        )
        if take_carry:
            update += " REMOVE #carry"
            names["#carry"] = CARRY_ATTRIBUTE
        try:
            response = self.client.update_item(
                TableName=self.table_name,
                Key={SESSIONS.partition_key: {"S": session_id}},
                UpdateExpression=update,
                ConditionExpression="attribute_not_exists(#key) OR #owner = :owner",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues={
                    ":owner": {"S": user_id},
                    ":now": {"S": moment.isoformat()},
                    ":expires": {"N": str(int(moment.timestamp()) + self.ttl_seconds)},
                    ":one": {"N": "1"},
                },
                ReturnValues="ALL_OLD" if take_carry else "ALL_NEW",
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                raise SessionNotOwned("This session belongs to another user.") from None
            raise
        return dict(response.get("Attributes", {}))

    def read(self, session_id: str, user_id: str) -> History:
        # Consistent: a reload right after a turn reads that turn's exchange.
        item = self.client.get_item(
            TableName=self.table_name,
            Key={SESSIONS.partition_key: {"S": session_id}},
            ConsistentRead=True,
            ProjectionExpression="#owner, #history",
            ExpressionAttributeNames={"#owner": "owner", "#history": HISTORY_ATTRIBUTE},
        ).get("Item")
        # Another user's session answers as if there were none: its existence is not theirs to learn.
        if not item or item.get("owner", {}).get("S") != user_id:
            raise SessionNotFound("No such session for this user.")
        return parse_history(item.get(HISTORY_ATTRIBUTE, {}).get("S"))

    def remember(self, session_id: str, user_id: str, history: History, now: datetime | None = None) -> None:
        moment = now or datetime.now(UTC)
        try:
            self.client.update_item(
                TableName=self.table_name,
                Key={SESSIONS.partition_key: {"S": session_id}},
                UpdateExpression="SET #history = :history, updatedAt = :now, expiresAt = :expires",
                ConditionExpression="#owner = :owner",
                ExpressionAttributeNames={"#owner": "owner", "#history": HISTORY_ATTRIBUTE},
                ExpressionAttributeValues={
                    ":owner": {"S": user_id},
                    ":history": {"S": history_json(bounded(history))},
                    ":now": {"S": moment.isoformat()},
                    ":expires": {"N": str(int(moment.timestamp()) + self.ttl_seconds)},
                },
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                raise SessionNotOwned("This session belongs to another user.") from None
            raise SessionWriteFailed("The conversation could not be stored.") from error
        except BotoCoreError as error:
            raise SessionWriteFailed("The conversation could not be stored.") from error
