"""The fields of one request, read from its words as :mod:`.grammar` defines them.

Every reader marks the characters it used; what is left, less filler, is what the request
did not understand (:attr:`Intent.unread`). Nothing is filled in that the words do not say:
a missing field becomes a question (:attr:`Intent.missing`).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from multitool.runtimes.offline import grammar as g
from multitool.runtimes.offline import lexicon as words
from multitool.runtimes.offline.grammar import Intent, Segment
from multitool.tools.meeting.when import place_zone

Span = tuple[int, int]
_NOT_PERSON = frozenset(
    {*words.FILLER, *words.EMAIL_NOUNS, *words.MEETING_NOUNS, *words.TICKET_NOUNS, *words.PARTS_OF_DAY}
)
_CC = re.compile(
    r"\b(?:and\s+)?(?:cc|cc'?ing|copy(?:ing)?|copy\s+in)\s+(?P<who>.+?)(?=\s+(?:about|on|re)\b|$)", re.I
)
# A copy asked for after the topic ("… about friday's outage, cc mei"): a pause or "and" before it.
_LATE_CC = re.compile(
    r"(?:\s*[,;(]\s*(?:and\s+)?|\s+and\s+|\s+)(?:cc|cc['\u2019]?ing|copy\s+in|copying(?:\s+in)?)\s*:?\s+"
    r"(?P<who>[^,;.()!?]+?)(?:\s+(?:too|as\s+well|on\s+it))?\s*\)?\s*[.!]?\s*$",
    re.I,
)
# "… so he knows", "to keep her in the loop": the email is about the request before it.
_SO_THEY_KNOW = re.compile(
    r"\b(?:so\s+(?:that\s+)?(?:he|she|they)\s+(?:knows?|is\s+aware|are\s+aware)"
    r"|to\s+(?:let\s+(?:him|her|them)\s+know|keep\s+(?:him|her|them)\s+(?:in\s+the\s+loop|posted)))\b",
    re.I,
)
_WITH_CUT = re.compile(r"\s+(?:with|for|between)\s+(?=\S)", re.I)
_SENT_THING = re.compile(
    r"^(?:\s|,|\band\b)*(?P<topic>(?:the|our|my|this|that|your|an?)\s+[^\W\d_][\w' -]*?)[\s,]*(?:\band\s*)?$",
    re.I,
)
# "…, please set that up": the request said again, nothing more.
_SET_IT_UP = re.compile(
    r"(?:,\s*)?\b(?:(?:please|pls|can\s+you|could\s+you)\s+)?(?:set|book|schedule|arrange|organi[sz]e)\s+"
    r"(?:that|it|this|one)(?:\s+up)?(?:\s+(?:please|for\s+me))?\s*[.!]?\s*$",
    re.I,
)
_NAMED_BY_LENGTH = re.compile(r"^\s*(?:an?\s+|another\s+)?(?P<word>[^\W\d_][\w-]{2,})\s+(?=with\b)", re.I)
_ON_CALENDAR = re.compile(r"\b(?:on|in|onto|into)\s+(?:the|my|our|your|his|her|their)\s+calendars?\b", re.I)
# What is sent about the request before it: "file an incident … and email Priya a summary".
_REPORT = re.compile(
    r"^(?:an?|the)\s+(?:summary|update|recap|heads[\s-]?up|write-?up|status\s+update)$", re.I
)
# Words that stand between an article and a ticket without being a project ("a new bug", "a big task").
_ADJECTIVES_NOT_KEYS = frozenset(
    {"new", "big", "old", "odd", "bad", "real", "huge", "tiny", "nasty", "weird", "ui", "ux", "p1", "p2"}
)
_GENERIC_MEETING = frozenset({"time", "slot", "appointment", "session", "invite", "invitation"})
_LOWER_WORD = r"[a-zà-ÿ][a-zà-ÿ'-]+"
# Two lowercase words in a row ("alex chen"): a full name when the directory knows it as one.
_WORD_PAIR = re.compile(rf"(?=\b({_LOWER_WORD}\s+{_LOWER_WORD})\b)")
_COUNTED = re.compile(r"\b(?:both|two|all)\b", re.I)  # "both of them", "the two of them", "them all"
_NEXT_WORD = re.compile(rf"\s+({_LOWER_WORD})\b")
# An address given for the person just named: "Priya at priya@gmail.com", "Priya (priya@gmail.com)",
# "Priya <priya@gmail.com>": that person's address for this request, one recipient.
_THEIR_ADDRESS = re.compile(
    rf"\s+(?:at|on|via)\s+(?P<at>{g._ADDRESS.pattern})|\s*[(<]\s*(?P<in>{g._ADDRESS.pattern})\s*[)>]", re.I
)


class Marks:
    """The characters of a segment some reader used."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.used = [False] * len(text)

    def take(self, start: int, end: int) -> None:
        for index in range(max(0, start), min(end, len(self.text))):
            self.used[index] = True

    def free(self, start: int = 0, end: int | None = None) -> str:
        """The unused characters between start and end, used ones as spaces."""
        stop = len(self.text) if end is None else end
        return "".join(" " if self.used[i] else self.text[i] for i in range(start, stop))

    def unread(self) -> list[str]:
        left = g.content_words(self.free())
        return [" ".join(left)] if left else []


# Between two times of one phrase: an alternative ("Thursday at 4pm or Friday", "Thursday 10am and
# Friday 2pm"), a day ruled out, a latest end after an earliest start ("after 2 but before 4"), or the
# end of a span of days ("Monday to Wednesday", "mon-wed").
_JOINER = re.compile(
    r"^\s*(?:,\s*)?\(?\s*(?:or(?:\s+(?:else|otherwise))?|else|otherwise|failing\s+that|if\s+not|(?:and|but)\s+(?:not|no)"
    r"|not|except|but|and|to|through|thru|until|till|-|\u2013|/)\s*,?\s*(?:on\s+)?$",
    re.I,
)
# Before the first time: what makes it a span ("between Monday and Wednesday"), kept with it.
_SPAN_BEFORE = re.compile(r"\bbetween\s+$", re.I)
# "Mondays": a weekday said in the plural, read by the scheduler as a repeating meeting.
_PLURAL_DAY = re.compile(r"(?:.*\s)?(?:mon|tues|wednes|thurs|fri|satur|sun)days\b", re.I | re.S)
_NEGATION_BEFORE = re.compile(
    r"\b(?:(?:but\s+)?not|no|never|avoid(?:ing)?|except|any\s*(?:day|time)\s+but)\s+(?:on\s+)?$", re.I
)
# A meeting that repeats: its words before the time ("every other Friday", "weekly on Mondays"), or
# anywhere in the request ("a daily standup at 9:30"); the scheduler proposes the first and says so.
_REPEAT_BEFORE = re.compile(
    r"\b(?:(?:every|each)\s+(?:(?:other|second|\d{1,2}|two|three|four)\s+)?(?:(?:weeks?|fortnight|months?)\s+on\s+)?"
    r"|(?:(?:bi-?)?weekly|fortnightly|daily|monthly)\s+(?:on\s+)?)$",
    re.I,
)
_REPEAT_WORD = re.compile(
    r"\b(?:(?:bi-?)?weekly|fortnightly|daily|monthly"
    r"|every\s+(?:(?:other|second|\d{1,2}|two|three|four)\s+)?(?:day|weekday|working\s+day|morning|week|weeks|month))\b",
    re.I,
)
# A repeating meeting's end ("until March", "until 5 March", "for 6 weeks"), and words that say it repeats.
_SERIES_END = re.compile(
    rf"\b(?:until|till|through)\s+(?:{g._MONTH})[a-z]*\.?(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?"
    rf"|\b(?:until|till|through)\s+\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{g._MONTH})[a-z]*"
    r"|\bfor\s+(?:\d{1,2}|two|three|four|six)\s+(?:weeks|months|sessions|meetings|times)\b",
    re.I,
)
_REPEATS_IN = re.compile(r"\b(?:every|each|weekly|daily|monthly|fortnightly|bi-?weekly)\b|\w+days\b", re.I)
# After the last time: the zone it is in ("London time", "PST", "Europe/London", "in Priya's time zone").
_ZONE_AFTER = re.compile(
    r"^\s*(?:\(\s*)?(?:(?:in\s+|on\s+)?(?:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?|her|his|their|my|our|[^\W\d_][\w.-]*['\u2019]s)"
    r"\s+(?:local\s+)?time(?:\s*zone)?|(?:in\s+)?[A-Z]{2,4}\b|(?:in\s+)?[A-Z][A-Za-z_]+/[A-Za-z_]+)\)?"
)


# A place after the time that names its zone ("11am Pacific"): the scheduler reads it (tools.meeting.when).
_PLACE_AFTER = re.compile(r"\s+(?:in\s+)?(?P<place>[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*){0,2})")
# "the Tokyo offsite", "our Berlin office": a capitalised word after a determiner names no one.
_DETERMINER_BEFORE = re.compile(r"\b(?:the|a|an|our|my|your|their|this|that|these|those)\s+$", re.I)


def greeting_for(names: Collection[str], said: dict[str, str] | None = None) -> str:
    """'Hi Priya and Mei,': every recipient's first name, capitalised; 'Hi,' for addresses only (an
    address given for a name, in ``said``, greets the name)."""
    names = [(said or {}).get(n, n) for n in names]
    firsts = [n.split()[0] for n in names if n.strip() and "@" not in n]
    firsts = [f[:1].upper() + f[1:] if f.islower() else f for f in dict.fromkeys(firsts)]
    if not firsts:
        return "Hi,"
    listed = firsts[0] if len(firsts) == 1 else ", ".join(firsts[:-1]) + " and " + firsts[-1]
    return f"Hi {listed},"


def _when(text: str, marks: Marks, start: int = 0) -> str | None:
    """The phrase saying when, as written: its times, the alternatives and negations between
    them, and the zone after them, in one piece for the tool to read and check."""
    found = [m for m in g._WHEN.finditer(text) if m.start() >= start]
    if not found:
        return None
    pieces: list[tuple[int, int]] = []
    for match in found:
        if pieces and _JOINER.match(text[pieces[-1][1] : match.start()]):
            pieces[-1] = (pieces[-1][0], match.end())
        else:
            begin = match.start()
            before = (
                _NEGATION_BEFORE.search(text[start:begin])
                or _SPAN_BEFORE.search(text[start:begin])
                or _REPEAT_BEFORE.search(text[start:begin])
            )
            end = match.end() + (1 if _PLURAL_DAY.match(text, match.start(), match.end() + 1) else 0)
            pieces.append((start + before.start() if before else begin, end))
    for index, (begin, end) in enumerate(pieces):
        zone = _ZONE_AFTER.match(text[end:])
        if zone is not None and zone.group(0).strip():
            pieces[index] = (begin, end + zone.end())
        elif (place := _PLACE_AFTER.match(text, end)) and (named := place_zone(place["place"])):
            pieces[index] = (begin, place.start("place") + place["place"].find(named[1]) + len(named[1]))
    # "Thursday (or Friday)": the closing parenthesis goes with the phrase that opened one
    pieces = [
        (begin, end + 1) if text[end : end + 1] == ")" and "(" in text[begin:end] else (begin, end)
        for begin, end in pieces
    ]
    for begin, end in pieces:
        marks.take(begin, end)
    parts = [" ".join(text[begin:end].split()) for begin, end in pieces]
    parts = [re.sub(r"^(?:in\s+the\s+)(?=\w)", "", p, flags=re.I) if len(pieces) > 1 else p for p in parts]
    said = " ".join(dict.fromkeys(parts))
    repeat = _REPEAT_WORD.search(marks.free(), start)
    if repeat is not None and said:
        marks.take(repeat.start(), repeat.end())
        on = " on" if re.match(rf"(?:{g._DAY})", said, re.I) else ""  # "weekly on Thursdays at 3pm"
        said = f"{' '.join(repeat[0].split())}{on} {said}"
    if said and (repeat is not None or _REPEAT_BEFORE.search(said + " ") or _REPEATS_IN.search(said)):
        # the series' end, said apart from its first meeting: "every other Friday until March"
        series_end = _SERIES_END.search(marks.free(), start)
        if series_end is not None:
            marks.take(series_end.start(), series_end.end())
            said = f"{said} {' '.join(series_end[0].split())}"
    return said or None


def _duration(text: str, marks: Marks) -> int | None:
    match = g._DURATION.search(text)
    if match is None:
        return None
    marks.take(match.start(), match.end())
    if match.group("hh"):
        return g._NAMED_DURATIONS.get(" ".join(match.group("hh").casefold().replace("-", " ").split()), 60)
    word = match.group("word")
    amount = float(match.group("n")) if word is None else words.spelled_number(word) or 0
    minutes = amount * 60 if match.group("unit").casefold().startswith("h") else amount
    return int(minutes)


def people(
    text: str, marks: Marks, known: Collection[str], previous: Intent | None, start: int, end: int
) -> list[str]:
    """The people named between start and end: names, addresses, known lowercase names, pronouns."""
    found: list[str] = []
    zone = marks.free(start, end)
    for match in g._PLURAL.finditer(zone):
        if previous is not None and previous.names:
            counted = _COUNTED.search(match.group(0)) and previous.together
            found.extend(previous.together if counted else previous.names)
            marks.take(start + match.start(), start + match.end())
    for match in g._SINGULAR.finditer(zone):
        if previous is not None and previous.names:
            found.append(previous.names[-1])
            marks.take(start + match.start(), start + match.end())
    zone = marks.free(start, end)
    taken_to = 0
    for match in g._PERSON.finditer(zone):
        if match.start() < taken_to:  # the second word of a full name already taken
            continue
        token = re.sub(r"['\u2019]s$", "", match.group(0))
        taken_to = match.end()
        if "@" in token:
            name = token
        elif token[:1].isupper():
            parts = [p for p in token.split() if p.casefold() not in _NOT_PERSON]
            if not parts or _DETERMINER_BEFORE.search(zone, 0, match.start()):
                continue
            name = " ".join(parts)
        elif (after := _NEXT_WORD.match(zone, match.end())) and f"{token} {after.group(1)}" in known:
            name, taken_to = f"{token} {after.group(1)}", after.end()
        elif token in known:
            name = token
        else:
            continue
        given = _THEIR_ADDRESS.match(zone, taken_to) if "@" not in name else None
        if given is not None:  # the address said for them is whom to write to
            name, taken_to = given["at"] or given["in"], given.end()
        marks.take(start + match.start(), start + taken_to)
        if name not in found:
            found.append(name)
    return found


def named_addresses(text: str) -> dict[str, str]:
    """Each address given for a named person in ``text`` -> the name said ("Priya at p@x.com")."""
    named: dict[str, str] = {}
    for match in g._PERSON.finditer(text):
        given = _THEIR_ADDRESS.match(text, match.end())
        if given is not None and "@" not in match.group(0):
            named.setdefault(given["at"] or given["in"], re.sub(r"['\u2019]s$", "", match.group(0)))
    return named


def _topic(text: str, marks: Marks, pattern: re.Pattern[str], start: int) -> tuple[str, Span] | None:
    match = pattern.search(text, start)
    if match is None:
        return None
    return text[match.end() :], (match.start(), len(text))


TICKET_LABEL = "ticket"
MEETING_LABEL = "sync"
"""The labels the stand-in gives a ticket or a meeting a mail of the same message names
(:mod:`multitool.toolkit.links`), as a model does."""
_DETAILS = re.compile(r"^(?:the\s+)?(?:details|time|slot|invite|invitation)$", re.I)


def _back_reference(topic: str) -> bool:
    """'it', 'that one', 'the same thing': a topic that only points back ('it crashed' does not)."""
    match = g._BACK_REFERENCE.match(topic)
    return match is not None and (len(topic.split()) <= 2 or not topic[match.end() :].strip())


# --------------------------------------------------------------------------- the three requests


def email(segment: Segment, previous: Intent | None, known: Collection[str], same: bool = False) -> Intent:
    text, start = segment.text, segment.trigger.end
    marks = Marks(text)
    marks.take(0, start)
    intent = Intent(tool=g.EMAIL_TOOL, segment=g.tidy(text))
    cc: list[str] = []
    cc_match = _CC.search(text, start)
    topic_match = _topic(text, marks, g._TOPIC, start)
    topic_start = topic_match[1][0] if topic_match else len(text)
    if cc_match and cc_match.start() < topic_start:
        marks.take(cc_match.start(), cc_match.start("who"))
        cc = people(text, marks, known, previous, cc_match.start("who"), cc_match.end("who"))
    elif (late := _LATE_CC.search(text, topic_start)) is not None:
        # After the topic: the copy is read and the topic ends before it (never dropped unsaid).
        cc = people(text, marks, known, previous, late.start("who"), late.end("who"))
        marks.take(late.start(), late.end())
        if topic_match is not None:
            said_from = len(text) - len(topic_match[0])
            topic_match = (text[said_from : late.start()], (topic_start, late.start()))
    zone_people: list[str] = []
    if segment.trigger.people:
        zone_people = people(
            segment.trigger.people,
            Marks(segment.trigger.people),
            known,
            previous,
            0,
            len(segment.trigger.people),
        )
    zone_people += [
        p for p in people(text, marks, known, previous, start, topic_start) if p not in zone_people
    ]
    for match in re.finditer(r"\b(?:an?\s+)?(?:e-?mail|mail|note|message|line)\b", text[:topic_start], re.I):
        marks.take(match.start(), match.end())
    topic = ""
    knows = _SO_THEY_KNOW.search(text, start)
    if knows is not None and topic_match is None:
        marks.take(knows.start(), knows.end())
    if topic_match:
        marks.take(*topic_match[1])
        topic = g.tidy(topic_match[0])
    else:
        # "email Kinshuok the agenda": what is sent, right after whom, is what it is about.
        rest = marks.free(start, cc_match.start()) if cc_match else marks.free(start)
        sent = _SENT_THING.match(rest)
        if sent is not None:
            marks.take(start + sent.start("topic"), start + sent.end("topic"))
            topic = g.tidy(sent["topic"])
    intent.names = zone_people or ([] if previous is None else _inherited(text, previous))
    back = not topic or _back_reference(topic) or _REPORT.match(topic) is not None or knows is not None
    if (
        back
        and previous is not None
        and previous.topic
        and (topic or knows is not None or intent.names == previous.names)
    ):
        topic_text = previous.topic
    else:
        topic_text = topic
    intent.topic = topic_text or None
    if not intent.names:
        intent.missing.append("who to write to")
    if not topic_text:
        intent.missing.append("what the email is about")
    greeting = greeting_for(intent.names, named_addresses(text))
    if previous is not None and previous.tool == g.JIRA_TOOL and topic_text == previous.topic:
        ticket = previous.args
        subject = str(ticket.get("summary", topic_text))
        kind = str(ticket.get("issueType", "ticket"))
        article = "an" if kind[:1].casefold() in "aeiou" else "a"
        line = f"I filed {article} {kind} in {ticket.get('project', 'Jira')}: {subject}."
        if same and previous.callable:  # the mail names the ticket the other card creates (a link)
            previous.args["label"] = TICKET_LABEL
            key, url = (f"{{{{{TICKET_LABEL}.{value}}}}}" for value in ("key", "url"))
            line = f"I filed {key} ({kind.casefold()}): {subject}.\n{url}"
    elif (
        same
        and previous is not None
        and previous.tool == g.MEETING_TOOL
        and previous.callable
        and (_DETAILS.match(topic) is not None or _back_reference(topic))
    ):
        # "set up a sync with Priya on Thursday and email her the details": the booked time (a link).
        previous.args["label"] = MEETING_LABEL
        title = str(previous.args.get("title", "Meeting"))
        subject = f"About {topic_text}"
        line = f"Our {title.casefold()} is booked for {{{{{MEETING_LABEL}.when}}}}; the invitation follows."
    else:
        subject = f"About {topic_text}"
        line = f"I wanted to reach out about {topic_text}."
    intent.args = {
        "to": intent.names,
        "subject": subject[:200],
        "body": f"{greeting}\n\n{line}\n\nBest regards",
    }
    if cc:
        intent.args["cc"] = cc
    intent.unread = marks.unread()
    return intent


def _inherited(text: str, previous: Intent) -> list[str]:
    """The people of the request before, when this one points back at it ('about it', 'them')."""
    refers = re.search(r"\b(?:about|on|re|regarding)\s+(?:it|that|this|the\s+same)\b", text, re.I)
    return list(previous.names) if refers else []


def meeting(segment: Segment, previous: Intent | None, known: Collection[str], same: bool = False) -> Intent:
    text, start = segment.text, segment.trigger.end
    courtesy = _SET_IT_UP.search(text, start)
    if courtesy is not None:  # blanked, not cut: the positions of the rest stay as they were
        text = text[: courtesy.start()] + " " * (len(text) - courtesy.start())
    marks = Marks(text)
    marks.take(0, start)
    intent = Intent(tool=g.MEETING_TOOL, segment=g.tidy(segment.text))
    duration = _duration(text, marks)
    when_marks = Marks(text)
    topic = ""
    topic_match = _topic(text, marks, g._TOPIC, start)
    if re.fullmatch(r"discuss|go\s+over", segment.trigger.verb, re.I):
        topic_match = (text[start:], (start, len(text)))  # "discuss the numbers with Jordan"
    if topic_match:
        raw = topic_match[0]
        cut = (
            [m.start() for m in g._WHEN.finditer(raw)]
            + [m.start() for m in _WITH_CUT.finditer(raw) if m]
            + [m.start() for m in g._DURATION.finditer(raw)]
        )
        end = min(cut) if cut else len(raw)
        topic = g.tidy(raw[:end])
        offset = topic_match[1][0]
        marks.take(offset, len(text) - len(raw) + end)
    when = _when(text, marks, start)
    del when_marks
    names: list[str] = []
    if segment.trigger.people:
        names = people(
            segment.trigger.people,
            Marks(segment.trigger.people),
            known,
            previous,
            0,
            len(segment.trigger.people),
        )
    names += [p for p in people(text, marks, known, previous, start, len(text)) if p not in names]
    if not names and previous is not None:
        names = list(previous.names) if same else _inherited(text, previous)
    intent.names = names
    noun = ""
    for noun_match in re.finditer(rf"\b(?:{g._MEETING_NOUN})\b", text, re.I):
        marks.take(noun_match.start(), noun_match.end())
        one = words.MEETINGS_OF.get(noun_match.group(0).casefold(), noun_match.group(0))
        if not noun and one.casefold() not in _GENERIC_MEETING:
            noun = one
    if not noun:  # "set a 30 min triage with him": the word after the length names the meeting
        named = _NAMED_BY_LENGTH.search(marks.free(start))
        if named is not None and named["word"].casefold() not in words.FILLER:
            noun = named["word"]
            word_at = start + named.start("word")
            marks.take(word_at, word_at + len(noun))
    for filler in _ON_CALENDAR.finditer(text):
        marks.take(filler.start(), filler.end())
    back = bool(topic) and _back_reference(topic)
    own_topic = "" if back else topic
    refers = back or bool(g._PLURAL.search(text) or g._SINGULAR.search(text))
    inherited_topic = previous.topic if (previous is not None and previous.topic and refers) else None
    shown_topic = own_topic or (inherited_topic if refers else "") or ""
    if noun and shown_topic:
        title = f"{noun} about {shown_topic}"
    elif noun:
        title = noun
    elif shown_topic:
        title = shown_topic
    elif previous is not None and previous.tool == g.MEETING_TOOL and g._ANOTHER.match(segment.trigger.verb):
        title = str(previous.args.get("title") or "Meeting")  # "… and another one with Mei": a sync too
    else:
        title = "Meeting"
    intent.topic = own_topic or inherited_topic
    if not names:
        intent.missing.append("who to invite")
    if when is None:
        intent.missing.append("when to meet")
    args: dict[str, Any] = {"attendees": names, "title": g.sentence_case(title)[:200]}
    if when is not None:
        args["when"] = when
    if duration is not None:
        args["durationMinutes"] = duration
    intent.args = args
    intent.unread = marks.unread()
    return intent


def ticket(segment: Segment, previous: Intent | None, known: Collection[str], same: bool = False) -> Intent:
    text, start = segment.text, segment.trigger.end
    marks = Marks(text)
    marks.take(0, start)
    intent = Intent(tool=g.JIRA_TOOL, segment=g.tidy(text))
    args: dict[str, Any] = {}
    project_match = next(
        (
            m
            for m in g._IN_PROJECT.finditer(text)
            if (m.group("low") or m.group("key") or m.group("lowkey") or m.group("forkey") or "").casefold()
            not in words.NOT_NAMES | _ADJECTIVES_NOT_KEYS
        ),
        None,
    )
    project: str | None = None
    if project_match:
        project = (
            project_match.group("key")
            or project_match.group("caps")
            or project_match.group("low")
            or project_match.group("lowkey")
            or project_match.group("forkey")
        ).upper()
        marks.take(project_match.start(), project_match.end())
    else:
        caps = [
            m
            for m in g._PROJECT.finditer(text)
            if m.group(0) not in {"I", "ASAP", "EOD", "P0", "P1", "P2", "P3", "FYI"}
        ]
        if caps:
            project = caps[0].group(0)
            marks.take(caps[0].start(), caps[0].end())
    for pattern, priority in words.PRIORITIES:
        found = pattern.search(text)
        if found:
            args["priority"] = priority
            marks.take(found.start(), found.end())
            break
    assignee = g._ASSIGN.search(text)
    if assignee:
        args["assignee"] = assignee.group("who")
        intent.names = [assignee.group("who")]
        marks.take(assignee.start(), assignee.end())
    nouns = list(re.finditer(rf"\b(?:{g._TICKET_NOUN})\b", text, re.I))
    typed = [m.group(0).casefold() for m in nouns if m.group(0).casefold() in words.ISSUE_TYPES]
    kind_word = typed[0] if typed else ""
    for noun in nouns:
        marks.take(noun.start(), noun.end())
    leading = [m for m in nouns if not g.content_words(marks.free(start, m.start()))]
    rest_start = leading[-1].end() if leading else start
    rest = marks.free(max(start, rest_start))
    marker = g._JIRA_TOPIC.search(rest)
    topic_text = rest[marker.end() :] if marker and not rest[: marker.start()].strip(" ,") else rest
    topic = g.tidy(re.sub(r"\s{2,}", " ", topic_text))
    topic = re.sub(r"^(?:the|a|an)\s+(?=\S)", lambda m: m.group(0), topic)
    if topic:
        marks.take(max(start, rest_start), len(text))
    if (not topic or _back_reference(topic)) and previous is not None and previous.topic:
        topic = previous.topic
    intent.topic = topic or None
    if project is None:
        intent.missing.append("which Jira project it goes in")
    if not topic:
        intent.missing.append("what the ticket is about")
    args = {
        "project": project or "",
        "issueType": words.ISSUE_TYPES.get(kind_word, "Task"),
        "summary": g.sentence_case(topic)[:255],
        "description": f"Raised from chat: {intent.segment}"[:10_000],
        **args,
    }
    intent.args = args
    intent.unread = marks.unread()
    return intent


def agenda(
    segment: Segment, _previous: Intent | None, _known: Collection[str], _same: bool = False
) -> Intent:
    """ "what do I have tomorrow?": the days said (today when none), read into fromDay/toDay by the model."""
    text = segment.text
    marks = Marks(text)
    marks.take(0, segment.trigger.end)
    said = _when(text, marks, segment.trigger.end)
    intent = Intent(tool=g.AGENDA_TOOL, segment=g.tidy(text))
    intent.args = {"when": said or "today"}
    intent.unread = marks.unread()
    return intent


def free(segment: Segment, previous: Intent | None, known: Collection[str], _same: bool = False) -> Intent:
    """ "when am I free with Priya this week?": the people named and the days said (today when none)."""
    text = segment.text
    marks = Marks(text)
    marks.take(0, segment.trigger.end)
    said = _when(text, marks, segment.trigger.end)
    who = people(text, marks, known, previous, segment.trigger.end, len(text))
    for joiner in re.finditer(r"\b(?:with|and|both|me)\b", text[segment.trigger.end :], re.I):
        marks.take(segment.trigger.end + joiner.start(), segment.trigger.end + joiner.end())
    intent = Intent(tool=g.FREE_TOOL, segment=g.tidy(text), names=who)
    intent.args = {"people": who, "when": said or "today"}
    intent.unread = marks.unread()
    return intent


READERS: dict[str, Any] = {
    g.EMAIL_TOOL: email,
    g.MEETING_TOOL: meeting,
    g.JIRA_TOOL: ticket,
    g.AGENDA_TOOL: agenda,
    g.FREE_TOOL: free,
}
"""Each tool's reader; :mod:`.changes` adds the readers of requests about meetings that exist."""


def known_names(message: str, lookup: g.Lookup | None) -> Collection[str]:
    """The lowercase words, and pairs of words, of a message the directory knows as people (one
    lookup per message): "priya", and "alex chen" as one person where "alex" alone is two."""
    if lookup is None:
        return frozenset()
    single = {w for w in re.findall(rf"\b{_LOWER_WORD}\b", message) if w not in _NOT_PERSON and len(w) > 1}
    pairs = {
        " ".join(pair.split())
        for pair in _WORD_PAIR.findall(message)
        if not any(w in _NOT_PERSON for w in pair.split())
    }
    candidates = sorted(single | pairs)
    return frozenset(lookup(candidates)) if candidates else frozenset()


def read(message: str, previous: Intent | None = None, lookup: g.Lookup | None = None) -> g.Reading:
    """Every request of a message, each read with the one before it (or ``previous``, of a past turn);
    the requests on existing Jira issues first (:mod:`.tickets`), the rest of the message after them."""
    from multitool.runtimes.offline import tickets

    existing, message = tickets.take(message)
    found, unread = g.segments(message) if message.strip() else ([], [])
    known = known_names(message, lookup) if found else frozenset()
    intents: list[Intent] = []
    for segment in found:
        reader = READERS[segment.trigger.tool]
        if intents and segment.trigger.tool == g.EMAIL_TOOL:
            segment = _why(segment, intents[-1])
        if intents and len(intents[-1].names) < 2:
            intents[-1].together = _named_so_far(intents)
        intents.append(reader(segment, intents[-1] if intents else previous, known, bool(intents)))
    return g.Reading([*existing, *intents], unread)


_WHY = re.compile(r"\b(?:why|the\s+reason(?:\s+why)?)\s*[.!?]*$", re.I)
_DONE = {g.MOVE_TOOL: "I moved", g.CANCEL_TOOL: "I cancelled", g.ANSWER_TOOL: "I answered"}


def _why(segment: g.Segment, before: Intent) -> g.Segment:
    """ "… and email her why" after a move or a cancel: the email is about why that was done."""
    done = _DONE.get(before.tool)
    said = str((before.args.get("meeting") or {}).get("said") or "the meeting")
    if done is None or _WHY.search(segment.text) is None:
        return segment
    return g.Segment(segment.trigger, _WHY.sub(f"about why {done} {said}", segment.text))


def _named_so_far(intents: list[Intent]) -> list[str]:
    """The people of the last requests, earliest first, back to the first two named."""
    names: list[str] = []
    for intent in reversed(intents):
        # an email's copies are among its people: "email Kinshuok, cc Priya, and meet both of them"
        copied = (
            [c for c in intent.args.get("cc", []) if isinstance(c, str)]
            if intent.tool == g.EMAIL_TOOL
            else []
        )
        own = [*intent.names, *(c for c in copied if c not in intent.names)]
        names = [*own, *(n for n in names if n not in own)]
        if len(names) >= 2:
            break
    return names
