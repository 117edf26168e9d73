"""The Slack stand-in's workspace: its people, conversations, messages and views, and the Web API
methods the app calls, answered as Slack answers them.

The seeded directory's people are the workspace's members, each with a verified email (``users.info``
with ``users:read.email`` shows ``profile.email``, the key the app maps a Slack user to a person by),
plus one member the directory does not know (a guest from another company) to show the "no access"
answer. Each member has a DM with the app's bot user, and every member and the bot are in
``#general``. Every call goes through :meth:`SlackWorkspace.call`: read and checked against Slack's
description (:mod:`.slack_contract`), its blocks and views against Block Kit's rules
(:mod:`.slack_blocks`), then answered; a refusal answers ``{"ok": false, "error": code}`` and is kept
in :attr:`SlackWorkspace.violations` (a call the description or Block Kit refuses) or
:attr:`SlackWorkspace.errors` (a call that is well formed but names no such channel, message or
trigger), which the tests assert are empty.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import secrets
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from multitool.local.standins.slack_blocks import message_problems, text_problems, view_problems
from multitool.local.standins.slack_contract import Call, SlackRefusal, slack_contract
from multitool.people import Person

TEAM_ID = "T0LOCAL0001"
TEAM_NAME = "multitool-local"
APP_ID = "A0LOCAL0001"
BOT_USER = "U0BOT000001"
BOT_ID = "B0BOT000001"
GENERAL = "C0GENERAL01"
TRIGGER_SECONDS = 3.0
"""A ``trigger_id`` opens a view within three seconds of the interaction that made it, and once
("Pass a valid trigger_id within 3 seconds of receiving it":
https://docs.slack.dev/tools/bolt-python/concepts/opening-modals)."""

VIOLATIONS = frozenset(
    {
        "unknown_method",
        "invalid_arg_name",
        "invalid_arguments",
        "invalid_json",
        "json_not_object",
        "invalid_form_data",
        "invalid_post_type",
        "not_authed",
        "invalid_auth",
        "invalid_blocks",
        "msg_too_long",
        "no_text",
    }
)
"""The error codes that mean the request itself was wrong (a contract or Block Kit violation)."""

GUEST = Person(
    id="sam-guest",
    display_name="Sam Guest",
    email="sam@partner.example",
    timezone="America/Chicago",
)
"""A workspace member the directory does not know (a guest from another company)."""


def slack_id(prefix: str, key: str) -> str:
    """A stable Slack-style id (``U``/``D`` and 10 upper-case letters and digits) for ``key``."""
    digest = base64.b32encode(hashlib.sha256(key.encode()).digest()).decode()
    return prefix + digest[:10]


@dataclass(slots=True)
class Member:
    id: str
    person: Person
    dm: str

    @property
    def name(self) -> str:
        return self.person.email.split("@", 1)[0]


@dataclass(slots=True)
class Message:
    channel: str
    ts: str
    user: str
    text: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    thread_ts: str | None = None
    bot: bool = False
    edited: bool = False

    def wire(self) -> dict[str, Any]:
        """The message as Slack shows it (``objs_message``)."""
        out: dict[str, Any] = {"type": "message", "ts": self.ts, "text": self.text, "user": self.user}
        if self.bot:
            out["bot_id"] = BOT_ID
        if self.blocks:
            out["blocks"] = self.blocks
        if self.thread_ts:
            out["thread_ts"] = self.thread_ts
        return out


@dataclass(slots=True)
class Ephemeral:
    channel: str
    user: str
    ts: str
    text: str
    blocks: list[dict[str, Any]]
    thread_ts: str | None


@dataclass(slots=True)
class OpenView:
    id: str
    user: str
    view: dict[str, Any]
    hash: str
    closed: bool = False

    def wire(self) -> dict[str, Any]:
        return {
            **self.view,
            "id": self.id,
            "team_id": TEAM_ID,
            "app_id": APP_ID,
            "bot_id": BOT_ID,
            "hash": self.hash,
            "state": {"values": {}},
            "private_metadata": self.view.get("private_metadata", ""),
            "callback_id": self.view.get("callback_id", ""),
        }


@dataclass(frozen=True, slots=True)
class Refused:
    method: str
    error: str
    detail: str


class SlackWorkspace:
    """One workspace with the app installed; thread-safe (the stand-in's HTTP threads call it)."""

    def __init__(
        self,
        people: Iterable[Person],
        *,
        bot_token: str,
        signing_secret: str,
        trigger_seconds: float = TRIGGER_SECONDS,
    ) -> None:
        self.trigger_seconds = trigger_seconds
        self.bot_token = bot_token
        self.signing_secret = signing_secret
        self.members = {m.id: m for m in (self._member(p) for p in (*people, GUEST))}
        self.channels: dict[str, str] = {GENERAL: "general"}
        self.messages: dict[str, list[Message]] = {GENERAL: []}
        for member in self.members.values():
            self.channels[member.dm] = f"dm-{member.name}"
            self.messages[member.dm] = []
        self.ephemerals: list[Ephemeral] = []
        self.views: dict[str, OpenView] = {}
        self.violations: list[Refused] = []
        self.errors: list[Refused] = []
        self.calls: list[tuple[str, bool]] = []
        self._triggers: dict[str, tuple[str, float]] = {}
        self._failures: dict[str, list[tuple[str, int | None]]] = {}
        self._chosen: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {}
        self._lock = threading.RLock()
        self._ts = itertools.count(1)
        self.response_base = ""
        """Where a ``response_url`` points (the stand-in's ``/response``), set once it listens."""

    @staticmethod
    def _member(person: Person) -> Member:
        return Member(slack_id("U", person.id), person, slack_id("D", person.id))

    # -- the workspace, as the stand-in's page and CLI use it ------------------------------------

    def member(self, key: str) -> Member:
        """A member by Slack id, person id or email; ``KeyError`` when none."""
        for member in self.members.values():
            if key in (member.id, member.person.id, member.person.email, member.name):
                return member
        raise KeyError(f"no workspace member {key!r}")

    def channel(self, key: str) -> str:
        """A conversation id by id, name (``general``) or a member's key (their DM)."""
        if key in self.channels:
            return key
        named = next((cid for cid, name in self.channels.items() if name == key.lstrip("#")), None)
        return named if named is not None else self.member(key).dm

    def dm_member(self, channel: str) -> Member | None:
        return next((m for m in self.members.values() if m.dm == channel), None)

    def new_ts(self) -> str:
        """A message timestamp, unique and increasing (``defs_ts``: ten digits, a dot, six)."""
        with self._lock:
            return f"{int(time.time()):010d}.{next(self._ts) % 1_000_000:06d}"

    def post_as(self, user: str, channel: str, text: str, thread_ts: str | None = None) -> Message:
        """A member's own message (typed in Slack), kept in the conversation."""
        message = Message(channel, self.new_ts(), user, text, thread_ts=thread_ts)
        with self._lock:
            self.messages[channel].append(message)
        return message

    def find(self, channel: str, ts: str) -> Message | None:
        with self._lock:
            return next((m for m in self.messages.get(channel, ()) if m.ts == ts), None)

    def new_trigger(self, user: str) -> str:
        trigger = f"{int(time.time())}.{secrets.randbelow(10**12)}.{secrets.token_hex(16)}"
        with self._lock:
            self._triggers[trigger] = (user, time.monotonic() + self.trigger_seconds)
        return trigger

    def fail_next(self, method: str, error: str, *, retry_after: int | None = None) -> None:
        """Answer the next call of ``method`` with ``error`` (``ratelimited``: HTTP 429 with
        ``Retry-After``, as Slack does: https://docs.slack.dev/apis/web-api/rate-limits/)."""
        with self._lock:
            self._failures.setdefault(method, []).append((error, retry_after))

    def replace_view(self, view_id: str, view: Any) -> None:
        """A view submission's ``response_action: update``: the view, checked as ``views.update``'s."""
        try:
            checked = self._checked_view("view_submission response", view)
        except SlackRefusal as refusal:
            with self._lock:
                self.violations.append(Refused("view_submission", refusal.error, refusal.detail))
            return
        with self._lock:
            self.views[view_id].view = checked

    def respond(self, channel: str, ts: str, user: str, body: Any) -> dict[str, Any]:
        """A message the app sends to an interaction's ``response_url``: ``replace_original`` updates
        the message, ``delete_original`` deletes it, else an ephemeral message to the member who
        acted (``response_type: in_channel``: a message in the conversation), as
        https://docs.slack.dev/interactivity/handling-user-interaction ("response_url") describes."""
        try:
            if not isinstance(body, dict):
                raise SlackRefusal("invalid_json", "a response_url takes a JSON object")
            message = self.find(channel, ts)
            if message is None or user not in self.members:
                raise SlackRefusal("expired_url", "no such message or member")
            with self._lock:
                if body.get("delete_original"):
                    self.messages[channel].remove(message)
                    return {"ok": True}
                text, blocks = self._message_content("response_url", body)
                if body.get("replace_original"):
                    message.text, message.blocks, message.edited = text, blocks, True
                elif body.get("response_type") == "in_channel":
                    self.messages[channel].append(
                        Message(channel, self.new_ts(), BOT_USER, text, blocks, message.thread_ts, bot=True)
                    )
                else:
                    self.ephemerals.append(
                        Ephemeral(channel, user, self.new_ts(), text, blocks, message.thread_ts)
                    )
            return {"ok": True}
        except SlackRefusal as refusal:
            with self._lock:
                kept = Refused("response_url", refusal.error, refusal.detail)
                (self.violations if refusal.error in VIOLATIONS else self.errors).append(kept)
            return {"ok": False, "error": refusal.error}

    def choose(self, user: str, message: Message, action_id: str, option: dict[str, Any]) -> None:
        """``user`` chose ``option`` in a select of ``message`` (kept on their view of it, as Slack does)."""
        with self._lock:
            self._chosen.setdefault((user, message.channel, message.ts), {})[action_id] = option

    def chosen(self, user: str, message: Message) -> dict[str, dict[str, Any]]:
        with self._lock:
            return dict(self._chosen.get((user, message.channel, message.ts), {}))

    def views_of(self, user: str) -> list[OpenView]:
        with self._lock:
            return [v for v in self.views.values() if v.user == user and not v.closed]

    # -- the Web API -------------------------------------------------------------------------------

    def call(
        self, method: str, headers: Mapping[str, str], query: str, body: bytes
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        """One Web API request: ``(HTTP status, answer, extra headers)``."""
        with self._lock:
            scripted = self._failures.get(method)
            failure = scripted.pop(0) if scripted else None
        if failure is not None:
            error, retry_after = failure
            self.calls.append((method, False))
            if error == "ratelimited":
                return 429, {"ok": False, "error": error}, {"Retry-After": str(retry_after or 1)}
            return 200, {"ok": False, "error": error}, {}
        try:
            call = slack_contract().read_request(method, headers, query, body)
            if call.token != self.bot_token:
                raise SlackRefusal("invalid_auth", f"{method}: the token is not the app's bot token")
            answer = self._answer(call)
        except SlackRefusal as refusal:
            kept = Refused(method, refusal.error, refusal.detail)
            with self._lock:
                (self.violations if refusal.error in VIOLATIONS else self.errors).append(kept)
                self.calls.append((method, False))
            return 200, {"ok": False, "error": refusal.error}, {}
        try:
            slack_contract().check_answer(method, answer)
        except AssertionError as wrong:  # the stand-in's own answer is off Slack's description
            with self._lock:
                self.violations.append(Refused(method, "answer_not_described", str(wrong)))
        with self._lock:
            self.calls.append((method, True))
        return 200, answer, {}

    def _answer(self, call: Call) -> dict[str, Any]:
        handler = getattr(self, "_" + call.method.replace(".", "_"))
        with self._lock:
            return handler(call.arguments)  # type: ignore[no-any-return]

    def _auth_test(self, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "ok": True,
            "url": f"https://{TEAM_NAME}.slack.com/",
            "team": TEAM_NAME,
            "user": "multitool",
            "team_id": TEAM_ID,
            "user_id": BOT_USER,
            "bot_id": BOT_ID,
            "is_enterprise_install": False,
        }

    def _conversation(self, args: dict[str, Any]) -> str:
        channel = str(args.get("channel", ""))
        if channel in self.members:  # a user id posts to the app's DM with them, as Slack does
            return self.members[channel].dm
        if channel not in self.channels:
            raise SlackRefusal("channel_not_found", f"no conversation {channel!r}")
        return channel

    def _message_content(self, method: str, args: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        text = args.get("text")
        blocks = args.get("blocks")
        if blocks is None and not text:
            raise SlackRefusal("no_text", f"{method}: neither text nor blocks")
        problems = text_problems(text)
        if problems:
            raise SlackRefusal("msg_too_long", f"{method}: {problems[0]}")
        if blocks is not None:
            problems = message_problems(blocks)
            if problems:
                raise SlackRefusal("invalid_blocks", f"{method}: " + "; ".join(problems[:5]))
        return str(text or ""), list(blocks or [])

    def _chat_postMessage(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._conversation(args)
        text, blocks = self._message_content("chat.postMessage", args)
        thread_ts = args.get("thread_ts") or None
        if thread_ts is not None and self.find(channel, str(thread_ts)) is None:
            raise SlackRefusal("thread_not_found", f"no message {thread_ts} in {channel}")
        message = Message(channel, self.new_ts(), BOT_USER, text, blocks, thread_ts, bot=True)
        self.messages[channel].append(message)
        return {"ok": True, "channel": channel, "ts": message.ts, "message": message.wire()}

    def _chat_update(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._conversation(args)
        message = self.find(channel, str(args["ts"]))
        if message is None:
            raise SlackRefusal("message_not_found", f"no message {args['ts']} in {channel}")
        if not message.bot:
            raise SlackRefusal("cant_update_message", "only the app's own messages can be updated")
        text, blocks = self._message_content("chat.update", {"text": message.text, **args})
        message.text, message.edited = text, True
        if "blocks" in args:
            message.blocks = blocks
        # chat.update's description gives its message ``blocks`` as an object, not Slack's array: left out.
        return {"ok": True, "channel": channel, "ts": message.ts, "text": text, "message": {"text": text}}

    def _chat_postEphemeral(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._conversation(args)
        user = str(args["user"])
        if user not in self.members:
            raise SlackRefusal("user_not_found", f"no user {user!r}")
        if channel != GENERAL and self.members[user].dm != channel:
            raise SlackRefusal("user_not_in_channel", f"{user} is not in {channel}")
        text, blocks = self._message_content("chat.postEphemeral", args)
        ts = self.new_ts()
        self.ephemerals.append(Ephemeral(channel, user, ts, text, blocks, args.get("thread_ts")))
        return {"ok": True, "message_ts": ts}

    def _conversations_open(self, args: dict[str, Any]) -> dict[str, Any]:
        users = [u for u in str(args.get("users", "")).split(",") if u]
        if len(users) != 1 or users[0] not in self.members:
            raise SlackRefusal("user_not_found", f"conversations.open: {users!r} is not one member")
        return {"ok": True, "channel": {"id": self.members[users[0]].dm}}

    def _conversations_replies(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._conversation(args)
        ts = str(args.get("ts", ""))
        thread = [m.wire() for m in self.messages[channel] if ts in (m.ts, m.thread_ts)]
        if not thread:
            raise SlackRefusal("thread_not_found", f"no thread {ts} in {channel}")
        return {"ok": True, "messages": thread, "has_more": False}

    def _users_info(self, args: dict[str, Any]) -> dict[str, Any]:
        member = self.members.get(str(args.get("user", "")))
        if member is None:
            raise SlackRefusal("user_not_found", f"no user {args.get('user')!r}")
        person = member.person
        return {"ok": True, "user": _user_object(member, person)}

    def _views_open(self, args: dict[str, Any]) -> dict[str, Any]:
        trigger = str(args["trigger_id"])
        known = self._triggers.pop(trigger, None)
        if known is None:
            raise SlackRefusal("invalid_trigger_id", "the trigger_id is not one Slack gave (or was used)")
        user, deadline = known
        if time.monotonic() > deadline:
            raise SlackRefusal("expired_trigger_id", "the trigger_id is older than three seconds")
        view = self._checked_view("views.open", args.get("view"))
        opened = OpenView(slack_id("V", secrets.token_hex(8)), user, view, secrets.token_hex(8))
        self.views[opened.id] = opened
        return {"ok": True, "view": opened.wire()}

    def _views_update(self, args: dict[str, Any]) -> dict[str, Any]:
        opened = self.views.get(str(args.get("view_id", "")))
        if opened is None:
            raise SlackRefusal("not_found", f"no open view {args.get('view_id')!r}")
        if args.get("hash") and args["hash"] != opened.hash:
            raise SlackRefusal("hash_conflict", "the view changed since that hash")
        opened.view = self._checked_view("views.update", args.get("view"))
        opened.hash = secrets.token_hex(8)
        return {"ok": True, "view": opened.wire()}

    @staticmethod
    def _checked_view(method: str, view: Any) -> dict[str, Any]:
        problems = view_problems(view)
        if problems:
            raise SlackRefusal("invalid_arguments", f"{method}: " + "; ".join(problems[:5]))
        assert isinstance(view, dict)
        return view


def _user_object(member: Member, person: Person) -> dict[str, Any]:
    """``users.info``'s user (``objs_user``), its profile with the verified email."""
    first, _, last = person.display_name.partition(" ")
    return {
        "id": member.id,
        "team_id": TEAM_ID,
        "name": member.name,
        "deleted": False,
        "real_name": person.display_name,
        "tz": person.timezone,
        "is_admin": False,
        "is_owner": False,
        "is_bot": False,
        "is_app_user": False,
        "is_restricted": person is GUEST,
        "updated": 1_700_000_000,
        "is_email_confirmed": True,
        "profile": {
            "real_name": person.display_name,
            "display_name": first,
            "real_name_normalized": person.display_name,
            "display_name_normalized": first,
            "first_name": first,
            "last_name": last,
            "email": person.email,
            "team": TEAM_ID,
        },
    }
