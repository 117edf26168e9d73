"""The Slack app over HTTP: ``POST /slack/events`` for events and interactions alike, and the turn it runs.

:meth:`SlackApp.handle` answers an HTTP API (payload 2.0) event:

1. the signature first (:func:`multitool.slack.verify.verified_body`): unsigned, wrongly signed or
   stale is 401 and nothing of the body is parsed;
2. then the body: JSON (the Events API) or a form whose ``payload`` field is JSON (interactivity);
3. ``url_verification``: the ``challenge`` back (Slack's check of the request URL);
   ``event_callback``: :class:`multitool.slack.events.EventHandler` starts the turn, 200 at once;
   ``block_actions``: :class:`multitool.slack.interactions.InteractionHandler`, a Confirm or a Discard
   in an asynchronous invocation of its own (:meth:`SlackApp.run_click`), 200 at once; ``view_submission``:
   its answer (the modal's errors, or nothing to close it); anything else: 200, ignored.

:meth:`SlackApp.run_turn` is the asynchronous invocation the start launched: it runs the turn
(:func:`multitool.api.chat_app.run_turn_event`, the orchestrator's own), then posts the reply and one
message per card in the conversation the session id names (:func:`post_turn`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from multitool.errors import ServiceError
from multitool.observability import error_fields, logger
from multitool.slack.blocks import card_message, connect_message, replaced_message, text_message
from multitool.slack.events import CardPlaces, Conversation, EventHandler, MemoryCardPlaces, final_event
from multitool.slack.identity import slack_user_of
from multitool.slack.verify import NotFromSlack, headers_of, retry_number, verified_body
from multitool.slack.web import SlackCallFailed, SlackWeb

if TYPE_CHECKING:
    from multitool.chat.async_turns import ChatTurns
    from multitool.chat.turn_store import StoredTurn
    from multitool.slack.interactions import InteractionHandler

CLICK_EVENT_KEY = "multitoolSlackClick"
"""The key of the asynchronous invocation that acts on a Confirm or a Discard:
``{"multitoolSlackClick": <the block_actions payload Slack signed>}``."""
MAX_CLICK_BYTES = 250_000
"""Under Lambda's 256 KB for an asynchronous invocation's payload: a larger click is acted on in the
request."""
ACTED_LATER = ("mt:confirm", "mt:discard")
"""The clicks acted on past the request: a confirm may take longer than Slack's three seconds."""

Launch = Callable[[str, Mapping[str, Any]], None]
"""Invokes function ``name`` asynchronously with ``event``: ``launch(name, event)``."""

CONNECT_ACTION = "show_connect_account"
"""The connect card's type (:data:`multitool.toolkit.connect.CONNECT_ACTION`, which a test holds equal):
named here so an event's cold start does not load the card models."""

EDIT_CALLBACK_ID = "mt:edit"
"""The Edit modal's ``callback_id`` (:data:`multitool.slack.modal.CALLBACK_ID`, which a test holds equal):
named here so an event's cold start does not load the modal's module."""


class Secret:
    """What the app asks of a secret: its value now; forget it when it may have been rotated."""

    def get(self) -> str:  # pragma: no cover - a protocol
        raise NotImplementedError

    def forget(self) -> None:  # pragma: no cover - a protocol
        raise NotImplementedError


def _response(status: int, body: Any = None, headers: Mapping[str, str] | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {"statusCode": int(status), "headers": {"Content-Type": "application/json"}}
    if headers:
        answer["headers"].update(headers)
    answer["body"] = "" if body is None else json.dumps(body, separators=(",", ":"))
    return answer


class SlackApp:
    """Verifies, parses and dispatches Slack's requests; runs and posts the turns they start."""

    def __init__(
        self,
        signing_secret: Any,
        events: EventHandler,
        interactions: InteractionHandler,
        web: Callable[[], SlackWeb],
        turns: Callable[[], ChatTurns | None],
        *,
        places: Callable[[], CardPlaces] | None = None,
        launch: Launch | None = None,
        page_url: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``launch``: how a Confirm or a Discard is acted on past the request; None: in it."""
        self.launch = launch
        memory = MemoryCardPlaces()
        self.places = places or (lambda: memory)
        self.signing_secret = signing_secret
        self.events = events
        self.interactions = interactions
        self.web = web
        self.turns = turns
        self.page_url = page_url
        self.clock = clock

    def handle(self, event: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
        """The HTTP answer to one request on ``POST /slack/events``."""
        try:
            body = self._verified(event)
        except NotFromSlack as refused:
            logger.info("Slack request refused", extra={"why": str(refused)})
            return _response(
                HTTPStatus.UNAUTHORIZED,
                {"error": {"code": refused.code, "message": refused.public_message()}},
            )
        except ServiceError as error:  # the signing secret cannot be read: Slack retries later
            logger.error("Slack signing secret unavailable", extra={"code": error.code})
            return _response(HTTPStatus.SERVICE_UNAVAILABLE)
        try:
            return self._dispatch(body, event, context)
        except ServiceError as error:
            logger.warning("Slack request not handled", extra={"code": error.code})
            return _response(error.status if error.status >= 500 else HTTPStatus.OK)
        except Exception as error:
            logger.error("Slack request failed", extra=error_fields(error))
            return _response(HTTPStatus.INTERNAL_SERVER_ERROR)

    def _verified(self, event: Mapping[str, Any]) -> bytes:
        try:
            return verified_body(event, self.signing_secret.get(), self.clock)
        except NotFromSlack:
            # A secret pasted after this container read the old one: read it again, check once more.
            self.signing_secret.forget()
            return verified_body(event, self.signing_secret.get(), self.clock)

    def _dispatch(self, body: bytes, event: Mapping[str, Any], context: Any) -> dict[str, Any]:
        payload = parse_body(body, headers_of(event).get("content-type", ""))
        kind = payload.get("type")
        if kind == "url_verification":
            return _response(HTTPStatus.OK, {"challenge": str(payload.get("challenge", ""))})
        if kind == "event_callback":
            logger.info(
                "Slack event", extra={"retry": retry_number(event), "event_id": payload.get("event_id")}
            )
            self.events.on_event(payload, str(getattr(context, "function_name", "") or ""))
            return _response(HTTPStatus.OK)
        if kind == "block_actions":
            if not self._later(payload, str(getattr(context, "function_name", "") or "")):
                self.interactions.on_click(payload)
            return _response(HTTPStatus.OK)
        if kind == "view_submission" and (payload.get("view") or {}).get("callback_id") == EDIT_CALLBACK_ID:
            answer = self.interactions.on_submit(payload)
            return _response(HTTPStatus.OK, answer)
        logger.info("Slack request ignored", extra={"type": str(kind)[:64]})
        return _response(HTTPStatus.OK)

    def _later(self, payload: Mapping[str, Any], function_name: str) -> bool:
        """Whether a Confirm or a Discard was handed to an asynchronous invocation of this function, so
        Slack gets its answer within three seconds whatever the confirm takes. An Edit stays in the
        request (its ``trigger_id`` lives three seconds); a launch that fails leaves the click to it."""
        actions = [a.get("action_id") for a in payload.get("actions") or () if isinstance(a, Mapping)]
        if self.launch is None or not function_name or not actions or not set(actions) <= set(ACTED_LATER):
            return False
        event = {CLICK_EVENT_KEY: dict(payload)}
        if len(json.dumps(event)) > MAX_CLICK_BYTES:
            return False
        try:
            self.launch(function_name, event)
        except Exception as error:
            logger.warning("Slack click not launched: acted on in the request", extra=error_fields(error))
            return False
        return True

    def run_click(self, payload: Mapping[str, Any]) -> dict[str, str]:
        """The asynchronous invocation of a Confirm or a Discard: the payload was verified when Slack
        sent it, and only this function may invoke itself (the stack's IAM)."""
        self.interactions.on_click(payload)
        return {"status": "done"}

    def run_turn(self, turn_id: str, context: Any = None) -> dict[str, str]:
        """The asynchronous invocation of a turn a Slack event started: run it, then post it."""
        from multitool.api.chat_app import run_turn_event

        status = run_turn_event(turn_id, context, self.turns)
        turns = self.turns()
        stored = turns.store.get(turn_id) if turns is not None else None
        if stored is not None and status.get("status") != "skipped":
            post_turn(self.web(), stored, self.places(), page_url=self.page_url)
        return status


def click_of(event: Any) -> Mapping[str, Any] | None:
    """The click an asynchronous click invocation carries, None for any other event."""
    if not isinstance(event, Mapping):
        return None
    payload = event.get(CLICK_EVENT_KEY)
    return payload if isinstance(payload, Mapping) and payload.get("type") == "block_actions" else None


def parse_body(body: bytes, content_type: str) -> dict[str, Any]:
    """A verified body as a dict: the Events API's JSON, or interactivity's form with its JSON ``payload``."""
    text = body.decode("utf-8")
    if content_type.split(";", 1)[0].strip().lower() == "application/x-www-form-urlencoded":
        form = parse_qs(text, keep_blank_values=True)
        raw = (form.get("payload") or [""])[0]
        decoded = json.loads(raw) if raw else {k: v[0] for k, v in form.items()}
    else:
        decoded = json.loads(text) if text.strip() else {}
    return decoded if isinstance(decoded, dict) else {}


def post_turn(web: SlackWeb, turn: StoredTurn, places: CardPlaces, *, page_url: str | None = None) -> None:
    """The turn's reply, then one message per card, in its conversation; a failed post loses no draft.
    A card that revises one posted before marks that one's message replaced."""
    from multitool.cards import client_actions

    where = Conversation.of_session(turn.session_id)
    if where is None:
        logger.warning("Turn is not a Slack conversation's", extra={"turn_id": turn.turn_id})
        return
    final = final_event(turn.events) or {}
    owner = slack_user_of(turn.owner)
    if final.get("type") != "done":
        words = (final.get("error") or {}).get("message") or "The turn stopped before it finished; ask again."
        _post(web, where, text_message(str(words)))
        return
    response = final.get("response") or {}
    _post(web, where, text_message(str(response.get("message") or "")))
    captions = response.get("clientActionMessages") or []
    for index, wire in enumerate(response.get("clientActions") or []):
        if wire.get("type") == CONNECT_ACTION:
            _post_connect(web, where, owner, wire, page_url)
            continue
        try:
            card = client_actions.card_from_payload(
                {**wire, "action": wire.get("type"), "draftId": wire.get("id")}
            )
        except ValueError:
            continue
        caption = captions[index] if index < len(captions) else client_actions.caption(card)
        try:
            message = card_message(card, str(caption), page_url=page_url, owner=owner)
        except Exception as error:  # a card that cannot be drawn is still a draft: say where it is
            logger.error("Slack card not drawn", extra={"draft_id": card.id, **error_fields(error)})
            message = text_message(f"{caption}: review it on the page ({page_url or 'the chat page'}).")
        ts = _post(web, where, message)
        if ts is None and message.blocks:
            _post(
                web, where, text_message(f"{caption}: review it on the page ({page_url or 'the chat page'}).")
            )
        if ts is not None:
            places.remember(card.id, where.channel, ts, str(caption))
        if card.revises:
            _mark_replaced(web, places, card.revises)


def is_direct_message(where: Conversation) -> bool:
    """A direct message with the app: only the asker sees it. Slack's DM channel ids begin with ``D``
    (https://docs.slack.dev/reference/objects/conversation-object/); a mention's replies are always in
    a channel's thread."""
    return where.thread_ts is None or where.channel.startswith("D")


def _post_connect(
    web: SlackWeb, where: Conversation, owner: str | None, wire: Mapping[str, Any], page_url: str | None
) -> None:
    """The connect card, to the asker only: a message in their DM with the app; in a channel's thread an
    ephemeral message (``chat.postEphemeral``, ``user`` the asker): the link starts a consent bound to
    the asker's directory person, which no one else could finish, and it says nothing to the channel."""
    url, name = wire.get("authorizationUrl"), wire.get("providerName")
    if not isinstance(url, str) or not isinstance(name, str):
        return
    message = connect_message(name, url, page_url=page_url)
    try:
        if is_direct_message(where):
            web.post(where.channel, message.text, thread_ts=where.thread_ts, blocks=message.blocks)
        elif owner is not None:
            web.ephemeral(
                where.channel, owner, message.text, thread_ts=where.thread_ts, blocks=message.blocks
            )
    except SlackCallFailed as failed:
        logger.warning("Slack connect card not posted", extra={"slack_error": failed.error})


def _mark_replaced(web: SlackWeb, places: CardPlaces, draft_id: str) -> None:
    """The replaced card's message, where this app posted it, says it was replaced (no buttons left)."""
    place = places.where(draft_id)
    if place is None:
        return
    channel, ts, caption = place
    message = replaced_message(caption)
    try:
        web.update(channel, ts, message.text, message.blocks)
    except SlackCallFailed as failed:
        logger.warning("Slack card not marked replaced", extra={"slack_error": failed.error})


def _post(web: SlackWeb, where: Conversation, message: Any) -> str | None:
    """The posted message's ``ts``; None when Slack refused it."""
    try:
        return web.post(where.channel, message.text, thread_ts=where.thread_ts, blocks=message.blocks or None)
    except SlackCallFailed as failed:
        logger.warning("Slack message not posted", extra={"slack_error": failed.error, "why": failed.words()})
        return None
