"""A Slack stand-in on loopback: the Web API the app calls, the app's request URL called as Slack
calls it, and a page and a small JSON API to act as a workspace member.

    slack = start_slack_standin(people, request_url="http://127.0.0.1:8000/slack/events")
    slack.api_url                      # the app's Web API base (slack_sdk's base_url)
    slack.say("priya", "Email Kinshuok about the doc")   # a DM to the app: a signed message.im event
    slack.click("priya", message, "confirm")             # a signed block_actions payload
    assert slack.workspace.violations == []
    slack.stop()

Routes: ``/api/<method>`` (GET or POST, the Web API: :meth:`SlackWorkspace.call`), ``/response/...``
(an interaction's ``response_url``), ``/`` and ``/c/<conversation>?as=<member>`` (the pages:
:mod:`.slack_page`) with their forms ``/ui/say``, ``/ui/click`` and ``/ui/submit``, and ``/local/...``
(JSON for ``multitool slack``: ``say``, ``click``, ``submit``, ``conversation``, ``state``; and
Slack's own ``url_verification`` and ``redeliver``, the last event sent again as a retry). The
request URL is the app's (``POST /slack/events`` of the local server); events and interactions are
signed by :mod:`.slack_delivery`.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from dataclasses import asdict
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from multitool.local.standins import slack_page
from multitool.local.standins.slack_delivery import ACK_SECONDS, Delivery, SlackSender
from multitool.local.standins.slack_workspace import Member, Message, SlackWorkspace
from multitool.local.standins.stand_in import LOOPBACK, ServedStandIn, StandInHandler, StandInServer
from multitool.people import Person

DEFAULT_PORT = 8025
"""Where ``multitool serve --slack`` starts the stand-in (``multitool slack`` looks there)."""
MAX_BODY = 1 << 20


class SlackStandIn(ServedStandIn):
    """A Slack stand-in, bound on ``host:port`` and served once started; see :func:`start_slack_standin`."""

    def __init__(
        self,
        people: Iterable[Person],
        *,
        request_url: str,
        host: str = LOOPBACK,
        port: int = 0,
        bot_token: str | None = None,
        signing_secret: str | None = None,
        retries: int = 0,
        trigger_seconds: float = 3.0,
        ack_seconds: float = ACK_SECONDS,
    ) -> None:
        self.workspace = SlackWorkspace(
            people,
            bot_token=bot_token or f"xoxb-local-{secrets.token_hex(12)}",
            signing_secret=signing_secret or secrets.token_hex(16),
            trigger_seconds=trigger_seconds,
        )
        self.server = StandInServer(_handler_for(self), host, port, name="slack")
        self.workspace.response_base = f"{self.server.url}/response"
        self.sender = SlackSender(self.workspace, request_url, retries=retries, ack_seconds=ack_seconds)

    @property
    def api_url(self) -> str:
        """The Web API's base URL, as ``slack_sdk.WebClient(base_url=...)`` takes it (a final slash)."""
        return f"{self.server.url}/api/"

    # -- acting as a member ------------------------------------------------------------------------

    def say(
        self, who: str, text: str, channel: str | None = None, thread_ts: str | None = None
    ) -> tuple[Message, Delivery]:
        member = self.workspace.member(who)
        return self.sender.say(member, self.workspace.channel(channel or member.dm), text, thread_ts)

    def click(self, who: str, message: Message, action_id: str, value: str | None = None) -> Delivery:
        return self.sender.click(self.workspace.member(who), message, action_id, value)

    def submit(self, who: str, view_id: str, values: dict[str, str]) -> Delivery:
        return self.sender.submit(self.workspace.member(who), view_id, values)

    def bot_messages(self, channel: str) -> list[Message]:
        return [m for m in self.workspace.messages[self.workspace.channel(channel)] if m.bot]


def start_slack_standin(people: Iterable[Person], *, request_url: str, **options: Any) -> SlackStandIn:
    """A Slack stand-in for ``people`` whose app listens at ``request_url``, started."""
    return SlackStandIn(people, request_url=request_url, **options).start()


def message_json(message: Message) -> dict[str, Any]:
    return asdict(message)


def _handler_for(slack: SlackStandIn) -> type[StandInHandler]:
    workspace = slack.workspace

    class Handler(StandInHandler):
        server_version = "SlackStandIn/1.0"
        serves_pages = True  # the member pages post their forms back here

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            if url.path.startswith("/api/"):
                self._api(url.path.removeprefix("/api/"), url.query, b"")
                return
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            try:
                if url.path == "/":
                    self.send_body(HTTPStatus.OK, slack_page.home(workspace), "text/html; charset=utf-8")
                elif url.path.startswith("/c/"):
                    member = workspace.member(query.get("as", ""))
                    channel = workspace.channel(url.path.removeprefix("/c/"))
                    page = slack_page.conversation(workspace, channel, member)
                    self.send_body(HTTPStatus.OK, page, "text/html; charset=utf-8")
                elif url.path == "/local/conversation":
                    member = workspace.member(query.get("as", ""))
                    self.send_json(HTTPStatus.OK, self._conversation(member, query.get("channel")))
                elif url.path == "/local/state":
                    self.send_json(HTTPStatus.OK, self._state())
                else:
                    self.send_json(HTTPStatus.NOT_FOUND, {"message": "Not found"})
            except KeyError as error:
                self.send_json(HTTPStatus.NOT_FOUND, {"message": str(error.args[0])})

        def do_POST(self) -> None:
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self.send_json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"ok": False, "error": "too_large"})
                return
            body = self.rfile.read(length) if length else b""
            if url.path.startswith("/api/"):
                self._api(url.path.removeprefix("/api/"), url.query, body)
                return
            try:
                if url.path.startswith("/response/"):
                    channel, ts, user = url.path.removeprefix("/response/").split("/", 2)
                    self.send_json(HTTPStatus.OK, workspace.respond(channel, ts, user, _json(body)))
                elif url.path.startswith("/ui/"):
                    self._form(
                        url.path.removeprefix("/ui/"), {k: v[-1] for k, v in parse_qs(body.decode()).items()}
                    )
                elif url.path.startswith("/local/"):
                    self.send_json(HTTPStatus.OK, self._local(url.path.removeprefix("/local/"), _json(body)))
                else:
                    self.send_json(HTTPStatus.NOT_FOUND, {"message": "Not found"})
            except (KeyError, ValueError) as error:
                self.send_json(
                    HTTPStatus.BAD_REQUEST, {"message": str(error.args[0] if error.args else error)}
                )

        def _api(self, method: str, query: str, body: bytes) -> None:
            status, answer, headers = workspace.call(method, dict(self.headers.items()), query, body)
            self.send_json(status, answer, headers)

        def _form(self, action: str, form: dict[str, str]) -> None:
            member = workspace.member(form["as"])
            channel = workspace.channel(form["channel"])
            self._act(action, member, {**form, "channel": channel})
            self.send_body(
                HTTPStatus.SEE_OTHER,
                b"",
                "text/plain",
                {"Location": f"/c/{channel}?as={quote(member.person.id)}"},
            )

        def _local(self, action: str, request: Any) -> dict[str, Any]:
            if not isinstance(request, dict):
                raise ValueError("a JSON object, please")
            if action in ("url_verification", "redeliver"):  # Slack's own, as no member
                delivery = (
                    slack.sender.url_verification(str(request.get("challenge", "")))
                    if action == "url_verification"
                    else slack.sender.redeliver(int(request.get("retry", 1)), str(request.get("reason", "")))
                )
                return {"delivered": _delivered(delivery)}
            member = workspace.member(str(request.get("as", "")))
            channel = workspace.channel(str(request.get("channel") or member.dm))
            delivery = self._act(action, member, {**request, "channel": channel})
            return {
                "delivered": _delivered(delivery),
                **self._conversation(member, channel),
            }

        def _act(self, action: str, member: Member, request: dict[str, Any]) -> Delivery:
            channel = request["channel"]
            if action == "say":
                return slack.sender.say(
                    member, channel, str(request["text"]), request.get("thread_ts") or None
                )[1]
            if action == "click":
                message = workspace.find(channel, str(request["ts"]))
                if message is None:
                    raise KeyError(f"no message {request['ts']} in {channel}")
                return slack.sender.click(member, message, str(request["action_id"]), request.get("value"))
            if action == "submit":
                values = request.get("values") or {
                    k.removeprefix("f:"): v for k, v in request.items() if k.startswith("f:")
                }
                return slack.sender.submit(
                    member, str(request["view_id"]), {str(k): str(v) for k, v in values.items()}
                )
            raise KeyError(f"no action {action!r}")

        def _conversation(self, member: Member, channel: str | None) -> dict[str, Any]:
            conversation = workspace.channel(channel or member.dm)
            return {
                "channel": conversation,
                "name": workspace.channels[conversation],
                "messages": [message_json(m) for m in workspace.messages[conversation]],
                "ephemerals": [
                    asdict(e)
                    for e in workspace.ephemerals
                    if e.user == member.id and e.channel == conversation
                ],
                "views": [{"id": v.id, "view": v.view} for v in workspace.views_of(member.id)],
            }

        def _state(self) -> dict[str, Any]:
            return {
                "members": [
                    {"id": m.id, "person": m.person.id, "email": m.person.email, "dm": m.dm}
                    for m in workspace.members.values()
                ],
                "channels": workspace.channels,
                "violations": [asdict(v) for v in workspace.violations],
                "errors": [asdict(e) for e in workspace.errors],
                "calls": workspace.calls,
            }

    return Handler


def _delivered(delivery: Delivery) -> dict[str, Any]:
    """What the app answered a delivery: its status (0: nothing within three seconds) and body."""
    return {
        "kind": delivery.kind,
        "status": delivery.status,
        "retry": delivery.retry,
        "answer": delivery.answer.decode("utf-8", "replace"),
    }


def _json(body: bytes) -> Any:
    try:
        return json.loads(body or b"null")
    except ValueError:
        raise ValueError("the body is not JSON") from None
