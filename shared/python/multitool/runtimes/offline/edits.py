"""Edits by chat: "make it 45 minutes", "add Priya", "move it to Friday", "change the subject to Launch".

An edit changes the latest card it can apply to and calls that card's tool again with every
field, ``revises`` set to the card's draft id; the tool supersedes the card. Several edits
joined by "and" change one card once. A message that is not wholly edits is read as requests.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Sequence
from typing import Any

import msgspec

from multitool.runtimes.offline import fields
from multitool.runtimes.offline import grammar as g
from multitool.runtimes.offline import lexicon as words
from multitool.runtimes.offline.grammar import Intent
from multitool.runtimes.offline.lexicon import PRIORITIES

_I = re.IGNORECASE
_IT = r"(?:(?:the|this|that)\s+(?:meeting|call|sync|invite|email|mail|ticket|bug|task|card|one)|it|this|that)"
_DURATION_EDIT = re.compile(
    rf"^(?:(?:make|change|set|extend|shorten|cut|turn)\s+(?:{_IT}|the\s+(?:duration|length))\s+(?:to\s+|into\s+)?"
    r"|(?:actually\s+)?)(?P<d>.+?)(?:\s+(?:long|instead|rather))?$",
    _I,
)
_MOVE = re.compile(
    rf"^(?:move|push|reschedule|shift|change|make|put|bump|do|try)\s+(?:{_IT}\s+)?(?:to|for|until|on|into)?\s*(?P<when>.+?)"
    r"(?:\s+instead)?$",
    _I,
)
_CC_EDIT = re.compile(
    rf"^(?:cc|copy(?:\s+in)?)\s+(?P<who>.+?)(?:\s+(?:too|as\s+well|also))?(?:\s+(?:on|in)\s+{_IT})?$", _I
)
# "add mei on cc", "put Priya in copy", "add kinshuok as a cc too"
_CC_ADD = re.compile(
    r"^(?:add|put|include)\s+(?P<who>.+?)\s+(?:on|in|as|to|into)\s+(?:the\s+|an?\s+)?(?:cc|copy)"
    r"(?:\s+(?:too|as\s+well|also))?$",
    _I,
)
_ADD = re.compile(
    r"^(?:also\s+)?(?:add|invite|include|loop\s+in|bring\s+in)\s+(?P<who>.+?)"
    rf"(?:\s+(?:too|as\s+well|also))?(?:\s+(?:to|on|in)\s+{_IT})?(?:\s+(?:too|as\s+well))?$",
    _I,
)
_REMOVE = re.compile(
    rf"^(?:remove|drop|take\s+off|uninvite|exclude)\s+(?P<who>.+?)(?:\s+(?:from|off)\s+{_IT})?$", _I
)
_RENAME = re.compile(
    r"^(?:change|set|rename|update|make|switch)\s+(?:the\s+)?(?:subject|title|summary|name|topic)(?:\s+line)?"
    r"\s+(?:to|as)\s+(?P<text>.+)$"
    rf"|^(?:rename|call|retitle)\s+{_IT}\s+(?:to\s+)?(?P<text2>.+)$",
    _I,
)
_PRIORITY = re.compile(
    rf"^(?:make|mark|set)\s+{_IT}\s+(?:as\s+)?(?P<p>.+)$"
    r"|^(?:lower|raise|drop|bump|set|change|make)\s+(?:the\s+|its\s+)?priority\s+(?:to\s+)?(?P<p2>.+)$",
    _I,
)
# "send it to Mei instead": the recipients replaced.
_READDRESS = re.compile(
    rf"^(?:send|address|make|write)\s+{_IT}\s+to\s+(?P<who>.+?)(?:\s+(?:instead|rather))?$", _I
)
# "I meant Alex Chen": the name a card could not settle, named in full.
_MEANT = re.compile(r"^(?:i\s+)?meant\s+(?P<who>.+?)(?:,?\s+not\s+.+)?$", _I)
_RETYPE = re.compile(
    rf"^(?:make|change|turn|switch)\s+{_IT}\s+(?:into|to)?\s*(?:an?\s+)?(?P<kind>{g._TICKET_NOUN})"
    r"(?:\s+(?:instead|rather))?$",
    _I,
)
_REPROJECT = re.compile(
    rf"^(?:put|move|file|change|switch)\s+{_IT}\s+(?:in|into|to|under)\s+(?:the\s+)?"
    r"(?:(?-i:(?P<key>[A-Z][A-Z0-9]{1,9}))(?:\s+(?:project|board|queue))?|(?P<named>[A-Za-z][A-Za-z0-9]{1,9})\s+(?:project|board|queue))"
    r"(?:\s+(?:instead|rather))?$",
    _I,
)
# "say I'm running late instead", "tell them I'm sick": the message of a move, cancel or answer.
_SAY = re.compile(
    r"^(?:say|tell\s+(?:them|her|him|everyone)|(?:make|change)\s+the\s+(?:message|note|reason)\s+(?:to|say)|"
    r"the\s+(?:message|note|reason)(?:\s+is)?:?|(?:message|note|reason)\s*:)\s+(?:that\s+)?(?P<text>.+?)"
    r"(?:\s+instead)?$",
    _I,
)
_CHANGED = (g.MOVE_TOOL, g.CANCEL_TOOL, g.ANSWER_TOOL)
# "make it every other week", "actually make it weekly", "change it to monthly": how the meeting repeats.
_REPEAT_EDIT = re.compile(
    rf"^(?:(?:make|change|turn|switch|set)\s+(?:{_IT}\s+)?(?:to\s+|into\s+)?(?:repeat\s+)?|repeat\s+(?:{_IT}\s+)?)?"
    r"(?P<rule>every\s+(?P<n>other|second|two|three|four|\d{1,2})\s+weeks?|every\s+week|weekly|bi-?weekly"
    r"|fortnightly|every\s+fortnight|monthly|every\s+month|every\s+(?P<m>other|two|three|\d{1,2})\s+months?)"
    r"(?:\s+(?:instead|rather))?$",
    _I,
)
_EVERY_N = {"other": 2, "second": 2, "two": 2, "three": 3, "four": 4}
_LEAD_JOINER = re.compile(r"^(?:(?:and|also|then|now|actually|oh|sorry|no|wait)\b[,\s]*)+", _I)
_ASSIGN = re.compile(rf"^(?:assign|give)\s+{_IT}\s+to\s+(?P<who>.+)$", _I)
_JOIN = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+(?:also\s+)?|;\s*)", _I)
# All an edit may hold besides what it changes ("make it 45 minutes instead, please").
_EDIT_FILLER = frozenset(
    {"it", "to", "for", "on", "instead", "rather", "long", "please", "actually", "the", "a", "an", "too"}
    | {"then", "ok", "okay", "so", "and", "also", "as", "well", "meeting", "call", "one", "pls", "thanks"}
)
_QUOTES = "'\"\u2018\u2019\u201c\u201d"
_SUBJECT_FIELD = {g.EMAIL_TOOL: "subject", g.MEETING_TOOL: "title", g.JIRA_TOOL: "summary"}
_PEOPLE_FIELD = {g.EMAIL_TOOL: "to", g.MEETING_TOOL: "attendees"}


class Card(msgspec.Struct):
    """A card of the conversation: its draft id (once known), tool and arguments."""

    tool: str
    args: dict[str, Any]
    id: str | None = None
    names: list[str] = msgspec.field(default_factory=list)
    topic: str | None = None


class Change(msgspec.Struct, frozen=True):
    """One edit: which cards it can apply to and how it changes their arguments."""

    tools: tuple[str, ...]
    field: str
    value: Any
    mode: str = "set"


_PEOPLE_EDITS: tuple[tuple[re.Pattern[str], tuple[str, ...], str, str], ...] = (
    # (pattern with a "who" group, the cards it applies to, the field, how the names change it)
    (_READDRESS, (g.EMAIL_TOOL,), "people", "set"),
    (_MEANT, (g.EMAIL_TOOL, g.MEETING_TOOL), "people", "settle"),
    (_CC_EDIT, (g.EMAIL_TOOL,), "cc", "add"),
    (_CC_ADD, (g.EMAIL_TOOL,), "cc", "add"),
    (_ADD, (g.MEETING_TOOL, g.EMAIL_TOOL), "people", "add"),
    (_REMOVE, (g.MEETING_TOOL, g.EMAIL_TOOL), "people", "remove"),
)


def _change(clause: str, known: Collection[str]) -> Change | None:
    text = g.tidy(_LEAD_JOINER.sub("", g.tidy(g._PREAMBLE.sub("", g.tidy(clause)))))
    for pattern, tools, key, mode in _PEOPLE_EDITS:
        match = pattern.match(text)
        who = _names(match.group("who"), known) if match else []
        if who:
            return Change(tools, key, who, mode)
    retype = _RETYPE.match(text)
    if retype and retype.group("kind").casefold() in words.ISSUE_TYPES:
        return Change((g.JIRA_TOOL,), "issueType", words.ISSUE_TYPES[retype.group("kind").casefold()])
    reproject = _REPROJECT.match(text)
    if reproject:
        return Change((g.JIRA_TOOL,), "project", (reproject.group("key") or reproject.group("named")).upper())
    rename = _RENAME.match(text)
    if rename:
        value = g.tidy((rename.group("text") or rename.group("text2") or "").strip(_QUOTES))
        return Change((g.EMAIL_TOOL, g.MEETING_TOOL, g.JIRA_TOOL), "subject", value) if value else None
    assign = _ASSIGN.match(text)
    if assign:
        return Change((g.JIRA_TOOL,), "assignee", g.tidy(assign.group("who")))
    priority = _PRIORITY.match(text)
    if priority:
        # "lower the priority to low": the level alone, read as the request's "priority low" would be
        said = priority.group("p").strip() if priority.group("p") else f"priority {priority.group('p2')}"
        for pattern, level in PRIORITIES:
            if pattern.fullmatch(said) or pattern.search(said):
                return Change((g.JIRA_TOOL,), "priority", level)
    say = _SAY.match(text)
    if say:
        said = g.tidy(say.group("text").strip(_QUOTES))
        return Change(_CHANGED, "message", said[:1].upper() + said[1:]) if said else None
    repeat = _REPEAT_EDIT.match(text)
    if repeat:
        rule = repeat.group("rule").casefold()
        monthly = "month" in rule
        count = repeat.group("n") or repeat.group("m")
        interval = _EVERY_N.get(count.casefold(), 0) or int(count) if count else 1
        if re.search(r"bi-?weekly|fortnight", rule):
            interval = 2
        return Change(
            (g.MEETING_TOOL,),
            "repeat",
            {"frequency": "monthly" if monthly else "weekly", "interval": interval},
        )
    duration = _DURATION_EDIT.match(text)
    if duration:
        marks = fields.Marks(duration.group("d"))
        minutes = fields._duration(duration.group("d"), marks)
        if minutes is not None and _bare(marks):
            return Change((g.MEETING_TOOL, g.MOVE_TOOL), "durationMinutes", minutes)
    move = _MOVE.match(text)
    if move:
        marks = fields.Marks(move.group("when"))
        when = fields._when(move.group("when"), marks)
        if when is not None and _bare(marks):
            return Change((g.MEETING_TOOL, g.MOVE_TOOL), "when", when)
    return None


def _bare(marks: fields.Marks) -> bool:
    """Whether all a reader left unused is filler an edit may carry."""
    return all(w.casefold() in _EDIT_FILLER for w in re.findall(r"[\w'@.+-]+", marks.free()))


def _names(text: str, known: Collection[str]) -> list[str]:
    marks = fields.Marks(text)
    found = fields.people(text, marks, known, None, 0, len(text))
    return found if found and _bare(marks) else []


def changes(message: str, lookup: g.Lookup | None) -> list[Change] | None:
    """The edits a message asks for, when it is nothing but edits; else None."""
    # "oh and add mei on cc": what leads into the edit is not a clause of its own
    clauses = [c for c in _JOIN.split(g.tidy(_LEAD_JOINER.sub("", g.tidy(message)))) if c.strip()]
    if not clauses:
        return None
    known = fields.known_names(message, lookup)
    found = [_change(clause, known) for clause in clauses]
    return None if any(change is None for change in found) else [c for c in found if c is not None]


def _apply(card: Card, change: Change, args: dict[str, Any]) -> None:
    if change.field == "subject":
        args[_SUBJECT_FIELD[card.tool]] = change.value
    elif change.field in ("people", "cc"):
        key = _PEOPLE_FIELD[card.tool] if change.field == "people" else "cc"
        current = list(args.get(key) or [])
        if change.mode == "add":
            current += [n for n in change.value if n.casefold() not in {c.casefold() for c in current}]
        elif change.mode == "set":
            current = list(change.value)
        elif change.mode == "settle":
            current = _settled(current, change.value)
        else:
            current = [c for c in current if c.casefold() not in {n.casefold() for n in change.value}]
        args[key] = current
    elif change.field == "when":
        args["when"] = _keeping_hours(str(args.get("when") or ""), change.value)
        if card.tool == g.MOVE_TOOL:  # a move to a day said is no longer a shift
            args.pop("shiftMinutes", None)
            args.pop("times", None)
    elif change.field == "repeat":
        # The days it meets on stay (a weekly rule's), the rest is the new rule's; its end is kept.
        before = dict(args.get("repeat") or {})
        days = before.get("weekdays") if change.value["frequency"] == "weekly" else []
        args["repeat"] = {**before, **change.value, "weekdays": list(days or [])}
    else:
        args[change.field] = change.value


# The hours of a phrase, apart from its day: "afternoon", "early morning", "at 3pm", "after 2", "2-3pm".
_HOURS_SAID = re.compile(
    rf"\b(?:in\s+the\s+)?{g._SHADE}?(?:{g._PART})\b|\btonight\b"
    r"|\bbetween\s+\d{1,2}(?::\d{2})?\s*(?:am|pm)?\s+and\s+\d{1,2}(?::\d{2})?\s*(?:am|pm)?\b"
    rf"|\b(?:{g._BEFORE_HOUR}\s+)?{g._CLOCK}|\b{g._BEFORE_HOUR}\s+{g._HOUR}",
    _I,
)


def _keeping_hours(before: str, moved_to: str) -> str:
    """The phrase a card moves to, with the hours the card asked for when only a day is said:
    "tomorrow afternoon" moved to "Wednesday" is "Wednesday afternoon", "tonight at 8" moved to
    "Friday" is "Friday evening at 8"."""
    if _HOURS_SAID.search(moved_to):
        return moved_to
    hours = [" ".join(m[0].split()) for m in _HOURS_SAID.finditer(before)]
    hours = ["evening" if h.casefold() == "tonight" else h for h in hours]
    return " ".join([moved_to, *hours])


def _settled(current: list[str], meant: list[str]) -> list[str]:
    """The names with each one ``meant`` names in full in place of the short one it settles
    ('alex' -> 'Alex Chen') or the mistyped one it corrects ('kinshuk' -> 'Kinshuok', difflib's
    ratio of 0.8 or more); a name that settles none is added."""
    settled = list(current)
    for name in meant:
        first = name.split()[0].casefold()
        firsts = [c.split()[0].casefold() if c.split() else "" for c in settled]
        at = next((i for i, said in enumerate(firsts) if said == first), None)
        if at is None and (close := difflib.get_close_matches(first, firsts, n=1, cutoff=0.8)):
            at = firsts.index(close[0])
        if at is None:
            settled.append(name)
        else:
            settled[at] = name
    return settled


def revise(message: str, cards: Sequence[Card], lookup: g.Lookup | None) -> tuple[Intent | None, str | None]:
    """(the revision, None), (None, why not) when the message is edits, or (None, None) when it is not."""
    asked = changes(message, lookup)
    if asked is None:
        return None, None
    tools = set.intersection(*(set(change.tools) for change in asked))
    target = next((card for card in reversed(cards) if card.tool in tools), None)
    if target is None:
        return None, "There is no card in this conversation that this change applies to yet."
    if target.id is None:
        return None, "I cannot find that card any more, so I cannot change it; ask for it again instead."
    args = {key: (list(value) if isinstance(value, list) else value) for key, value in target.args.items()}
    for change in asked:
        _apply(target, change, args)
    people = args.get(_PEOPLE_FIELD.get(target.tool, ""), target.names)
    body = args.get("body")
    if target.tool == g.EMAIL_TOOL and isinstance(body, str) and isinstance(people, list):
        # The greeting follows the recipients: "add Kinshuok" greets Kinshuok too.
        before = fields.greeting_for(target.names)
        if body.startswith(before):
            args["body"] = fields.greeting_for(people) + body[len(before) :]
    intent = Intent(
        tool=target.tool,
        segment=g.tidy(message),
        args={**args, "revises": target.id},
        names=list(people) if isinstance(people, list) else target.names,
        topic=target.topic,
        revises=target.id,
    )
    if target.tool in _PEOPLE_FIELD and not args.get(_PEOPLE_FIELD[target.tool]):
        intent.missing.append("who should stay on it")
    return intent, None
