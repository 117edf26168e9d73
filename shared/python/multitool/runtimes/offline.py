"""The offline model: a deterministic development stand-in for a Bedrock model behind Converse.

:class:`OfflineModel` exposes ``converse(**kwargs)`` and answers in Converse's
response shape, so the real Converse loop, the product flow, the tools and the
page run with no AWS account (``make demo``, the tests). It is selected with
``RUNTIME=offline`` (the default when no AWS runtime is configured) and is
never placed in front of Bedrock in a deployment.

What it understands is a small grammar, not language: it splits a message
into intents at intent verbs ("email", "schedule", "file a Jira bug" …) and
emits one ``toolUse`` per intent in ONE response, passing names and dates
exactly as written ("Kinshuok", "next Tuesday"). "About it" refers to the
intent before it, in the same message or, for a message's first intent, the
last intent of an earlier turn (the user messages in the conversation it is
sent). Once the tool results come back it ends the turn with a one-line
summary. A message without a tool intent gets a plain answer.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from multitool.tools import REGISTRY, email_draft, jira_draft, meeting_scheduler

# The tools its grammar knows (a toy model cannot guess a new tool's intent).
EMAIL_TOOL = email_draft.SPEC.name
MEETING_TOOL = meeting_scheduler.SPEC.name
JIRA_TOOL = jira_draft.SPEC.name

HELP_TEXT = (
    "I can draft emails, propose meeting times and draft Jira tickets, several at once. "
    "For example: 'Email Kinshuok about the doc and schedule a sync for Thursday'."
)

_VERB = (
    r"e-?mail|mail|write(?:\s+to)?|send|message|"
    r"schedule|book|set\s+up|arrange|plan|organi[sz]e|"
    r"file|create|open|log|raise|report"
)
# An intent starts at a verb at the start of the message or after a connector.
_INTENT_START = re.compile(
    rf"(?:^|(?:,\s*|;\s*|\.\s+|\s+)(?:and\s+then\s+|and\s+also\s+|and\s+|then\s+|also\s+|plus\s+)|[,;.]\s+)"
    rf"(?:please\s+|can\s+you\s+|could\s+you\s+)?(?P<verb>{_VERB})\b",
    re.IGNORECASE,
)
_EMAIL_NOUNS = re.compile(r"\b(e-?mail|mail|note|message)\b", re.IGNORECASE)
_MEETING_NOUNS = re.compile(
    r"\b(meeting|sync|call|review|stand-?up|1:1|one-on-one|catch-?up|chat|retro|demo|sync-?up|workshop)\b",
    re.IGNORECASE,
)
_JIRA_NOUNS = re.compile(r"\b(jira|ticket|bug|task|story|issue|epic)\b", re.IGNORECASE)
_MEETING_VERBS = re.compile(r"^(schedule|book|set\s+up|arrange|plan|organi[sz]e)$", re.IGNORECASE)
_EMAIL_VERBS = re.compile(r"^(e-?mail|mail|write(\s+to)?|message)$", re.IGNORECASE)

_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|fri)"
_TIME = r"(?:\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}|noon|midday)"
# Parts of the day go to the tool as written: it maps them to hours and says so in its notes.
_PART_OF_DAY = (
    r"(?:in\s+the\s+)?(?:morning|afternoon|evening|lunchtime|lunch|noon|midday|end\s+of\s+(?:the\s+)?day|eod)"
)
_WHEN = re.compile(
    rf"\b(?:(?:next|this|coming)\s+(?:week|{_DAY})|{_DAY}|tomorrow|today|tonight|"
    rf"\d{{4}}-\d{{2}}-\d{{2}}(?:[T ]\d{{2}}:\d{{2}}(?::\d{{2}})?(?:Z|[+-]\d{{2}}:?\d{{2}})?)?|"
    rf"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{{1,2}}(?:st|nd|rd|th)?)"
    rf"(?:\s+{_PART_OF_DAY}\b)?"
    rf"(?:\s+(?:at\s+)?{_TIME})?"
    rf"|\bat\s+{_TIME}",
    re.IGNORECASE,
)
_DURATION = re.compile(
    r"\b(?P<n>\d{1,3})[\s-]?(?P<unit>minutes?|mins?|m|hours?|hrs?|h)\b|\b(?P<half>half[\s-]an?[\s-]hour)\b"
    r"|\b(?P<hour>an?\s+hour)\b",
    re.IGNORECASE,
)
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_NAME = re.compile(r"\b[A-Z][a-zà-ÿ'\u2019-]+(?:\s+[A-Z][a-zà-ÿ'\u2019-]+)?\b")
_PROJECT = re.compile(r"\b[A-Z][A-Z0-9]{1,9}\b")
_ABOUT = re.compile(r"\b(?:about|regarding|re:|on the subject of|concerning)\s+(?P<topic>.+)$", re.IGNORECASE)
_FOR_TOPIC = re.compile(r"\b(?:for|about|on|regarding|to)\s+(?P<topic>.+)$", re.IGNORECASE)
_PRONOUN_TOPIC = re.compile(r"^(?:it|that|this|them|those)\b", re.IGNORECASE)
_ASSIGN = re.compile(r"\bassign(?:ed)?\s+(?:it\s+)?to\s+(?P<who>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)")
_TRAILING = re.compile(r"[\s,;.!?]+$")
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an|our|my)\s+", re.IGNORECASE)

_NOT_NAMES = frozenset(
    {
        "i",
        "jira",
        "email",
        "e-mail",
        "mail",
        "schedule",
        "book",
        "file",
        "create",
        "open",
        "please",
        "can",
        "could",
        "also",
        "then",
        "and",
        "send",
        "write",
        "set",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "today",
        "tomorrow",
        "next",
        "this",
        "the",
    }
)
_PRIORITIES = (
    (re.compile(r"\b(blocker|highest priority|critical)\b", re.IGNORECASE), "Highest"),
    (re.compile(r"\b(urgent|high priority|asap)\b", re.IGNORECASE), "High"),
    (re.compile(r"\blow priority\b", re.IGNORECASE), "Low"),
)


@dataclass(slots=True)
class Intent:
    tool: str
    segment: str
    args: dict[str, Any] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    topic: str | None = None


# --------------------------------------------------------------------------- splitting


def split_intents(message: str) -> list[tuple[str, str]]:
    """(verb, segment) for every intent of a message, in order; empty when there is none."""
    text = " ".join(message.split())
    starts = [(m.start("verb"), m.group("verb")) for m in _INTENT_START.finditer(text)]
    segments: list[tuple[str, str]] = []
    for index, (start, verb) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(text)
        segment = re.sub(
            r"(?:,|;|\.|\s)*(?:and\s+then|and\s+also|and|then|also|plus)?\s*$", "", text[start:end]
        )
        segments.append((verb, _TRAILING.sub("", segment)))
    return segments


def classify(verb: str, segment: str) -> str | None:
    """The tool an intent segment asks for, or None."""
    rest = segment[len(verb) :]
    if _JIRA_NOUNS.search(rest) and not _EMAIL_VERBS.match(verb):
        return JIRA_TOOL
    if _MEETING_VERBS.match(verb) or (_MEETING_NOUNS.search(rest) and not _EMAIL_VERBS.match(verb)):
        if _EMAIL_NOUNS.search(rest) and not _MEETING_NOUNS.search(rest):
            return EMAIL_TOOL
        return MEETING_TOOL
    if _EMAIL_VERBS.match(verb) or _EMAIL_NOUNS.search(rest):
        return EMAIL_TOOL
    return None


# --------------------------------------------------------------------------- extraction


def _names(text: str) -> list[str]:
    found: list[str] = []
    for match in re.finditer(rf"{_ADDRESS.pattern}|{_NAME.pattern}", text):
        name = match.group(0)
        first = name.split()[0].casefold()
        if "@" not in name and (first in _NOT_NAMES or _PROJECT.fullmatch(name)):
            continue
        if name not in found:
            found.append(name)
    return found


def _clean_topic(topic: str) -> str:
    topic = _WHEN.sub("", topic)
    topic = re.split(r"\b(?:with|and assign|assign)\b", topic, maxsplit=1)[0]
    return _TRAILING.sub("", " ".join(topic.split()))


def _sentence_case(text: str) -> str:
    text = _LEADING_ARTICLE.sub("", text.strip())
    return text[:1].upper() + text[1:] if text else text


def _duration(segment: str) -> int | None:
    match = _DURATION.search(segment)
    if match is None:
        return None
    if match.group("half"):
        return 30
    if match.group("hour"):
        return 60
    amount = int(match.group("n"))
    return amount * 60 if match.group("unit").lower().startswith("h") else amount


def _when(segment: str) -> str | None:
    match = _WHEN.search(segment)
    return " ".join(match.group(0).split()) if match else None


def _email(intent: Intent, verb: str, previous: Intent | None) -> None:
    segment = intent.segment
    about = _ABOUT.search(segment)
    head = segment[: about.start()] if about else segment
    head = head[len(verb) :]
    intent.names = _names(re.sub(r"\b(?:an?\s+)?(?:e-?mail|mail|note|message)\b", " ", head, flags=re.I))
    if not intent.names and previous is not None:
        intent.names = list(previous.names)
    raw_topic = _clean_topic(about.group("topic")) if about else ""
    if (not raw_topic or _PRONOUN_TOPIC.match(raw_topic)) and previous is not None and previous.topic:
        topic = previous.topic
    else:
        topic = raw_topic
    intent.topic = topic or None
    greeting = f"Hi {intent.names[0].split()[0]}," if intent.names and "@" not in intent.names[0] else "Hi,"
    if previous is not None and previous.tool == JIRA_TOOL and topic == previous.topic:
        ticket = previous.args
        subject = str(ticket.get("summary", topic))
        body_line = (
            f"I filed a {ticket.get('issueType', 'ticket')} in {ticket.get('project', 'Jira')}: {subject}."
        )
    elif topic:
        subject = f"About {topic}"
        body_line = f"I wanted to reach out about {topic}."
    else:
        subject = "Hello"
        body_line = "I wanted to reach out."
    intent.args = {
        "to": intent.names or ["(recipient)"],
        "subject": subject[:200],
        "body": f"{greeting}\n\n{body_line}\n\nBest regards",
    }


def _meeting(intent: Intent, verb: str, previous: Intent | None) -> None:
    segment = intent.segment
    with_match = re.search(r"\bwith\s+(?P<who>.+)$", segment, re.IGNORECASE)
    who = _WHEN.sub(" ", with_match.group("who")) if with_match else ""
    intent.names = _names(who)
    if not intent.names and previous is not None:
        intent.names = list(previous.names)
    noun = _MEETING_NOUNS.search(segment)
    title = noun.group(0) if noun else "Meeting"
    about = _ABOUT.search(segment)
    topic = _clean_topic(about.group("topic")) if about else ""
    if topic and not _PRONOUN_TOPIC.match(topic):
        title = f"{title} about {topic}"
    elif topic and previous is not None and previous.topic:
        title = f"{title} about {previous.topic}"
    intent.topic = topic or (previous.topic if previous else None)
    args: dict[str, Any] = {
        "attendees": intent.names or ["(attendee)"],
        "title": _sentence_case(title)[:200],
        "when": _when(segment) or "tomorrow",
    }
    duration = _duration(segment)
    if duration is not None:
        args["durationMinutes"] = duration
    intent.args = args


def _jira(intent: Intent, verb: str, previous: Intent | None) -> None:
    segment = intent.segment
    kind = re.search(r"\b(bug|task|story|epic)\b", segment, re.IGNORECASE)
    projects = [p for p in _PROJECT.findall(segment) if p.casefold() not in ("jira", "i", "asap")]
    in_project = re.search(r"\b(?:in|to|for|on)\s+(?:the\s+)?(?P<key>[A-Z][A-Z0-9]{1,9})\b", segment)
    project = in_project.group("key") if in_project else (projects[0] if projects else "WEB")
    rest = re.sub(rf"\b(?:in|to|on)\s+(?:the\s+)?{project}\b(?:\s+project)?", " ", segment)
    topic_match = _FOR_TOPIC.search(rest[len(verb) :])
    topic = _clean_topic(topic_match.group("topic")) if topic_match else ""
    if (not topic or _PRONOUN_TOPIC.match(topic)) and previous is not None and previous.topic:
        topic = previous.topic
    topic = topic or "New ticket"
    intent.topic = topic
    args: dict[str, Any] = {
        "project": project,
        "issueType": kind.group(1).capitalize() if kind else "Task",
        "summary": _sentence_case(topic)[:255],
        "description": f"Raised from chat: {segment}"[:10_000],
    }
    for pattern, priority in _PRIORITIES:
        if pattern.search(segment):
            args["priority"] = priority
            break
    assignee = _ASSIGN.search(segment)
    if assignee:
        args["assignee"] = assignee.group("who")
        intent.names = [assignee.group("who")]
    intent.args = args


_EXTRACT = {EMAIL_TOOL: _email, MEETING_TOOL: _meeting, JIRA_TOOL: _jira}


def parse_intents(message: str, previous: Intent | None = None) -> list[Intent]:
    """The tool intents of a message, with arguments as a model would pass them.

    ``previous`` is the last intent of an earlier turn: "about it" in the
    message's first intent refers to it, as later intents refer to the one before.
    """
    intents: list[Intent] = []
    for verb, segment in split_intents(message):
        tool = classify(verb, segment)
        if tool is None:
            continue
        intent = Intent(tool=tool, segment=segment)
        _EXTRACT[tool](intent, verb, intents[-1] if intents else previous)
        intents.append(intent)
    return intents


def last_intent(user_messages: Sequence[str]) -> Intent | None:
    """The last intent of the conversation so far (earlier user messages, oldest first), or None."""
    previous: Intent | None = None
    for message in user_messages:
        intents = parse_intents(message, previous)
        if intents:
            previous = intents[-1]
    return previous


# --------------------------------------------------------------------------- the Converse surface


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


def _summary(results: Sequence[Mapping[str, Any]]) -> str:
    made: dict[str, int] = {}
    problems: list[str] = []
    for result in results:
        content = result.get("content") or [{}]
        body = content[0].get("json") if isinstance(content[0], Mapping) else None
        body = body if isinstance(body, Mapping) else {}
        action = body.get("action")
        if result.get("status") == "error" or "error" in body:
            error = body.get("error")
            message = error.get("message") if isinstance(error, Mapping) else None
            problems.append(message if isinstance(message, str) else "one request could not be prepared")
        elif isinstance(action, str):
            made[action] = made.get(action, 0) + 1
    parts = [
        (_nouns(action)[0] if count == 1 else f"{count} {_nouns(action)[1]}")
        for action, count in made.items()
    ]
    text = ""
    if parts:
        listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        text = f"I prepared {listed} for you to review. Nothing is sent until you confirm."
    if problems:
        # Calls refused for the same reason carry the same message: say each reason once.
        text += (
            (" " if text else "") + "I could not prepare everything: " + "; ".join(dict.fromkeys(problems))
        )
    return text or "Done."


def _earlier_user_texts(messages: Sequence[Any]) -> list[str]:
    """What the user wrote in earlier turns (history messages; tool results are not user text)."""
    texts: list[str] = []
    for message in messages:
        if not isinstance(message, Mapping) or message.get("role") != "user":
            continue
        blocks = [b for b in message.get("content") or [] if isinstance(b, Mapping)]
        text = " ".join(b["text"] for b in blocks if isinstance(b.get("text"), str))
        if text:
            texts.append(text)
    return texts


def _response(content: list[dict[str, Any]], stop_reason: str, words: int) -> dict[str, Any]:
    output = 20 * len(content)
    return {
        "ResponseMetadata": {"HTTPStatusCode": 200, "RetryAttempts": 0},
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop_reason,
        "usage": {"inputTokens": words, "outputTokens": output, "totalTokens": words + output},
        "metrics": {"latencyMs": 0},
    }


class OfflineModel:
    """A deterministic ``bedrock-runtime`` stand-in: ``converse(**kwargs)`` in Converse's shape."""

    model_id = "offline"

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def converse(self, **kwargs: Any) -> dict[str, Any]:
        self.requests.append(kwargs)
        messages = kwargs.get("messages") or []
        last = messages[-1] if messages else {}
        blocks = [b for b in last.get("content", []) if isinstance(b, Mapping)]
        results = [b["toolResult"] for b in blocks if isinstance(b.get("toolResult"), Mapping)]
        if results:
            return _response([{"text": _summary(results)}], "end_turn", len(results))
        text = " ".join(b["text"] for b in blocks if isinstance(b.get("text"), str))
        offered = _offered_tools(kwargs)
        previous = last_intent(_earlier_user_texts(messages[:-1]))
        intents = [intent for intent in parse_intents(text, previous) if intent.tool in offered]
        if not intents:
            return _response([{"text": HELP_TEXT}], "end_turn", len(text.split()))
        content: list[dict[str, Any]] = [{"text": "I'll prepare those for you."}]
        content += [
            {"toolUse": {"toolUseId": _tool_use_id(text, index), "name": intent.tool, "input": intent.args}}
            for index, intent in enumerate(intents)
        ]
        return _response(content, "tool_use", len(text.split()))
