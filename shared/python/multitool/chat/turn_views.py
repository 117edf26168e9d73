"""A turn run past its request on the wire: what it answers, its start (``POST /chat`` with ``Prefer:
respond-async``, 202), its events and its view (``GET /turns/{id}``).

The wire shapes alone, which the chat API's OpenAPI document names: they load with the machinery that
starts, runs and reads a turn (:mod:`multitool.chat.async_turns`, the turns table, the running-turn
slots) when a request asks for a turn of its own, never on a plain ``POST /chat``; the turn's id and
the invocation that runs it are :mod:`multitool.chat.turn_invocations`.
"""

from typing import Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from multitool.chat.service import ChatResponse
from multitool.toolkit.cards import Card
from multitool.wire import WireModel


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
