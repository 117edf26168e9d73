"""Chat turns run past their request: started by ``POST /chat``, run by their own invocation, read by polling.

:class:`ChatTurns` starts a turn as :meth:`multitool.chat.service.ChatService.reply_body`
answers one, with the same checks in the same order (the request, the
``Idempotency-Key``, then the session's owner), so every error answer is the same;
then it stores the turn (:mod:`multitool.chat.turn_store`), launches its invocation and
answers at once. With an ``Idempotency-Key``, a retry answers the first start's
body (the same turn id) and never starts a second turn.

:meth:`ChatTurns.run` is that invocation: it takes the turn once, runs it through
the same :meth:`~multitool.chat.service.ChatService.reply`, appending each card as its draft
is made, and ends with the answer ``POST /chat`` would have given, or the error
it would have answered. :meth:`ChatTurns.view` is ``GET /turns/{id}``.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Literal

from multitool.chat.service import ChatRequest, ChatService, body_hash, turn_deadline, wire_text
from multitool.chat.sessions import new_session_id
from multitool.chat.turn_invocations import INTERNAL, TurnNotFound, new_turn_id
from multitool.chat.turn_store import (
    LOST_AFTER_SECONDS,
    START_WITHIN_SECONDS,
    DynamoTurnStore,
    StoredTurn,
    TurnStoreFailed,
    card_event,
    done_event,
    failed_event,
    text_event,
)
from multitool.chat.turn_views import TurnStarted
from multitool.errors import RETRY_AFTER, ServiceError
from multitool.observability import error_fields, logger, metrics
from multitool.ports.turn_slots import SlotsFull, SlotsUnavailable, TurnSlots
from multitool.runtimes.base import ModelBusy, ModelFailed, TurnError
from multitool.settings import SettingsError
from multitool.toolkit.cards import Card

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext


class TurnsUnavailable(ServiceError):
    """The turns table or the launch failed: nothing ran; retry as is (HTTP 503)."""

    code = "turns_unavailable"
    status = HTTPStatus.SERVICE_UNAVAILABLE

    def public_message(self) -> str:
        return f"{self} Retry in a few seconds (with the same Idempotency-Key, if any)."

    def headers(self) -> dict[str, str]:
        return {RETRY_AFTER: "2"}


TOO_MANY_TURNS_RETRY_SECONDS = 10
"""What a refused start waits at most: a place is held for minutes, but a turn usually ends in seconds."""


class TooManyTurns(ServiceError):
    """The user already runs as many turns as one user may at once (HTTP 429, Retry-After)."""

    code = "too_many_turns"
    status = HTTPStatus.TOO_MANY_REQUESTS

    def __init__(self, running: int, retry_after: float) -> None:
        super().__init__(f"{running} turns running")
        self.running = running
        self.retry_after = max(1, min(TOO_MANY_TURNS_RETRY_SECONDS, math.ceil(retry_after)))

    def public_message(self) -> str:
        return (
            f"You already have {self.running} turns running, the most one user may run at once. "
            "Wait for one to end (GET /turns/{id}) and send again; nothing was started. "
            "Other users are not affected."
        )

    def headers(self) -> dict[str, str]:
        return {RETRY_AFTER: str(self.retry_after)}


def failure_of(error: BaseException) -> dict[str, Any]:
    """The failed event for an error a turn raised: the status and body ``POST /chat`` answers it with."""
    if isinstance(error, TurnError | SettingsError):
        retry_after = max(1, error.retry_after) if isinstance(error, ModelBusy) else None
        return failed_event(error.status, error.code, error.public_message(), retry_after=retry_after)
    return failed_event(HTTPStatus.INTERNAL_SERVER_ERROR, "internal_error", INTERNAL)


TEXT_EVERY_SECONDS = 0.5
"""Streamed text is written at most this often (one write per token would be one per few characters)."""


class _Progress:
    """Appends each card, and the streamed text in pieces, to the turn's events as they are reported."""

    def __init__(
        self, store: DynamoTurnStore, turn_id: str, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.store = store
        self.turn_id = turn_id
        self.clock = clock
        self.cards: set[str] = set()
        self.pending = ""
        self.written_at = float("-inf")
        self._lock = threading.Lock()

    def card(self, card: Card, caption: str) -> None:
        with self._lock:
            if card.id in self.cards:
                return
            self.cards.add(card.id)
            events = [*self._take_text(), card_event(card.to_wire(), caption)]
        self.store.append(self.turn_id, events)

    def text(self, delta: str) -> None:
        with self._lock:
            self.pending += delta
            due = self.clock() - self.written_at >= TEXT_EVERY_SECONDS
            events = self._take_text() if due else []
        if events:
            self.store.append(self.turn_id, events)

    def _take_text(self) -> list[dict[str, Any]]:
        if not self.pending:
            return []
        taken, self.pending, self.written_at = self.pending, "", self.clock()
        return [text_event(taken)]


Launch = Callable[[str, str], None]
"""Starts the invocation of function ``name`` that runs turn ``id``: ``launch(name, turn_id)``."""


class ChatTurns:
    """Starts, runs and shows turns for :class:`ChatService`, on a turns table."""

    def __init__(
        self,
        service: ChatService,
        store: DynamoTurnStore,
        launch: Launch,
        slots: TurnSlots | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.service = service
        self.store = store
        self.launch = launch
        self.slots = slots
        """Each user's places for running turns; None: no cap (the local demo, a stack without the table)."""
        self.clock = clock
        idempotency = service.idempotency
        self._start_once = idempotency.wrap(self._start_body) if idempotency is not None else None

    def start_body(
        self,
        user_id: str,
        request: ChatRequest,
        *,
        function_name: str,
        timezone_hint: str | None = None,
        user_email: str | None = None,
        idempotency_key: str | None = None,
        lambda_context: LambdaContext | None = None,
        locale_hint: str | None = None,
    ) -> str:
        """The 202 body (JSON text) of a started turn; with an ``idempotency_key``, the first one on a retry.

        Raises what :meth:`ChatService.reply_body` raises before a turn runs, and :class:`TurnsUnavailable`.
        """
        self.service.validate(request, timezone_hint)
        idempotency = self.service.idempotency
        if idempotency_key is None or idempotency is None or self._start_once is None:
            return self._start_body(user_id, request, timezone_hint, user_email, function_name, locale_hint)
        idempotency.register_lambda_context(lambda_context)
        request_key = {
            "userId": user_id,
            "idempotencyKey": idempotency_key,
            "bodyHash": body_hash(request),
        }
        return idempotency.call(
            self._start_once,
            user_id,
            request,
            timezone_hint,
            user_email,
            function_name,
            locale_hint,
            request_key=request_key,
        )

    def _start_body(
        self,
        user_id: str,
        request: ChatRequest,
        timezone_hint: str | None,
        user_email: str | None,
        function_name: str,
        locale_hint: str | None = None,
        *,
        request_key: dict[str, str] | None = None,
    ) -> str:
        session_id = request.session_id or new_session_id()
        # The session rules answer now (403 for another user's session), not in the turn's events.
        self.service.sessions.claim(session_id, user_id)
        turn_id = new_turn_id()
        # Until its invocation starts (then until it must have ended): a turn that never runs frees its place.
        self._take_place(user_id, turn_id, until=self.clock() + START_WITHIN_SECONDS)
        stored = {
            "request": request.model_copy(update={"session_id": session_id}).to_wire(),
            "timezoneHint": timezone_hint,
            "userEmail": user_email,
            **({"localeHint": locale_hint} if locale_hint else {}),
        }
        try:
            self.store.create(turn_id, user_id, session_id, stored)
        except TurnStoreFailed as error:
            self._free_place(user_id, turn_id)
            raise TurnsUnavailable("The turn could not be stored.") from error
        try:
            self.launch(function_name, turn_id)
        except Exception as error:
            logger.warning("Turn not launched", extra=error_fields(error))
            self._end(
                turn_id, user_id, failed_event(HTTPStatus.SERVICE_UNAVAILABLE, "turn_not_started", INTERNAL)
            )
            raise TurnsUnavailable("The turn could not be started.") from error
        logger.info("Chat turn started", extra={"turn_id": turn_id})
        return wire_text(TurnStarted(turn_id=turn_id, session_id=session_id).to_wire())

    def run(self, turn_id: str, lambda_context: LambdaContext | None = None) -> str:
        """Run a started turn once (a repeated delivery of its invocation runs nothing); its final status."""
        deadline = turn_deadline(lambda_context)
        wall_deadline = time.time() + (deadline - time.monotonic()) if deadline is not None else time.time()
        turn = self.store.start(turn_id, wall_deadline + 1)
        if turn is None:
            logger.info("Turn not run: unknown, already running or too old", extra={"turn_id": turn_id})
            return "skipped"  # a place it held runs out with its lease; a running one is not this one's
        self._hold_place(turn.owner, turn_id, until=wall_deadline + 1 + LOST_AFTER_SECONDS)
        fields = turn.request
        try:
            request = ChatRequest.model_validate(fields["request"])
            response = self.service.reply(
                turn.owner,
                request,
                timezone_hint=fields.get("timezoneHint"),
                user_email=fields.get("userEmail"),
                locale_hint=fields.get("localeHint"),
                deadline=deadline,
                progress=_Progress(self.store, turn_id),
            )
        except Exception as error:
            if not isinstance(error, ModelBusy | ModelFailed):
                logger.error("Chat turn failed", extra=error_fields(error))
            metrics.add_metric(name="TurnsFailed", unit="Count", value=1)  # the stack alarms on it
            return self._end(turn_id, turn.owner, failure_of(error))
        return self._end(turn_id, turn.owner, done_event(response.to_wire()))

    def _end(self, turn_id: str, owner: str, event: dict[str, Any]) -> str:
        status: Literal["done", "failed"] = "done" if event["type"] == "done" else "failed"
        try:
            self.store.append(turn_id, [event], status)
        finally:
            self._free_place(owner, turn_id)
        return status

    def _take_place(self, user_id: str, turn_id: str, *, until: float) -> None:
        if self.slots is None:
            return
        try:
            self.slots.take(user_id, turn_id, until=until)
        except SlotsFull as full:
            logger.info("Too many turns running", extra={"running": full.running})
            raise TooManyTurns(full.running, full.free_at - self.clock()) from full
        except SlotsUnavailable as error:
            raise TurnsUnavailable("The running turns could not be counted.") from error

    def _hold_place(self, owner: str, turn_id: str, *, until: float) -> None:
        """Hold the place for as long as the invocation may run; a turn that lost its place still runs."""
        if self.slots is None:
            return
        try:
            held = self.slots.hold(owner, turn_id, until=until)
        except SlotsUnavailable as error:
            logger.warning("Turn's place not held longer", extra=error_fields(error))
            return
        if not held:
            logger.warning("Turn runs without a place: its lease ran out before it started")

    def _free_place(self, owner: str, turn_id: str) -> None:
        if self.slots is None:
            return
        try:
            self.slots.release(owner, turn_id)
        except SlotsUnavailable as error:
            # Its lease runs out by itself when the turn's invocation must have ended.
            logger.warning("Turn's place not given back", extra=error_fields(error))

    def view(self, user_id: str, turn_id: str, after: int = 0) -> dict[str, Any]:
        """The caller's turn from event ``after`` on (a :class:`TurnView` on the wire);
        :class:`TurnNotFound` unless the caller owns it."""
        try:
            found = self.store.get(turn_id)
        except TurnStoreFailed as error:
            raise TurnsUnavailable("The turn cannot be read right now.") from error
        if found is None or found.owner != user_id:
            raise TurnNotFound(turn_id)
        return _view(found.settled(), after)


def _view(turn: StoredTurn, after: int) -> dict[str, Any]:
    return {
        "turnId": turn.turn_id,
        "sessionId": turn.session_id,
        "status": turn.status,
        "events": list(turn.events[after:]),
        "next": max(after, len(turn.events)),
    }
