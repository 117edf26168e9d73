"""The offline grammar's requests about meetings that already exist: move, cancel, answer.

    move      := ("move" | "reschedule" | "push" | "pull" | "bring" | "shift" | "postpone" | "delay")
                 REF ("to" WHEN | DURATION ("later" | "earlier" | "back" | "forward") | WHEN)
               | "make" REF DURATION          -- a new length: "make tomorrow's standup 15 minutes"
                 -- "only" / "the whole series", as for cancel: its scope
    cancel    := ("cancel" | "call off" | "scrap") REF ("," | "say" | "saying" | "because") MESSAGE?
                 -- with "only" / "just" / "this one": that meeting of a series (scope occurrence);
                    "the whole ... series" / "all of them" / "every ...": the series (scope series)
    answer    := ("accept" | "decline" | "tentatively accept" | "turn down" | "say yes/no/maybe to") REF
                 ("," MESSAGE)?
    REF       := what is left: its people (names as :func:`.fields.people` reads them), its day
                 ("tomorrow's", "the Friday retro": read by the backend's phrase reader into fromDay /
                 toDay, as a model resolves them) and its title words.

The reference passes as the user said it (``said``) with those hints; the backend finds the meeting
(:mod:`multitool.tools.meeting.find`). A message for the attendees ("say I'm sick", ", I'm out")
is the call's ``message``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from multitool.runtimes.offline import fields
from multitool.runtimes.offline import grammar as g
from multitool.runtimes.offline import lexicon as words
from multitool.runtimes.offline.grammar import Intent, Segment

_I = re.IGNORECASE
# A length, its groups unnamed, without the guards against "at 17h" ("forward by an hour" is one).
_LENGTH = re.sub(r"^(?:\(\?<![^)]*\))+", "", re.sub(r"\(\?P<\w+>", "(?:", g._DURATION.pattern))
_SHIFT = re.compile(
    rf"\b(?:by\s+)?(?P<d>{_LENGTH})\s+(?P<dir>later|earlier|back|forward|out|sooner)\b"
    rf"|\b(?P<dir2>back|forward)\s+(?:by\s+)?(?P<d2>{_LENGTH})",
    _I,
)
_TO_WHEN = re.compile(r"\b(?:to|until|till|for|on)\s+(?=\S)", _I)
_MESSAGE = re.compile(
    r"(?:\s*[,;:(]\s*|\s+and\s+|\s+)(?:(?:and\s+)?(?:say|saying|tell\s+(?:them|her|him|everyone)|let\s+(?:them|her|him)"
    r"\s+know|because|since|as|reason:?)\s+(?:that\s+)?)(?P<msg>.+)$"
    r"|\s*[,;(]\s*(?P<tail>(?!(?:and\s+)?(?:email|mail|send|write|book|file)\b).+)$",
    _I,
)
_POSSESSIVE_DAY = re.compile(rf"\b(?P<day>(?:{g._DAY})|tomorrow|today|tonight|yesterday)['\u2019]s\b", _I)
_REF_FILLER = frozenset(
    {"my", "our", "the", "a", "an", "with", "meeting", "meetings", "invite", "invitation", "to", "me", "it"}
)
_ONE_MEETING = re.compile(r"\b(?:only|just(?=\s)|this\s+one|that\s+one)\b", _I)
_WHOLE_SERIES = re.compile(
    r"\b(?:(?:the\s+)?(?:whole|entire)\b|all\s+of\s+them\b|every\s+(?:one|meeting|occurrence)\b|"
    r"(?:the\s+)?series\b|for\s+good\b)",
    _I,
)
_ANSWERS = (
    (re.compile(r"^(?:tentatively\s+accept|say\s+maybe\s+to|rsvp\s+maybe\s+to)\b", _I), "tentative"),
    (re.compile(r"^(?:accept|say\s+yes\s+to|rsvp\s+yes\s+to)\b", _I), "accepted"),
    (re.compile(r"^(?:decline|reject|turn\s+down|say\s+no\s+to|rsvp\s+no\s+to)\b", _I), "declined"),
)


def _message(text: str, marks: fields.Marks, start: int) -> str:
    found = _MESSAGE.search(text, start)
    if found is None:
        return ""
    said = found.group("msg") or found.group("tail") or ""
    marks.take(found.start(), len(text))
    said = g.tidy(said.strip("'\"\u2018\u2019\u201c\u201d"))
    return said[:1].upper() + said[1:] if said else ""


def _reference(
    text: str, marks: fields.Marks, start: int, end: int, known: Collection[str], previous: Intent | None
) -> tuple[dict[str, Any], list[str]]:
    """The meeting as said between start and end: ``said``, its people, its day phrase, its words."""
    said = g.tidy(text[start:end])
    day = _POSSESSIVE_DAY.search(text, start, end)
    phrase = None
    if day is not None:
        phrase = day.group("day")
        marks.take(day.start(), day.end())
    else:
        found = next((m for m in g._WHEN.finditer(text, start, end) if m.group(0).strip()), None)
        if found is not None:
            phrase = found.group(0)
            marks.take(found.start(), found.end())
    names = fields.people(text, marks, known, previous, start, end)
    free = marks.free(start, end)
    title = [
        w
        for w in re.findall(r"[\w:'/-]+", free)
        if w.casefold() not in _REF_FILLER
        and (w.casefold() in words.MEETING_NOUNS or w.casefold() not in words.FILLER)
        and w.casefold() not in {n.casefold() for n in names}
    ]
    marks.take(start, end)
    ref: dict[str, Any] = {"said": said[:200] or "the meeting"}
    if names:
        ref["people"] = names
    if title:
        ref["words"] = [re.sub(r"['\u2019]s$", "", w) for w in title][:8]
    if phrase:
        ref["day"] = " ".join(phrase.split())
    return ref, names


def move(segment: Segment, previous: Intent | None, known: Collection[str], same: bool = False) -> Intent:
    text, start = segment.text, segment.trigger.end
    marks = fields.Marks(text)
    marks.take(0, start)
    intent = Intent(tool=g.MOVE_TOOL, segment=g.tidy(text))
    args: dict[str, Any] = {}
    message = _message(text, marks, start)
    end = (
        len(text)
        if not message
        else next((i for i in range(len(text)) if marks.used[i] and i >= start), len(text))
    )
    shift = _SHIFT.search(text, start, end)
    ref_end = end
    if segment.trigger.verb.casefold() == "make":
        marks_d = fields.Marks(text)
        length = fields._duration(text[start:end], marks_d)
        duration = g._DURATION.search(text, start, end)
        if length is not None and duration is not None:
            args["durationMinutes"] = length
            ref_end = duration.start()
    elif shift is not None:
        said = shift.group("d") or shift.group("d2")
        minutes = fields._duration(said, fields.Marks(said)) or 0
        backwards = (shift.group("dir") or shift.group("dir2") or "").casefold() in (
            "earlier",
            "forward",
            "sooner",
        )
        verb = segment.trigger.verb.casefold()
        if verb.startswith(("pull", "bring")):
            backwards = True
        args["shiftMinutes"] = -minutes if backwards else minutes
        ref_end = shift.start()
    else:
        to = None
        for found in _TO_WHEN.finditer(text, start, end):
            if g._WHEN.match(text, found.end()):
                to = found
        when_at = to.end() if to is not None else None
        if when_at is None:
            whens = [m for m in g._WHEN.finditer(text, start, end) if m.group(0).strip()]
            when_at = whens[-1].start() if whens else None
        if when_at is not None:
            phrase = fields._when(text[:end], marks, when_at)
            if phrase:
                args["when"] = phrase
            ref_end = to.start() if to is not None else when_at
    scope = _scope(text, marks, start, end)
    ref, names = _reference(text, marks, start, ref_end, known, previous)
    for taken in range(ref_end, end):  # the time read above
        marks.used[taken] = True
    args = {"meeting": ref, **args, **({"scope": scope} if scope else {})}
    if message:
        args["message"] = message
    if not any(k in args for k in ("when", "shiftMinutes", "durationMinutes")):
        intent.missing.append("when to move it to")
    intent.args, intent.names = args, names
    intent.unread = []
    return intent


def cancel(segment: Segment, previous: Intent | None, known: Collection[str], same: bool = False) -> Intent:
    text, start = segment.text, segment.trigger.end
    marks = fields.Marks(text)
    marks.take(0, start)
    message = _message(text, marks, start)
    end = next((i for i in range(start, len(text)) if marks.used[i]), len(text))
    scope = _scope(text, marks, start, end)
    ref, names = _reference(text, marks, start, end, known, previous)
    args: dict[str, Any] = {"meeting": ref}
    if message:
        args["message"] = message
    if scope:
        args["scope"] = scope
    return Intent(tool=g.CANCEL_TOOL, segment=g.tidy(text), args=args, names=names)


def _scope(text: str, marks: fields.Marks, start: int, end: int) -> str | None:
    """Which meetings of a series, when said: "only" that one, or "the whole series" (the words
    taken: they are not the meeting's title)."""
    found = [(m, "series") for m in _WHOLE_SERIES.finditer(text, start, end)]
    found += [(m, "occurrence") for m in _ONE_MEETING.finditer(text, start, end)]
    for match, _ in found:
        marks.take(match.start(), match.end())
    kinds = {kind for _, kind in found}
    return kinds.pop() if len(kinds) == 1 else None


def answer(segment: Segment, previous: Intent | None, known: Collection[str], same: bool = False) -> Intent:
    text, start = segment.text, segment.trigger.end
    verb = segment.trigger.verb
    response = next((said for pattern, said in _ANSWERS if pattern.match(verb)), "accepted")
    marks = fields.Marks(text)
    marks.take(0, start)
    message = _message(text, marks, start)
    end = next((i for i in range(start, len(text)) if marks.used[i]), len(text))
    ref, names = _reference(text, marks, start, end, known, previous)
    args: dict[str, Any] = {"meeting": ref, "response": response}
    if message:
        args["message"] = message
    return Intent(tool=g.ANSWER_TOOL, segment=g.tidy(text), args=args, names=names)


READERS = {g.MOVE_TOOL: move, g.CANCEL_TOOL: cancel, g.ANSWER_TOOL: answer}
fields.READERS.update(READERS)  # loaded with the package (its __init__), before any message is read


def resolved_reference(
    args: Mapping[str, Any], now: datetime, timezone: str, locale: str | None
) -> dict[str, Any]:
    """The call with its reference's day said as ``fromDay``/``toDay`` (read by the backend's phrase
    reader, as a model resolves "tomorrow's" from the time in its prompt) and a move's new time as
    structured ``times`` (:func:`.model.resolved_times`)."""
    from multitool.toolkit.context import ToolContext
    from multitool.toolkit.errors import ToolError
    from multitool.tools.meeting.when import read_phrase

    out = dict(args)
    ref = dict(out.get("meeting") or {})
    day = ref.pop("day", None)
    if isinstance(day, str):
        ctx = ToolContext(owner="offline", session_id="offline", now=now, timezone=timezone, locale=locale)
        try:
            reading = read_phrase(day, ctx)
        except ToolError:
            reading = None
        if reading is not None and reading.request is not None:
            options = reading.request.options
            ref["fromDay"] = min(o.day for o in options).isoformat()
            ref["toDay"] = max((o.last_day or o.day) for o in options).isoformat()
    out["meeting"] = ref
    return out
