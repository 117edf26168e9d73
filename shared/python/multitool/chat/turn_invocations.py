"""A turn run past its request: its id, the asynchronous invocation that runs it, and what the chat API
answers about one before any of its wire shapes (:mod:`multitool.chat.turn_views`) is needed.

The deployed handler reads every event with :func:`turn_id_of` before routing it, so this module is
part of every cold start: it defines no model.
"""

import secrets
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from multitool.errors import ServiceError

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


def turn_id_of(event: Any) -> str | None:
    """The turn id of an asynchronous turn invocation's event, None for any other event."""
    if not isinstance(event, Mapping):
        return None
    body = event.get(TURN_EVENT_KEY)
    turn_id = body.get("turnId") if isinstance(body, Mapping) else None
    return turn_id if isinstance(turn_id, str) and valid_turn_id(turn_id) else None
