"""A turn run past its request on the wire: the invocation that runs it, and what it answers: its start
(``POST /chat`` with ``Prefer: respond-async``, 202), its events and its view (``GET /turns/{id}``).

The wire shapes alone, which the chat API's OpenAPI document names: the machinery that starts, runs and
reads a turn (:mod:`multitool.chat.async_turns`, the turns table, the running-turn slots) loads only
when a request asks for a turn of its own, never on a plain ``POST /chat``.
"""

import secrets
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from multitool.chat.service import ChatResponse
from multitool.errors import ServiceError
from multitool.toolkit.cards import Card
from multitool.wire import WireModel

TURN_EVENT_KEY = "multitoolTurn"
"""The key of the asynchronous invocation's payload: ``{"multitoolTurn": {"turnId": ...}}``."""
TURN_ID_PREFIX = "t-"


def new_turn_id() -> str:
    return f"{TURN_ID_PREFIX}{secrets.token_urlsafe(18)}"


def valid_turn_id(value: str) -> bool:
    return (
        value.startswith(TURN_ID_PREFIX)
        and 8 <= len(value) <= 64
        and all(c.isalnum() or c in "-_" for c in value)
    )


INTERNAL = "Something went wrong; try again."
ASYNC_MODE = "respond-async"


class TurnNotFound(ServiceError):
    """No such turn for this caller: unknown, expired, or another user's (all answer 404)."""

    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    answer = "No such turn for this user."


class TurnStarted(WireModel):
    """The body of ``POST /chat`` answered 202: the turn runs; follow it at ``GET /turns/{turnId}``."""

    turn_id: str = Field(description="Follow the turn at GET /turns/{turnId}")
    session_id: str
    status: Literal["running"] = "running"


class CardEvent(WireModel):
    type: Literal["card"]
    card: Card = Field(description="A draft now exists; the final answer carries it too")
    caption: str


class TextEvent(WireModel):
    type: Literal["text"]
    text: str = Field(description="More of the assistant's text, where the model streams it")


class DoneEvent(WireModel):
    type: Literal["done"]
    response: ChatResponse = Field(description="What POST /chat answers when it waits for the turn")


class FailureDetail(WireModel):
    code: str
    message: str


class FailedEvent(WireModel):
    type: Literal["failed"]
    status: int = Field(description="The status POST /chat would have answered the failure with")
    error: FailureDetail
    retry_after: int | SkipJsonSchema[None] = Field(
        default=None, description="Seconds to wait before asking again (model_busy)"
    )


TurnEvent = CardEvent | TextEvent | DoneEvent | FailedEvent


class TurnView(WireModel):
    """The body of ``GET /turns/{id}``: the turn's events from the cursor on."""

    turn_id: str
    session_id: str
    status: Literal["running", "done", "failed"]
    events: tuple[TurnEvent, ...] = Field(description="In order; done or failed is the last one")
    next: int = Field(description="Ask again with after=next for the events after these")


def turn_id_of(event: Any) -> str | None:
    """The turn id of an asynchronous turn invocation's event, None for any other event."""
    if not isinstance(event, Mapping):
        return None
    body = event.get(TURN_EVENT_KEY)
    turn_id = body.get("turnId") if isinstance(body, Mapping) else None
    return turn_id if isinstance(turn_id, str) and valid_turn_id(turn_id) else None
