"""The offline model's Converse surface: ``converse(**kwargs)`` in Converse's response shape.

A request it can call becomes one ``toolUse`` each, all in ONE response; the turn ends,
once the tool results come back, with a one-line summary. Whatever it could not act on
is said, in both answers: a request missing a field is asked about, words it did not
understand are quoted. A message with no request gets a plain answer.
"""

from __future__ import annotations

import base64
import contextlib
import difflib
import hashlib
import re
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from multitool.people import Resolution
from multitool.runtimes.offline import conversation
from multitool.runtimes.offline import grammar as g
from multitool.runtimes.offline.changes import resolved_reference
from multitool.runtimes.offline.grammar import Intent
from multitool.toolkit.connect import CONNECT_ACTION
from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import ToolError
from multitool.tools import REGISTRY
from multitool.tools.meeting.meeting_scheduler import MAX_TIME_OPTIONS
from multitool.tools.meeting.when import read_phrase
from multitool.zones import iana_zone, valid_locale

if TYPE_CHECKING:
    from multitool.ports.directory import Directory

CAN_DO = (
    "I can draft emails, propose meeting times (repeating too), show your calendar and draft Jira tickets"
)
HELP_TEXT = (
    f"{CAN_DO}, several at once. "
    "For example: 'Email Kinshuok about the doc and schedule a sync for Thursday'. "
    "To change a card, say so: 'make it 45 minutes', 'add Priya', 'move it to Friday'."
)
ENGLISH_ONLY = "I read requests in English only: please write it in English."
_NOUN = {
    g.EMAIL_TOOL: "the email",
    g.MEETING_TOOL: "the meeting",
    g.JIRA_TOOL: "the ticket",
    g.MOVE_TOOL: "the move",
    g.CANCEL_TOOL: "the cancellation",
    g.ANSWER_TOOL: "the answer",
    g.AGENDA_TOOL: "your calendar",
    g.FREE_TOOL: "the free times",
}


def _tool_use_id(message: str, index: int) -> str:
    digest = hashlib.sha256(f"{index}\x00{message}".encode()).digest()
    return "tooluse_" + base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")


def _offered_tools(kwargs: Mapping[str, Any]) -> set[str]:
    config = kwargs.get("toolConfig") or {}
    return {
        spec["toolSpec"]["name"]
        for spec in config.get("tools", [])
        if isinstance(spec, Mapping) and isinstance(spec.get("toolSpec"), Mapping)
    }


def _nouns(action: str) -> tuple[str, str]:
    """("an email draft", "email drafts") for a payload's action string, from its tool."""
    tool = REGISTRY.by_action(action)
    return tool.nouns if tool is not None else ("a draft", "drafts")


_USER_WORDS = {
    "cannot_revise": "that card can no longer be changed; ask again for a new one",
}
"""Tool errors whose message tells the model how to call again, in words for the user instead."""


def _summary(results: Sequence[Mapping[str, Any]]) -> str:
    made: dict[str, int] = {}
    revised = 0
    problems: list[str] = []
    connect: list[str] = []
    for result in results:
        content = result.get("content") or [{}]
        body = content[0].get("json") if isinstance(content[0], Mapping) else None
        body = body if isinstance(body, Mapping) else {}
        action = body.get("action")
        if result.get("status") == "error" or "error" in body:
            error = body.get("error")
            message = error.get("message") if isinstance(error, Mapping) else None
            code = error.get("code") if isinstance(error, Mapping) else None
            if code in _USER_WORDS:  # an error written for the model, said for the user
                message = _USER_WORDS[code]
            problems.append(message if isinstance(message, str) else "one request could not be prepared")
        elif action == CONNECT_ACTION:  # not a draft: the call waits for the user's consent
            name = body.get("providerName")
            connect.append(name if isinstance(name, str) and name else "your")
        elif isinstance(action, str):
            made[action] = made.get(action, 0) + 1
            revised += 1 if body.get("revises") else 0
    parts = [
        (_nouns(action)[0] if count == 1 else f"{count} {_nouns(action)[1]}")
        for action, count in made.items()
    ]
    text = ""
    if parts:
        listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        verb = "revised" if revised == sum(made.values()) else "prepared"
        replaced = " It replaces the earlier card." if revised else ""
        text = f"I {verb} {listed} for you to review.{replaced} Nothing is sent until you confirm."
    for name in dict.fromkeys(connect):
        text += (" " if text else "") + f"Connect your {name} account to go on: nothing was sent."
    if problems:
        # Calls refused for the same reason carry the same message: say each reason once.
        text += (
            (" " if text else "") + "I could not prepare everything: " + "; ".join(dict.fromkeys(problems))
        )
    return text or "Done."


def _asks(
    intents: Sequence[Intent],
    unread: Sequence[str],
    refusal: str | None,
    suggestions: Mapping[str, str] | None = None,
) -> str:
    """What the user has to say again: missing fields, words not understood, an edit refused, and
    for a name the directory does not know but is one letter or so from one, that name."""
    lines: list[str] = []
    if refusal:
        lines.append(refusal)
    for name in dict.fromkeys(n for intent in intents for n in intent.names):
        meant = (suggestions or {}).get(name.casefold())
        if meant is not None:
            lines.append(f"'{name}' is not in the directory: did you mean {meant}? Say 'I meant {meant}'.")
    for intent in intents:
        if intent.missing:
            lines.append(f"For {_NOUN[intent.tool]}, tell me {' and '.join(intent.missing)}.")
    clauses = [g.quoted(clause) for clause in unread]
    residue = [part for intent in intents for part in intent.unread if part not in clauses]
    if clauses:
        # A whole clause no rule read: what it could not read, and what it can do instead.
        listed = ", ".join(f"'{q}'" for q in dict.fromkeys(clauses))
        english = " (I read English only)" if any(g.foreign(clause) for clause in unread) else ""
        lines.append(f"I did not understand {listed}{english}: {CAN_DO}.")
    if residue:
        lines.append("I did not understand " + ", ".join(f"'{q}'" for q in dict.fromkeys(residue)) + ".")
    return " ".join(lines)


def _answer(text: str, intents: Sequence[Intent], unread: Sequence[str], asks: str) -> str:
    """The reply to a message that makes no call: what it asks, or that it reads English only, or
    what it can do, with the part it could not read quoted (never the whole message with its
    greetings and thanks)."""
    if not intents and g.foreign(text):
        return f"{ENGLISH_ONLY} {HELP_TEXT}"
    if not intents and unread:
        listed = ", ".join(f"'{g.quoted(clause)}'" for clause in dict.fromkeys(unread))
        return f"I did not understand {listed}. {HELP_TEXT}"
    if asks:
        return asks
    if not g.is_small_talk(text) and g.content_words(text):
        return f"I did not understand '{g.quoted(text)}'. {HELP_TEXT}"
    return HELP_TEXT


def _response(content: list[dict[str, Any]], stop_reason: str, words: int) -> dict[str, Any]:
    output = 20 * len(content)
    return {
        "ResponseMetadata": {"HTTPStatusCode": 200, "RetryAttempts": 0},
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop_reason,
        "usage": {"inputTokens": words, "outputTokens": output, "totalTokens": words + output},
        "metrics": {"latencyMs": 0},
    }


_NOW_LINE = re.compile(r"^The current time is (?P<now>\S+)\.$", re.M)
_ZONE_LINE = re.compile(r"^The user's time zone is (?P<zone>\S+)\.$", re.M)
_LOCALE_LINE = re.compile(r"^The user's locale is (?P<locale>\S+)\.$", re.M)


def _time_context(kwargs: Mapping[str, Any]) -> tuple[datetime, str, str | None]:
    """``now``, the user's zone and locale, as the system prompt states them (a real model reads the
    same)."""
    # One block a line: the time context is a block of its own after the standing prompt (Converse).
    system = "\n".join(
        b["text"] for b in kwargs.get("system") or [] if isinstance(b, Mapping) and "text" in b
    )
    system = "\n".join(line.strip() for line in system.splitlines())
    found_now, found_zone = _NOW_LINE.search(system), _ZONE_LINE.search(system)
    found_locale = _LOCALE_LINE.search(system)
    now = datetime.now(UTC)
    if found_now is not None:
        with contextlib.suppress(ValueError):
            now = datetime.fromisoformat(found_now["now"])
    zone = found_zone["zone"] if found_zone is not None else "UTC"
    locale = valid_locale(found_locale["locale"]) if found_locale is not None else None
    return (now if now.tzinfo else now.replace(tzinfo=UTC)), (zone if iana_zone(zone) else "UTC"), locale


def resolved_times(
    args: Mapping[str, Any], now: datetime, timezone: str, locale: str | None = None
) -> dict[str, Any]:
    """The meeting call with the structured times the contract asks for, read from its phrase.

    What the phrase does not say plainly is left out (no ``times``): the tool then asks.
    """
    out = dict(args)
    when = args.get("when")
    if not isinstance(when, str):
        return out
    ctx = ToolContext(owner="offline", session_id="offline", now=now, timezone=timezone, locale=locale)
    try:
        reading = read_phrase(when, ctx)
    except ToolError:
        return out
    if reading.request is None or reading.unread:
        return out
    if len(reading.request.options) > MAX_TIME_OPTIONS:  # "next month at 3pm": the tool reads the phrase
        return out
    out["times"] = [option.value() for option in reading.request.options]
    if reading.recurrence is not None:
        # An edit's rule ("every other week") over the phrase's: its days and end stay unless it says them.
        said = reading.recurrence.to_wire()
        given = out.get("repeat")
        edited: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        out["repeat"] = {**said, **{k: v for k, v in edited.items() if v not in (None, [], ())}}
        if out["repeat"]["frequency"] != "weekly":
            out["repeat"]["weekdays"] = []
    if reading.request.excluded:
        out["notOn"] = sorted(day.isoformat() for day in reading.request.excluded)
    if reading.zone_of is not None:
        attendees = [a for a in args.get("attendees", []) if isinstance(a, str)]
        who = reading.zone_of
        if who in ("her", "his", "their"):
            if len(attendees) != 1:
                return {k: v for k, v in out.items() if k not in ("times", "notOn")}
            who = attendees[0]
        out["timezoneOf"] = who
    elif reading.zone is not None:
        out["timezone"] = reading.zone
    return out


def resolved_days(
    args: Mapping[str, Any], now: datetime, timezone: str, locale: str | None = None
) -> dict[str, Any]:
    """The agenda call with its days as the contract asks (fromDay, toDay), read from its phrase;
    today when the phrase names no day it can read."""
    out = dict(args)
    ctx = ToolContext(owner="offline", session_id="offline", now=now, timezone=timezone, locale=locale)
    try:
        reading = read_phrase(str(args.get("when", "today")), ctx)
    except ToolError:
        reading = None
    if reading is None or reading.request is None:
        out["fromDay"] = ctx.local_now.date().isoformat()
        return out
    options = reading.request.options
    first, last = min(o.day for o in options), max(o.last_day or o.day for o in options)
    out["fromDay"] = first.isoformat()
    if last != first:
        out["toDay"] = last.isoformat()
    return out


def _tool_input(intent: Intent, now: datetime, timezone: str, locale: str | None) -> dict[str, Any]:
    """The call's arguments with what a model resolves from the time in its prompt: a meeting's
    structured times, a reference's days."""
    if intent.tool == g.MEETING_TOOL:
        return resolved_times(intent.args, now, timezone, locale)
    if intent.tool in (g.AGENDA_TOOL, g.FREE_TOOL):
        return resolved_days(intent.args, now, timezone, locale)
    if intent.tool in (g.MOVE_TOOL, g.CANCEL_TOOL, g.ANSWER_TOOL):
        args = resolved_reference(intent.args, now, timezone, locale)
        return resolved_times(args, now, timezone, locale) if "when" in args else args
    return dict(intent.args)


class OfflineModel:
    """A deterministic ``bedrock-runtime`` stand-in: ``converse(**kwargs)`` in Converse's shape.

    ``directory``: where lowercase words are looked up as people ("email zoe …"); without
    one, only capitalised names and addresses are read as people.
    """

    model_id = "offline"

    def __init__(self, directory: Directory | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self._directory = directory
        self._known: dict[str, bool] = {}
        self._names: tuple[str, ...] | None = None
        self._suggestions: dict[str, str] = {}
        self._lock = threading.Lock()

    def known(self, candidates: Sequence[str]) -> set[str]:
        """Which of the words the directory knows as someone (each word looked up once)."""
        if self._directory is None:
            return set()
        with self._lock:
            unseen = [w for w in candidates if w not in self._known]
        if unseen:
            found = self._directory.resolve(unseen)
            with self._lock:
                for word in unseen:
                    resolution = found.get(word)
                    self._known[word] = resolution is not None and resolution.status is not Resolution.UNKNOWN
        with self._lock:
            named = {w for w in candidates if self._known.get(w)}
        return named | self._mistyped([w for w in candidates if w not in named])

    def _mistyped(self, words: Sequence[str]) -> set[str]:
        """The words that are a typo of a name the directory answers to ("kinshuk"): read as
        names, so the card carries them unsettled, with the name they are close to suggested.
        Close is difflib's ratio of at least 0.8, for words of four letters or more."""
        words = [w for w in words if len(w) >= 4 and " " not in w]
        if not words:
            return set()
        if self._names is None:
            listed = getattr(self._directory, "names", None)
            names = listed() if callable(listed) else ()
            self._names = tuple(n for n in names if "@" not in n)
        found: set[str] = set()
        for word in words:
            close = difflib.get_close_matches(word, self._names, n=1, cutoff=0.8)
            if close:
                with self._lock:
                    self._suggestions[word] = close[0].title()
                found.add(word)
        return found

    def suggestions(self) -> dict[str, str]:
        """The mistyped names read so far, each with the directory's name it is close to."""
        with self._lock:
            return dict(self._suggestions)

    def _lookup(self) -> g.Lookup | None:
        return self.known if self._directory is not None else None

    def converse(self, **kwargs: Any) -> dict[str, Any]:
        self.requests.append(kwargs)
        messages = list(kwargs.get("messages") or [])
        last = messages[-1] if messages else {}
        blocks = [b for b in last.get("content", []) if isinstance(b, Mapping)]
        results = [b["toolResult"] for b in blocks if isinstance(b.get("toolResult"), Mapping)]
        if results:
            return _response([{"text": self._after_tools(messages, results)}], "end_turn", len(results))
        text = " ".join(b["text"] for b in blocks if isinstance(b.get("text"), str))
        offered = _offered_tools(kwargs)
        intents, unread, refusal = self._read(messages[:-1], text)
        calls = [i for i in intents if i.tool in offered and i.callable]
        asks = _asks(intents, unread, refusal, self.suggestions())
        if not calls:
            return _response([{"text": _answer(text, intents, unread, asks)}], "end_turn", len(text.split()))
        # Beside the calls, only what the user must read (the prompt contract's rule): the cards say the rest.
        content: list[dict[str, Any]] = [{"text": asks}] if asks else []
        now, timezone, locale = _time_context(kwargs)
        content += [
            {
                "toolUse": {
                    "toolUseId": _tool_use_id(text, index),
                    "name": intent.tool,
                    "input": _tool_input(intent, now, timezone, locale),
                }
            }
            for index, intent in enumerate(calls)
        ]
        return _response(content, "tool_use", len(text.split()))

    def _read(self, earlier: Sequence[Any], text: str) -> tuple[list[Intent], list[str], str | None]:
        memory = conversation.remember(earlier, self._lookup())
        return conversation.interpret(text, memory, self._lookup())

    def _after_tools(self, messages: Sequence[Any], results: Sequence[Mapping[str, Any]]) -> str:
        """The summary, and what of the user's message was not acted on."""
        summary = _summary(results)
        index = next(
            (i for i in range(len(messages) - 1, -1, -1) if conversation.user_text(messages[i]) is not None),
            None,
        )
        if index is None:
            return summary
        text = conversation.user_text(messages[index]) or ""
        intents, unread, refusal = self._read(messages[:index], text)
        asks = _asks(intents, unread, refusal, self.suggestions())
        return f"{summary} {asks}".strip()
