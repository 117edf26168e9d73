"""What the Slack stand-in sends the app: events and interactions, signed exactly as Slack signs them.

Signing (https://docs.slack.dev/authentication/verifying-requests-from-slack): the base string is
``v0:{X-Slack-Request-Timestamp}:{raw body}``, its HMAC-SHA256 keyed with the app's signing secret,
hex, sent as ``X-Slack-Signature: v0=<hex>`` beside ``X-Slack-Request-Timestamp`` (Unix seconds).

Wire shapes:

* Events API (https://docs.slack.dev/apis/events-api/): a JSON body, ``Content-Type:
  application/json``; ``url_verification`` carries ``token``, ``challenge`` and ``type``; every other
  event comes in the ``event_callback`` envelope: ``token``, ``team_id``, ``api_app_id``, ``event``,
  ``type``, ``event_id``, ``event_time``, ``authorizations`` (the installation that may see it:
  ``enterprise_id``, ``team_id``, ``user_id`` of the bot, ``is_bot``, ``is_enterprise_install``),
  ``is_ext_shared_channel``, ``event_context``. A DM to the app is a ``message`` event with
  ``channel_type: "im"`` (the ``message.im`` subscription); a mention is ``app_mention``
  (``text`` starts ``<@BOT_USER>``). A delivery not answered 2xx within three seconds is sent again
  with ``X-Slack-Retry-Num`` (1, 2, 3) and ``X-Slack-Retry-Reason`` (``http_timeout``,
  ``http_error``): "Events API", "Error handling" / "Graceful retries" (Slack waits a minute, then
  five, before the later ones; the stand-in sends the retries it is asked to, at once).
* Interactivity (https://docs.slack.dev/interactivity/handling-user-interaction): a form body,
  ``Content-Type: application/x-www-form-urlencoded``, one field ``payload`` holding the JSON;
  ``block_actions`` (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload):
  ``type``, ``user`` (``id``, ``username``, ``name``, ``team_id``), ``api_app_id``, ``token``,
  ``container`` (``type: "message"``, ``message_ts``, ``channel_id``, ``is_ephemeral``),
  ``trigger_id``, ``team``, ``enterprise``, ``is_enterprise_install``, ``channel``, ``message``,
  ``state``, ``response_url``, ``actions`` (``action_id``, ``block_id``, ``type``, ``action_ts`` and
  the element's ``text``/``value`` or ``selected_option``); ``view_submission``
  (https://docs.slack.dev/reference/interaction-payloads/view-interactions-payload): ``type``,
  ``team``, ``user``, ``api_app_id``, ``token``, ``trigger_id``, ``view`` (with ``state.values``:
  ``{block_id: {action_id: {type, value | selected_option | selected_date}}}``), ``response_urls``.

The ``token`` in each body is the app's (deprecated) verification token; the app must not trust it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from multitool.local.standins.slack_workspace import (
    APP_ID,
    BOT_USER,
    TEAM_ID,
    TEAM_NAME,
    Member,
    Message,
    OpenView,
    SlackWorkspace,
)

VERIFICATION_TOKEN = "local-verification-token-not-a-secret"  # noqa: S105 - Slack sends one; apps ignore it
ACK_SECONDS = 3.0
"""Slack waits this long for a 2xx before it counts the delivery as failed (``http_timeout``)."""


def signature(signing_secret: str, timestamp: str, body: bytes) -> str:
    """``X-Slack-Signature`` for ``body`` sent at ``timestamp``."""
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(signing_secret.encode(), base, hashlib.sha256).hexdigest()


def signed_headers(
    signing_secret: str, body: bytes, content_type: str, now: float | None = None
) -> dict[str, str]:
    timestamp = str(int(time.time() if now is None else now))
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": timestamp,
        "X-Slack-Signature": signature(signing_secret, timestamp, body),
        "User-Agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
    }


@dataclass(frozen=True, slots=True)
class Delivery:
    """One request the stand-in sent and what the app answered (status 0: no answer in time)."""

    kind: str
    body: bytes
    status: int
    answer: bytes
    retry: int = 0

    def json(self) -> Any:
        return json.loads(self.answer) if self.answer else None


def event_envelope(event: dict[str, Any], event_id: str | None = None) -> dict[str, Any]:
    return {
        "token": VERIFICATION_TOKEN,
        "team_id": TEAM_ID,
        "context_team_id": TEAM_ID,
        "api_app_id": APP_ID,
        "event": event,
        "type": "event_callback",
        "event_id": event_id or "Ev" + secrets.token_hex(5).upper(),
        "event_time": int(time.time()),
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": TEAM_ID,
                "user_id": BOT_USER,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": "4-" + secrets.token_hex(16),
    }


def message_event(message: Message, *, im: bool) -> dict[str, Any]:
    """The event a member's message makes: ``message`` in a DM, ``app_mention`` in a channel."""
    event: dict[str, Any] = {
        "type": "message" if im else "app_mention",
        "user": message.user,
        "text": message.text,
        "ts": message.ts,
        "channel": message.channel,
        "event_ts": message.ts,
        "team": TEAM_ID,
        "client_msg_id": str(secrets.token_hex(16)),
    }
    if im:
        event["channel_type"] = "im"
    if message.thread_ts:
        event["thread_ts"] = message.thread_ts
    return event


def _user(member: Member) -> dict[str, Any]:
    return {"id": member.id, "username": member.name, "name": member.name, "team_id": TEAM_ID}


def elements(blocks: list[dict[str, Any]]) -> Iterator[tuple[str | None, dict[str, Any]]]:
    """Every interactive element of some blocks, with its block's id."""
    for block in blocks:
        block_id = block.get("block_id")
        if block.get("type") == "actions":
            for element in block.get("elements", ()):
                yield block_id, element
        for key in ("accessory", "element"):
            if isinstance(block.get(key), dict):
                yield block_id, block[key]


def find_element(blocks: list[dict[str, Any]], action_id: str) -> tuple[str, dict[str, Any]]:
    for block_id, element in elements(blocks):
        if element.get("action_id") == action_id:
            return block_id or "", element
    raise KeyError(f"no element with action_id {action_id!r}")


def action_of(block_id: str, element: dict[str, Any], value: str | None) -> dict[str, Any]:
    """The ``actions[]`` entry a click (a button) or a choice (a select, by option value) makes."""
    action: dict[str, Any] = {
        "action_id": element["action_id"],
        "block_id": block_id,
        "type": element["type"],
        "action_ts": f"{time.time():.6f}",
    }
    if element["type"] == "button":
        action["text"] = element["text"]
        if "value" in element:
            action["value"] = element["value"]
        if "style" in element:
            action["style"] = element["style"]
        return action
    options = [o for group in element.get("option_groups", ()) for o in group["options"]]
    options += list(element.get("options", ()))
    chosen = next((o for o in options if o.get("value") == value), None)
    if chosen is None:
        raise KeyError(f"{element['action_id']} has no option {value!r}")
    action["selected_option"] = chosen
    if "placeholder" in element:
        action["placeholder"] = element["placeholder"]
    return action


STATEFUL = frozenset(
    {"static_select", "radio_buttons", "datepicker", "timepicker", "checkboxes", "plain_text_input"}
)
"""Elements whose current value a member sets in the message, sent back in ``state.values``."""


def message_state(message: Message, chosen: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``state.values`` of a block_actions payload: every stateful element of the message with what the
    member chose in it (``chosen``: action_id -> selected option), else its initial option or nothing.
    Slack sends it with every click, all stateful elements included, not just input blocks, so a
    button reads the select beside it (https://api.slack.com/changelog/2020-09-full-state-on-view-submisson-and-block-actions)."""
    values: dict[str, Any] = {}
    for block_id, element in elements(message.blocks):
        kind, action_id = element.get("type"), element.get("action_id")
        if kind not in STATEFUL or not block_id or not action_id:
            continue
        entry: dict[str, Any] = {"type": kind}
        if kind in ("static_select", "radio_buttons"):
            entry["selected_option"] = chosen.get(action_id, element.get("initial_option"))
        values.setdefault(block_id, {})[action_id] = entry
    return values


def block_actions_payload(
    workspace: SlackWorkspace, member: Member, message: Message, action: dict[str, Any], response_url: str
) -> dict[str, Any]:
    return {
        "type": "block_actions",
        "user": _user(member),
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "container": {
            "type": "message",
            "message_ts": message.ts,
            "channel_id": message.channel,
            "is_ephemeral": False,
        },
        "trigger_id": workspace.new_trigger(member.id),
        "team": {"id": TEAM_ID, "domain": TEAM_NAME},
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": message.channel, "name": workspace.channels[message.channel]},
        "message": message.wire(),
        "state": {"values": message_state(message, workspace.chosen(member.id, message))},
        "response_url": response_url,
        "actions": [action],
    }


def state_values(view: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    """A view's ``state.values`` with ``values`` entered (the text typed, the option chosen by its
    value, the date), every other input at its initial value. An input is named by its ``block_id``
    (unique in a view), or by its ``action_id`` where no other input shares it."""
    inputs = [(b, e) for b, e in elements(view.get("blocks", [])) if b and e.get("action_id")]
    shared = {
        e["action_id"] for _, e in inputs if [x["action_id"] for _, x in inputs].count(e["action_id"]) > 1
    }
    state: dict[str, Any] = {}
    used: set[str] = set()
    for block_id, element in inputs:
        action_id, kind = element["action_id"], element.get("type")
        names = [block_id] + ([action_id] if action_id not in shared else [])
        name = next((n for n in names if n in values), None)
        given = values[name] if name is not None else None
        used.update(n for n in names if n in values)
        entry: dict[str, Any] = {"type": kind}
        if kind == "plain_text_input":
            entry["value"] = given if given is not None else element.get("initial_value")
        elif kind in ("static_select", "radio_buttons"):
            chosen = element.get("initial_option")
            if given is not None:
                chosen = action_of(block_id, element, given)["selected_option"]
            entry["selected_option"] = chosen
        elif kind == "datepicker":
            entry["selected_date"] = given if given is not None else element.get("initial_date")
        elif kind == "timepicker":
            entry["selected_time"] = given if given is not None else element.get("initial_time")
        else:
            continue
        state.setdefault(block_id, {})[action_id] = entry
    unknown = set(values) - used
    if unknown:
        raise KeyError(f"the view has no input {sorted(unknown)} (name each by its block_id)")
    return state


def view_submission_payload(
    member: Member, opened: OpenView, values: dict[str, str], trigger: str
) -> dict[str, Any]:
    view = {**opened.wire(), "state": {"values": state_values(opened.view, values)}}
    return {
        "type": "view_submission",
        "team": {"id": TEAM_ID, "domain": TEAM_NAME},
        "user": _user(member),
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "trigger_id": trigger,
        "view": view,
        "response_urls": [],
        "is_enterprise_install": False,
        "enterprise": None,
    }


class SlackSender:
    """Sends the app at ``request_url`` what Slack would, signed with the workspace's signing secret,
    and keeps every delivery (:attr:`deliveries`)."""

    def __init__(
        self,
        workspace: SlackWorkspace,
        request_url: str,
        *,
        retries: int = 0,
        ack_seconds: float = ACK_SECONDS,
    ) -> None:
        if urlsplit(request_url).scheme not in ("http", "https"):
            raise ValueError(f"the app's request URL must be http(s): {request_url!r}")
        self.workspace = workspace
        self.request_url = request_url
        self.retries = retries
        self.ack_seconds = ack_seconds
        self.deliveries: list[Delivery] = []

    def send(
        self, kind: str, body: bytes, content_type: str, *, retry: int = 0, reason: str = ""
    ) -> Delivery:
        headers = signed_headers(self.workspace.signing_secret, body, content_type)
        if retry:
            headers["X-Slack-Retry-Num"] = str(retry)
            headers["X-Slack-Retry-Reason"] = reason
        request = urllib.request.Request(  # noqa: S310 - http(s) only, checked in __init__
            self.request_url, data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.ack_seconds) as answer:  # noqa: S310
                delivery = Delivery(kind, body, answer.status, answer.read(), retry)
        except urllib.error.HTTPError as error:
            delivery = Delivery(kind, body, error.code, error.read(), retry)
        except (TimeoutError, urllib.error.URLError):
            delivery = Delivery(kind, body, 0, b"", retry)
        self.deliveries.append(delivery)
        # Slack retries events only: an interaction not answered in time is an error the member sees.
        if not 200 <= delivery.status < 300 and retry < self.retries and content_type == "application/json":
            return self.send(
                kind,
                body,
                content_type,
                retry=retry + 1,
                reason="http_timeout" if delivery.status == 0 else "http_error",
            )
        return delivery

    def redeliver(self, retry: int = 1, reason: str = "") -> Delivery:
        """The last event sent again, as Slack retries it: the same body (the same ``event_id``),
        signed anew, with ``X-Slack-Retry-Num`` and ``X-Slack-Retry-Reason``."""
        not_events = ("url_verification", "block_actions", "view_submission")
        last = next((d for d in reversed(self.deliveries) if d.kind not in not_events), None)
        if last is None:
            raise KeyError("no event was sent yet")
        return self.send(
            last.kind, last.body, "application/json", retry=retry, reason=reason or "http_timeout"
        )

    def event(self, event: dict[str, Any], event_id: str | None = None) -> Delivery:
        body = json.dumps(event_envelope(event, event_id)).encode()
        return self.send(event["type"], body, "application/json")

    def url_verification(self, challenge: str) -> Delivery:
        body = json.dumps({"token": VERIFICATION_TOKEN, "challenge": challenge, "type": "url_verification"})
        return self.send("url_verification", body.encode(), "application/json")

    def interaction(self, payload: dict[str, Any]) -> Delivery:
        body = urlencode({"payload": json.dumps(payload)}).encode()
        return self.send(payload["type"], body, "application/x-www-form-urlencoded")

    # -- what a member does ----------------------------------------------------------------------

    def say(
        self, member: Member, channel: str, text: str, thread_ts: str | None = None
    ) -> tuple[Message, Delivery]:
        """``member`` writes ``text`` in ``channel`` (their DM with the app: a ``message.im`` event; a
        channel: the message mentions the app, an ``app_mention`` event)."""
        im = self.workspace.dm_member(channel) is not None
        if not im and f"<@{BOT_USER}>" not in text:
            text = f"<@{BOT_USER}> {text}"
        message = self.workspace.post_as(member.id, channel, text, thread_ts)
        return message, self.event(message_event(message, im=im))

    def click(self, member: Member, message: Message, action_id: str, value: str | None = None) -> Delivery:
        """``member`` clicks a button (or chooses option ``value`` of a select) of ``message``."""
        block_id, element = find_element(message.blocks, action_id)
        action = action_of(block_id, element, value)
        if "selected_option" in action:  # the member's choice stays on their view of the message
            self.workspace.choose(member.id, message, action_id, action["selected_option"])
        response_url = f"{self.workspace.response_base}/{message.channel}/{message.ts}/{member.id}"
        return self.interaction(block_actions_payload(self.workspace, member, message, action, response_url))

    def submit(self, member: Member, view_id: str, values: dict[str, str]) -> Delivery:
        """``member`` submits their open view ``view_id`` with ``values`` entered; the view closes
        unless the app answers ``response_action: errors`` (or ``update``, which replaces it)."""
        opened = self.workspace.views[view_id]
        if opened.user != member.id or opened.closed:
            raise KeyError(f"{member.id} has no open view {view_id}")
        payload = view_submission_payload(member, opened, values, self.workspace.new_trigger(member.id))
        delivery = self.interaction(payload)
        try:
            answer = delivery.json() if delivery.answer.strip() else {}
        except ValueError:
            answer = {}
        answer = answer if isinstance(answer, dict) else {}
        action = answer.get("response_action")
        if 200 <= delivery.status < 300 and action == "update":
            self.workspace.replace_view(view_id, answer.get("view"))
        elif 200 <= delivery.status < 300 and action != "errors":
            opened.closed = True
        return delivery
