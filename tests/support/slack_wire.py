"""Slack's side of the wire for the Slack app's tests: signed requests in Slack's shapes, and the Web
API on loopback, recording every call as sent.

:class:`SlackApi` is a real HTTP server on 127.0.0.1 that ``slack_sdk.WebClient`` reaches through its
``base_url`` (``SLACK_API_URL``): the app's calls go through the SDK's own HTTP code, content types and
retry handlers, and each is kept as Slack would receive it (method, content type, the decoded
parameters). It answers as Slack documents (``{"ok": true, ...}``, ``{"ok": false, "error": ...}``,
HTTP 429 with ``Retry-After`` for ``ratelimited``). Every request is first read as Slack reads it
and checked against Slack's published OpenAPI description (the committed subset the stand-in uses,
:class:`multitool.local.standins.slack_contract.SlackContract`): an argument it does not describe, a
wrong type, a missing required one or no token is refused with Slack's error code and kept in
``refused``, which every test of the app expects to stay empty.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlencode

from multitool.local.standins.slack_contract import SlackRefusal, slack_contract
from multitool.local.standins.stand_in import ServedStandIn, ThreadedServer

SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
BOT_TOKEN = "xoxb-test-0000"
TEAM = "T0TEAM001"
BOT_USER = "U0BOT0001"


class Call(dict[str, Any]):
    """One Web API call as received: ``method``, ``content_type``, ``params`` (JSON or form, decoded)."""

    @property
    def method(self) -> str:
        return str(self["method"])

    @property
    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = self["params"]
        return params


class SlackApi(ServedStandIn):
    """The Web API on loopback: ``users`` answer ``users.info``; ``fail[method]`` makes it refuse.
    Bound here, served once started (``with SlackApi() as api``)."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.refused: list[str] = []
        """Each request the published description refuses: ``method: why``."""
        self.users: dict[str, dict[str, Any]] = {}
        self.fail: dict[str, list[tuple[int, dict[str, Any], dict[str, str]]]] = {}
        self._ts = 1_765_000_000
        self._lock = threading.Lock()
        self.server = ThreadedServer(("127.0.0.1", 0), self._handler(), name="slack-web-api")

    @property
    def url(self) -> str:
        return f"{self.server.url}/api/"

    def of(self, method: str) -> list[Call]:
        return [call for call in self.calls if call.method == method]

    def refuse(self, method: str, error: str, *, status: int = 200, retry_after: int | None = None) -> None:
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        self.fail.setdefault(method, []).append((status, {"ok": False, "error": error}, headers))

    def answer(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._lock:
            refusals = self.fail.get(method)
            if refusals:
                return refusals.pop(0)
            self._ts += 1
            ts = f"{self._ts}.000100"
        if method == "users.info":
            user = self.users.get(str(params.get("user")))
            return (
                (200, {"ok": True, "user": user}, {})
                if user
                else (200, {"ok": False, "error": "user_not_found"}, {})
            )
        if method in ("chat.postMessage", "chat.update"):
            return 200, {"ok": True, "channel": params.get("channel"), "ts": params.get("ts") or ts}, {}
        if method == "chat.postEphemeral":
            return 200, {"ok": True, "message_ts": ts}, {}
        if method == "views.open":
            return 200, {"ok": True, "view": {"id": "V0000001", **(params.get("view") or {})}}, {}
        return 200, {"ok": False, "error": "unknown_method"}, {}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: Any) -> None:
                return

            def _serve(self, body: bytes) -> None:
                path, _, query = self.path.partition("?")
                method = path.removeprefix("/api/")
                content_type = self.headers.get("Content-Type", "")
                try:
                    slack_contract().read_request(method, dict(self.headers.items()), query, body)
                except SlackRefusal as refusal:
                    api.refused.append(f"{method}: {refusal}")
                    self._answer(200, {"ok": False, "error": refusal.error}, {})
                    return
                if content_type.startswith("application/json"):
                    params = json.loads(body or b"{}")
                else:
                    params = {k: v[0] for k, v in parse_qs(body.decode() or query).items()}
                api.calls.append(
                    Call(
                        method=method,
                        content_type=content_type,
                        authorization=self.headers.get("Authorization", ""),
                        params=params,
                    )
                )
                status, answer, headers = api.answer(method, params)
                api.calls[-1]["answer"] = answer
                self._answer(status, answer, headers)

            def _answer(self, status: int, answer: dict[str, Any], headers: dict[str, str]) -> None:
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                self._serve(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

            def do_GET(self) -> None:
                self._serve(b"")

        return Handler


@contextmanager
def slack_api() -> Iterator[SlackApi]:
    with SlackApi() as api:
        yield api


def slack_user(
    user_id: str, email: str, *, tz: str = "Europe/Berlin", confirmed: bool = True
) -> dict[str, Any]:
    """A ``users.info`` user object as Slack answers it (with ``users:read.email``)."""
    return {
        "id": user_id,
        "team_id": TEAM,
        "name": email.split("@")[0],
        "deleted": False,
        "real_name": email.split("@")[0].title(),
        "tz": tz,
        "tz_label": "Central European Time",
        "tz_offset": 3600,
        "is_bot": False,
        "is_email_confirmed": confirmed,
        "profile": {"real_name": email.split("@")[0].title(), "display_name": "", "email": email},
    }


def signature(body: bytes, timestamp: str, secret: str = SIGNING_SECRET) -> str:
    """Slack's ``X-Slack-Signature`` for ``body`` at ``timestamp``, computed here as Slack documents it."""
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def signed_event(
    body: bytes,
    content_type: str,
    *,
    timestamp: int | None = None,
    secret: str = SIGNING_SECRET,
    retry: int | None = None,
    sign: Callable[[bytes, str], str] | None = None,
) -> dict[str, Any]:
    """The HTTP API (payload 2.0) event of a request Slack sent to ``POST /slack/events``."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    headers = {
        "content-type": content_type,
        "user-agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
        "x-slack-request-timestamp": stamp,
        "x-slack-signature": (sign or (lambda b, t: signature(b, t, secret)))(body, stamp),
    }
    if retry is not None:
        headers |= {"x-slack-retry-num": str(retry), "x-slack-retry-reason": "http_timeout"}
    return {
        "version": "2.0",
        "routeKey": "POST /slack/events",
        "rawPath": "/slack/events",
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {
            "http": {
                "method": "POST",
                "path": "/slack/events",
                "sourceIp": "3.1.2.3",
                "protocol": "HTTP/1.1",
            },
            "requestId": "req-1",
            "routeKey": "POST /slack/events",
            "stage": "$default",
        },
        "body": body.decode(),
        "isBase64Encoded": False,
    }


def event_request(envelope: Mapping[str, Any], **kwargs: Any) -> dict[str, Any]:
    return signed_event(json.dumps(envelope).encode(), "application/json", **kwargs)


def interaction_request(payload: Mapping[str, Any], **kwargs: Any) -> dict[str, Any]:
    body = urlencode({"payload": json.dumps(payload)}).encode()
    return signed_event(body, "application/x-www-form-urlencoded", **kwargs)


def url_verification(challenge: str) -> dict[str, Any]:
    return {"token": "Jhj5dZrVaK7ZwHHjRyZWjbDl", "challenge": challenge, "type": "url_verification"}


def envelope(event: Mapping[str, Any], event_id: str = "Ev0PV52K21") -> dict[str, Any]:
    """An ``event_callback`` as the Events API sends it."""
    return {
        "token": "XXYYZZ",
        "team_id": TEAM,
        "api_app_id": "A0APP0001",
        "event": dict(event),
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": TEAM,
                "user_id": BOT_USER,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": "4-eyJldCI6Im1lc3NhZ2UiLCJ0aWQiOiJUMDAwMDAwIn0",
    }


def dm(user: str, text: str, *, channel: str = "D0DM00001", ts: str = "1765000001.000200") -> dict[str, Any]:
    """A ``message.im`` event."""
    return {
        "client_msg_id": "6f5b7a3e-0000-4000-8000-000000000001",
        "type": "message",
        "text": text,
        "user": user,
        "ts": ts,
        "team": TEAM,
        "channel": channel,
        "event_ts": ts,
        "channel_type": "im",
    }


def mention(
    user: str, text: str, *, channel: str = "C0CHAN001", ts: str = "1765000002.000300"
) -> dict[str, Any]:
    """An ``app_mention`` event."""
    return {
        "type": "app_mention",
        "user": user,
        "text": f"<@{BOT_USER}> {text}",
        "ts": ts,
        "team": TEAM,
        "channel": channel,
        "event_ts": ts,
    }


def block_actions(
    user: str,
    action: Mapping[str, Any],
    *,
    message: Mapping[str, Any],
    channel: str,
    state: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``block_actions`` payload: a click on a message's button or select."""
    return {
        "type": "block_actions",
        "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM},
        "api_app_id": "A0APP0001",
        "token": "XXYYZZ",
        "container": {
            "type": "message",
            "message_ts": message["ts"],
            "channel_id": channel,
            "is_ephemeral": False,
        },
        "trigger_id": "13345224609.738474920.8088930838d88f008e0",
        "team": {"id": TEAM, "domain": "example"},
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": channel, "name": "directmessage"},
        "message": dict(message),
        "state": {"values": dict(state or {})},
        "response_url": "https://hooks.slack.com/actions/T0TEAM001/1/abc",
        "actions": [{**action, "action_ts": "1765000100.000100"}],
    }


def view_submission(user: str, view: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """A ``view_submission`` payload: the Edit modal submitted with ``values`` (``state.values``)."""
    return {
        "type": "view_submission",
        "team": {"id": TEAM, "domain": "example"},
        "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM},
        "api_app_id": "A0APP0001",
        "token": "XXYYZZ",
        "trigger_id": "12466734323.1395872398.3443322112",
        "view": {
            **view,
            "id": "V0000001",
            "team_id": TEAM,
            "state": {"values": dict(values)},
            "hash": "1.abc",
        },
        "response_urls": [],
        "is_enterprise_install": False,
    }
