"""The offline grammar: a message read as requests for tools, with what it did not understand.

A reader can follow it as rules (the words are in :mod:`.lexicon`)::

    message   := clause (BOUNDARY clause)*
    BOUNDARY  := "," | ";" | "." | "?" | "!" | "and" | "then" | "and then" | "also" | "plus" | "after that"
    clause    := PREAMBLE* request          -- a clause that starts a request
               | continuation                -- a clause that does not: it belongs to the one before
    PREAMBLE  := "please" | "can you" | "could we" | "I need you to" | "let's" | …
    request   := VERB rest                   -- "email zoe about the offsite", "book 1 hour with …"
               | IDIOM rest                  -- "drop Priya a line", "let Jordan know …",
                                                "there's a bug in WEB: …"
               | NEED? ARTICLE NOUN rest     -- "I need a ticket for …", "and a call with Mei on Friday"
               | "is" PEOPLE "free" rest     -- "is Priya free for a call on Thursday?"

A request's tool is its verb's, unless the verb is shared ("set up", "create", "send") and a
noun says which ("set up a ticket" is a ticket). Its fields come from the rest:

    PEOPLE    := person (("," | "and") person)*   -- a capitalised name, an address, a lowercase
                                                      name the directory knows, or "them",
                                                      "both of them", "her", "him": the people of
                                                      the request before (or the last turn)
    TOPIC     := ("about" | "regarding" | "re" | "to discuss" | "that" | "for" | ":") words
    WHEN      := day, date, "tomorrow", "yesterday", "last Monday", part of the day, clock time
    DURATION  := "1 hour" | "45-minute" | "15 minutes" | "half an hour" | "90 min" | …

Names, dates and durations pass to the tools exactly as written: a date in the past reaches
the meeting tool, which refuses it in words the user sees. Nothing is invented: a request
missing what its tool needs (who to invite, when, which project) is not called and the reply
asks for it. Words of a clause that no rule read are reported as not understood.

The phrasings it is measured on are the table in ``tests/unit/runtimes/test_offline_phrasings.py``.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Collection, Sequence
from itertools import pairwise
from typing import Any

import msgspec

from multitool.runtimes.offline import lexicon as words
from multitool.runtimes.offline.lexicon import alternation
from multitool.tools.calendar import calendar_agenda
from multitool.tools.email import email_draft
from multitool.tools.jira import jira_draft
from multitool.tools.meeting import (
    free_time,
    invitation_answer,
    meeting_cancel,
    meeting_move,
    meeting_scheduler,
)

EMAIL_TOOL = email_draft.SPEC.name
MEETING_TOOL = meeting_scheduler.SPEC.name
JIRA_TOOL = jira_draft.SPEC.name
MOVE_TOOL = meeting_move.SPEC.name
CANCEL_TOOL = meeting_cancel.SPEC.name
ANSWER_TOOL = invitation_answer.SPEC.name
AGENDA_TOOL = calendar_agenda.SPEC.name
FREE_TOOL = free_time.SPEC.name

Lookup = Callable[[Sequence[str]], Collection[str]]
"""Which of some lowercase words the directory knows as people (the words as given)."""


class Intent(msgspec.Struct):
    """One request: the tool, its arguments as a model would pass them, and what it lacks."""

    tool: str
    segment: str
    args: dict[str, Any] = msgspec.field(default_factory=dict)
    names: list[str] = msgspec.field(default_factory=list)
    topic: str | None = None
    missing: list[str] = msgspec.field(default_factory=list)
    """What the tool needs that the message did not say, as a question's object ('who to invite')."""
    unread: list[str] = msgspec.field(default_factory=list)
    """Words of the request no rule read."""
    revises: str | None = None
    """The draft id of the card this request changes, for an edit."""
    together: list[str] = msgspec.field(default_factory=list)
    """Who "both of them" after this request means when it names fewer than two: the people of
    the requests before it too ("a sync with Alex monday, one with Mei tuesday, email both")."""

    @property
    def callable(self) -> bool:
        return not self.missing


class Reading(msgspec.Struct):
    intents: list[Intent]
    unread: list[str]
    """Clauses of the message that started no request and continued none."""


# --------------------------------------------------------------------------- patterns

_I = re.IGNORECASE
# A shorthand word, then the space after it ("w/ priya", "sync w alex"; never the "w" of "w-2").
_SHORTHAND = re.compile(
    r"(?<![\w/-])(?P<word>re:|w/|(?:"
    + "|".join(sorted((w for w in words.SHORTHAND if w[-1].isalpha()), key=len, reverse=True))
    + r")\b(?![/'-]))\s*",
    _I,
)
_PREAMBLE = re.compile(rf"^(?:(?:{words.COUNTED_PREAMBLE}|(?:{alternation(*words.PREAMBLES)})\b)[,\s]*)+", _I)
_NEED = alternation(*words.NEEDS)
# What may stand before the noun of a request: "a quick 15 min standup", "a new bug".
_SIZE = r"\d{1,3}[\s-]?(?:minutes?|mins?|hours?|hrs?|h|m)\b"
_ARTICLE = rf"(?:an?|some|the|one|another|quick|short|new|brief|separate|{_SIZE}|\s)+"
_EMAIL_NOUN = alternation(*words.EMAIL_NOUNS)
_MEETING_NOUN = alternation(*words.MEETING_NOUNS, "invite", "invitation")
_TICKET_NOUN = alternation(*words.TICKET_NOUNS)

_VERBS = alternation(
    *words.EMAIL_VERBS, *words.MEETING_VERBS, *words.TICKET_VERBS, *words.DRAFT_VERBS, *words.TIMED_VERBS
)
_VERB = re.compile(
    rf"^(?P<verb>{_VERBS})\b",
    _I,
)
_IDIOMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # "when am I free with Priya this week?", "find me some free time tomorrow", "am I free on Friday"
    (
        FREE_TOOL,
        re.compile(
            r"^(?:when\s+am\s+i\s+(?:free|available)|when\s+are\s+(?:we|you\s+and\s+i)\s+(?:both\s+|all\s+)?(?:free|available)"
            r"|(?:find|show)\s+(?:me\s+)?(?:some\s+|my\s+)?free\s+(?:time|slots|windows)|am\s+i\s+free)\b",
            _I,
        ),
    ),
    # "what do I have tomorrow?", "what's on my calendar this week", "show me my schedule for Friday"
    (
        AGENDA_TOOL,
        re.compile(
            r"^(?:what(?:'s|\u2019s|\s+is)\s+(?:on\s+)?(?:my|the)\s+(?:calendar|agenda|schedule|diary)"
            r"|what\s+(?:do\s+i\s+have|have\s+i\s+got)(?!\s+to\b)"
            r"|(?:show|give)\s+(?:me\s+)?my\s+(?:calendar|agenda|schedule|diary)"
            r"|am\s+i\s+busy|how\s+busy\s+am\s+i)\b",
            _I,
        ),
    ),
    *((EMAIL_TOOL, re.compile(rf"^{idiom}\b", _I)) for idiom in words.EMAIL_IDIOMS),
    *((JIRA_TOOL, re.compile(rf"^{idiom}\b", _I)) for idiom in words.TICKET_IDIOMS),
    (MEETING_TOOL, re.compile(r"^(?:is|are)\s+(?P<p6>.+?)\s+(?:free|available)\b", _I)),
    (MEETING_TOOL, re.compile(r"^when\s+(?:is|are|can)\s+(?P<p7>.+?)\s+(?:free|available|meet)\b", _I)),
    (MEETING_TOOL, re.compile(r"^(?:does|do)\s+(?P<p8>.+?)\s+have\s+(?:some\s+)?time\b", _I)),
)
_NOUN_LED = re.compile(
    rf"^(?:(?:{_NEED})\s+)?(?:{_ARTICLE})(?P<noun>{_MEETING_NOUN}|{_TICKET_NOUN}|{_EMAIL_NOUN})\b", _I
)
_NEED_LED = re.compile(
    rf"^(?:{_NEED})\s+(?:{_ARTICLE})?(?P<noun>{_MEETING_NOUN}|{_TICKET_NOUN}|{_EMAIL_NOUN})\b", _I
)

# A ticket said with its project and no verb: "OPS ticket please, …", "bug in WEB: …", "bug WEB login broken".
_TICKET_WORDS = rf"(?i:{_TICKET_NOUN})"
# What a ticket said without a verb may start with: its urgency or size ("critical bug in OPS - …").
_TICKET_ADJECTIVES = (
    r"(?:(?i:critical|urgent|major|minor|small|quick|new|nasty|blocking|low|high|medium|p[0-4]|sev\s*[1-4])"
    r"(?:[\s-]+(?i:priority|prio|pri))?\s+)*"
)
_KEY_FIRST_TICKET = re.compile(
    rf"^(?:(?i:an?)\s+)?{_TICKET_ADJECTIVES}(?P<key>[A-Z][A-Z0-9]{{1,9}})\s+{_TICKET_ADJECTIVES}"
    rf"(?P<noun>{_TICKET_WORDS})\b"
)
# "bug in WEB: …", "bug in web: …" (a short lowercase word where the key stands, then a pause).
_TICKET_THEN_KEY = re.compile(
    rf"^(?:(?i:an?)\s+)?{_TICKET_ADJECTIVES}(?P<noun>{_TICKET_WORDS})\b"
    r"(?=\s+(?:(?i:in|for|on|under|into)\s+)?[A-Z][A-Z0-9]{1,9}\b"
    r"|\s+(?i:in|for|under|into)\s+[a-z][a-z0-9]{1,5}\s*(?:[:;,]|\s[-\u2013\u2014]\s|$))"
)

# Words in capitals that stand where a key would and are none ("A BUG …", "URGENT ticket").
_CAPITALS_NOT_KEYS = frozenset({"I", "A", "AN", "THE", "MY", "OUR", "NEW", "ONE", "URGENT", "P1", "P2"})

_EMAIL_ONLY = re.compile(
    rf"^(?:{alternation(*(v for v in words.EMAIL_VERBS if v not in ('write', 'update')))})$", _I
)
_MEETING_ONLY = re.compile(
    r"^(?:schedule|scheduling|discuss|go\s+over|meet|meet\s+up|meet\s+with|sync.*|catch.*|get\s+together.*|find.*|"
    r"get\s+(?:some\s+)?time|grab.*|pencil\s+in|talk.*|chat\s+with|call|invite|"
    r"set\s+aside\s+time|block\s+(?:out\s+)?time|block\s+an\s+hour|put\s+.*calendar|"
    r"add\s+a\s+meeting)$",
    _I,
)
_NEEDS_NOUN = re.compile(
    r"^(?:create|open|log|raise|report|track|submit|write\s+up|add|make|put\s+in|enter|file|"
    r"have|hold|run|host|block|put\s+together|line\s+up|plan|organi[sz]e|arrange|book|set\s+up|send|write|update|calendar)$",
    _I,
)

_HARD = re.compile(
    r"(?:[;.!?]+\s+|\s*(?:,\s*)?\b(?:and\s+then|then|after\s+that|(?:and\s+)?also|(?:and\s+)?plus)\s+)", _I
)
_SOFT = re.compile(r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)", _I)
# A boundary said in words ("then", "also", "plus"), not punctuation: what follows it and starts no
# request goes on with the clause before ("emails with a plus sign", "it freezes then crashes").
_WORD_JOINER = re.compile(r"[^\W\d_]")
# A clause that tells someone to do something to a thing ("translate it", "book me", "ping the team"):
# a verb in its plain form (not "crashes", "hangs"), then its object. It asks for something, known or not.
_ASKS = re.compile(
    r"^[^\W\d_]+(?<![sS])\s+(?:me|it|them|her|him|us|this|that|these|those|the|a|an|my|our|your|his|their)\b",
    _I,
)
# A sign-off at the end of a clause: courtesy, never what a request is about ("... the vpn is slow
# thanks", "... asap pls", "cheers!").
_SIGN_OFF = re.compile(
    r"(?:\s*[,;.!-]*\s*\b(?:thanks?(?:\s+(?:you|a\s+lot|so\s+much|again|in\s+advance|heaps|loads))*|thank\s+you"
    r"(?:\s+(?:so\s+much|very\s+much|in\s+advance))?|thx|thnx|thanx|ty|tia|tyvm|pls|plz|please|cheers|ta"
    r"|much\s+appreciated|appreciate\s+it|many\s+thanks|(?:kind|best)\s+regards)\b)+[\s.!:)]*$",
    _I,
)

_DAY = alternation(*words.DAYS)
_MONTH = alternation(*words.MONTHS)
_PART = alternation(*words.PARTS_OF_DAY)
_NUMBER_WORD = alternation(*words.NUMBER_WORDS).replace("-", r"[\s-]")  # "forty-five", "forty five"
_ONE_CLOCK = (
    r"(?:\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:?\d{2}\s*(?:hrs?|h)\b|\d{1,2}[:.h]\d{2}|\d{1,2}\s*o['\u2019]?\s*clock\b"
    r"|(?:half(?:\s+past)?|(?:a\s+)?quarter\s+(?:past|to)"
    r"|(?:five|ten|twenty(?:[\s-]five)?|\d{1,2})\s+(?:minutes?\s+)?(?:past|after)|(?:five|ten|twenty(?:[\s-]five)?)\s+to)\s+"
    r"(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b|noon|midday)"
)
# A time, or a span of hours ending in one ("2-3pm", "10:00-11:30"), which the scheduler reads as a window.
_CLOCK = rf"(?:(?:\d{{1,2}}(?::\d{{2}})?\s*(?:am|pm)?\s*(?:-|\u2013)\s*)?{_ONE_CLOCK}(?:\s*-?\s*ish\b)?)"
# An hour after a word that makes it one ("at 3", "after 2", "by midnight"), not a count ("by 3 people").
_HOUR = (
    rf"(?:{_CLOCK}|midnight|\d{{1,2}}h\b|(?:{_NUMBER_WORD})\b(?!\s*(?:days?|weeks?|hours?|mins?|minutes?|people|of))"
    rf"|\d{{1,2}}(?:\s*-?\s*ish\b)?"
    r"(?!\s*(?:days?|weeks?|months?|years?|hours?|hrs?|h\b|mins?|minutes?|m\b|people|of\b|/|\d|st\b|nd\b|rd\b|th\b)))"
)
_BEFORE_HOUR = (
    r"(?:at|around|about|roughly|from|after|before|by|until|till|up\s+to|no\s+(?:earlier|later)\s+than|"
    r"not\s+before|any\s*time\s+after)"
)
_WEEKDAY_WEEK = (
    rf"(?:(?:{_DAY})\s+week\b|a\s+week\s+(?:on|from|after)\s+(?:{_DAY})|(?:the\s+)?(?:{_DAY})\s+after\s+next"
    rf"|(?:the\s+)?week\s+after\s+next|(?:in\s+)?a\s+fortnight(?:\s+(?:from\s+)?(?:today|now))?"
    rf"|(?:the\s+)?(?:first|second|third|fourth|last|1st|2nd|3rd|4th)\s+week\s+(?:of|in)\s+(?:{_MONTH}))"
)
# Days said as a span or counted from another: "Jan 5-7", "14-16 December", "by Friday", "before the
# 10th", "in the next couple of days", "the first Monday of January" (the scheduler reads each).
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"
# Days people name rather than date (after "on", "before", ...: "a Christmas party" names no day), and
# the time it is now on another day (the scheduler reads them).
_NAMED_DAY = (
    r"(?:the\s+)?(?:christmas(?:\s+(?:eve|day))?|boxing\s+day|new\s+year(?:['\u2019]?s)?(?:\s+(?:eve|day))?)"
)
_SAME_TIME = (
    r"(?:this|the\s+same|same)\s+time\s+(?:tomorrow|next\s+week)"
    r"|(?:tomorrow|next\s+week)\s+(?:at\s+)?(?:this|the\s+same|same)\s+time"
)
_DAY_SPANS = (
    rf"(?:(?:{_MONTH})\.?\s+{_ORDINAL}\s*(?:-|\u2013|to|through)\s*{_ORDINAL}\b"
    rf"|(?:the\s+)?{_ORDINAL}\s*(?:-|\u2013|to|through)\s*(?:the\s+)?{_ORDINAL}\s+(?:of\s+)?(?:{_MONTH})"
    rf"|(?:before|by|until|till|no\s+later\s+than|after)\s+(?:(?:next|this|coming)\s+)?(?:{_DAY}|tomorrow|the\s+{_ORDINAL}"
    rf"|(?:{_MONTH})\.?\s+{_ORDINAL}|(?:the\s+)?{_ORDINAL}\s+(?:of\s+)?(?:{_MONTH})|{_NAMED_DAY})\b"
    # "from Thursday on", "starting Monday", "not until the 10th", "Thursday at the earliest"
    r"|(?:any\s*time\s+)?(?:from|starting(?:\s+(?:from|on))?|beginning|no\s+earlier\s+than|not\s+(?:until|till|before))\s+"
    rf"(?:(?:next|this|coming)\s+)?(?:{_DAY}|tomorrow|the\s+{_ORDINAL})\b(?:\s+(?:on(?:wards?)?|or\s+later|at\s+the\s+earliest)\b)?"
    rf"|(?:{_DAY})\s+(?:onwards?|or\s+later|at\s+the\s+earliest)\b"
    # "early January", "the end of next month"; "the week of the 14th"
    rf"|(?:the\s+)?(?:early|mid|late|(?:end|beginning|start|middle|first\s+half|second\s+half)\s+of)[\s-]*"
    rf"(?:the\s+)?(?:(?:{_MONTH})\.?|(?:this|next)\s+month)\b"
    rf"|(?:the\s+)?week\s+of\s+(?:the\s+{_ORDINAL}|(?:{_MONTH})\.?\s+{_ORDINAL}|{_ORDINAL}\s+(?:of\s+)?(?:{_MONTH}))\b"
    r"|(?:(?:with)?in\s+)?(?:the\s+)?next\s+(?:\d{1,2}|two|three|four|five|six|couple(?:\s+of)?|few)\s+"
    r"(?:working\s+|business\s+)?days"
    r"|asap\b|a\.s\.a\.p\.?|as\s+soon\s+as\s+possible|first\s+available)"
)
_SHADE = r"(?:(?:early|mid|late)[\s-]*)"
# Days or weeks counted from today: "in 2 weeks", "in a week", "3 days from now" (the scheduler reads them).
_COUNTED_AHEAD = (
    rf"(?:in\s+(?:\d{{1,2}}|{_NUMBER_WORD}|an?|a\s+couple\s+(?:of\s+)?)\s+(?:days?|weeks?)\b"
    rf"|(?:\d{{1,2}}|{_NUMBER_WORD}|an?)\s+(?:days?|weeks?)\s+from\s+(?:now|today|tomorrow)\b)"
)
_NTH_WEEKDAY_OF = (  # "the first Monday of next month", "the last Friday in January"
    rf"(?:the\s+)?(?:first|1st|second|2nd|third|3rd|fourth|4th|last)\s+(?:{_DAY})\s+(?:of|in)\s+"
    rf"(?:(?:the|this|next|every)\s+month|(?:{_MONTH}))\b"
)
_DATE = (
    rf"(?:{_NTH_WEEKDAY_OF}|{_DAY_SPANS}|{_SAME_TIME}|(?:on|over|around|at)\s+{_NAMED_DAY}\b|{_WEEKDAY_WEEK}|(?:(?:early|late|later|mid|(?:the\s+)?(?:middle|end|start|beginning)\s+of)[\s-]*)?"
    rf"(?:next|this|coming|last|past|the)\s+week\b|mid-?week\b|"
    rf"(?:next|this|coming|last|past)\s+(?:month|{_DAY})|{_DAY}|tomorrow|tmrw|tmr|today|tonight|yesterday|"
    rf"(?:the\s+)?day\s+after\s+tomorrow|the\s+day\s+before\s+yesterday|{_COUNTED_AHEAD}|"
    rf"(?:later\s+)?this\s+{_SHADE}?(?:morning|afternoon|evening)|later\s+today|end\s+of\s+(?:the\s+)?week|"
    rf"\d{{4}}-\d{{2}}-\d{{2}}(?:[T ]\d{{2}}:\d{{2}}(?::\d{{2}})?(?:Z|[+-]\d{{2}}:?\d{{2}})?)?|"
    rf"(?:{_MONTH})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH})|"
    rf"the\s+\d{{1,2}}(?:st|nd|rd|th)|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?\b)"
)
_WHEN = re.compile(
    rf"\b(?:{_DATE})(?:\s+(?:in\s+the\s+)?{_SHADE}?(?:{_PART})\b|\s+(?:am|pm)\b)?"
    rf"(?:\s*,?\s*(?:{_BEFORE_HOUR}\s+)?{_CLOCK}(?:\s+(?:onwards?|or\s+later)\b)?)?"
    rf"|\b(?:from\s+|between\s+)?\d{{1,2}}(?::\d{{2}})?\s*(?:am|pm)?\s*(?:-|\u2013|\bto\b|\buntil\b|\band\b)\s*"
    rf"(?:{_ONE_CLOCK}|\d{{1,2}}\b(?!\s*(?:days?|weeks?|hours?|mins?|minutes?|people|/)))"
    rf"|\b{_BEFORE_HOUR}\s+{_HOUR}(?:\s+(?:onwards?|or\s+later)\b)?"
    # alternatives sharing what is said once: "3 or 4pm", "at 10 or 11", "December 9 or 10"
    rf"|\b\d{{1,2}}(?::\d{{2}})?(?=\s+or\s+\d)|\bor\s+{_HOUR}"
    rf"|\b{_CLOCK}(?:\s+(?:onwards?|or\s+later)\b)?|\b\d{{1,2}}\s*-?\s*ish\b"
    rf"|\b(?:in\s+the\s+)?{_SHADE}?(?:{_PART})\b",
    _I,
)
_DURATION = re.compile(
    # "at 17h" is a time (the 24-hour clock as much of Europe writes it), not seventeen hours.
    r"(?<!\bat\s)(?<!\bby\s)(?<!\bfrom\s)\b(?:for\s+)?(?:(?:(?P<n>\d{1,3}(?:\.\d)?)[\s-]?|"
    rf"(?P<word>{_NUMBER_WORD})[\s-])(?P<unit>minutes?|mins?|m|hours?|hrs?|h)\b(?:\s+long)?"
    r"|(?P<hh>an?\s+hour\s+and\s+a\s+half|half[\s-]an?[\s-]hour|an?\s+half[\s-]hour|an?\s+hour|"
    r"(?:a|one|three)\s+quarters?\s+of\s+an\s+hour))\b",
    _I,
)
# What follows "put"/"set"/"find" when they ask for a meeting: a length, after an article or not.
_TIMED = re.compile(rf"^\s*(?:(?:an?|another|one)\s+)?(?:{_DURATION.pattern})", _I)
# A clause that only says how long: "45 minutes", "an hour please".
_LENGTH_ALONE = re.compile(
    rf"^\s*(?:make\s+it\s+)?(?:{_DURATION.pattern})"
    r"(?:\s+(?:is|would\s+be|should\s+be|'?s)\s+(?:fine|ok|okay|enough|plenty|good|great))?(?:\s+please)?[\s.!]*$",
    _I,
)
_NAMED_DURATIONS = {
    "an hour and a half": 90,
    "a hour and a half": 90,
    "half an hour": 30,
    "half a hour": 30,
    "a half hour": 30,
    "a quarter of an hour": 15,
    "one quarter of an hour": 15,
    "three quarters of an hour": 45,
    "an hour": 60,
    "a hour": 60,
}
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_CAPITAL = r"[A-ZÀ-Þ][a-zà-ÿ'\u2019-]+"
_PLURAL = re.compile(rf"\b(?:{alternation(*words.PLURAL_PRONOUNS)})\b", _I)
_SINGULAR = re.compile(r"\b(?:her|him)\b", _I)
_PERSON = re.compile(rf"{_ADDRESS.pattern}|\b{_CAPITAL}(?:\s+{_CAPITAL})?\b(?:'s)?|\b[a-zà-ÿ][a-zà-ÿ'-]+\b")
_TOPIC = re.compile(
    r"\b(?:about|regarding|re:?|concerning|on\s+the\s+subject\s+of|to\s+discuss|to\s+talk\s+about|"
    r"to\s+go\s+over|to\s+review|discussing|covering|that|saying|to\s+say|"
    r"(?:(?:and\s+)?ask|asking)\s+(?:(?:him|her|them)\s+)?(?:about|for|if|whether)|"
    r"(?:and\s+)?tell(?:ing)?\s+(?:him|her|them)\s+(?:that|about)|"
    r"(?:thanking|to\s+thank)\s+(?:(?:him|her|them)\s+)?for|abt|wrt|"
    r"with\s+the\s+(?:notes|update|summary|details|agenda|slides|numbers|report)(?=\s+\w))\b:?"
    # "with the launch checklist", "with the agenda": the thing sent, kept whole
    r"|\bwith(?=\s+the\s+(?:\w+\s+)?(?:notes|update|summary|details|agenda|slides|numbers|report|checklist|plan|deck|"
    r"doc|draft|figures|recording|minutes)\b)"
    r"|(?<!\d):(?!\d)\s*",
    _I,
)
_JIRA_TOPIC = re.compile(
    r"\b(?:for|about|regarding|that|to|re:?|because|where|on)\b\s*|(?<!\d):(?!\d)\s*|\s[-\u2013\u2014]+\s+",
    _I,
)
_PROJECT = re.compile(r"\b[A-Z][A-Z0-9]{1,9}\b")
_IN_PROJECT = re.compile(
    r"\b(?:in|to|for|on|into|under|against)\s+(?:the\s+)?(?P<key>[A-Za-z][A-Za-z0-9]{1,9})\s+(?:project|board|queue|backlog)\b"
    r"|\b(?:in|to|into|under|against)\s+(?:the\s+)?(?P<caps>[A-Z][A-Z0-9]{1,9})\b"
    # "a bug in web, typo on the about page": a short word where the key stands, ended by a pause
    r"|\b(?:in|into|under)\s+(?P<low>[a-z][a-z0-9]{1,5})"
    r"(?=\s*(?:[,:;]|\s[-\u2013\u2014]\s|$)|\s+(?:for|about|re|that|where|to)\b)"
    # "a task for web - update the footer": after "for", a pause must follow ("for alex to fix" is someone)
    r"|\bfor\s+(?P<forkey>[a-z][a-z0-9]{1,5})(?=\s*(?:[,:;]|\s[-\u2013\u2014]\s))"
    # "file an ops bug": a short word between the article and the ticket
    rf"|\b(?:an?|one)\s+(?P<lowkey>[a-z]{{2,4}})\s+(?=(?:{_TICKET_NOUN})\b)",
)
_ASSIGN = re.compile(
    # "assign it to Priya", "for Priya to refresh the page" (the summary keeps "refresh the page")
    r"\b(?:and\s+)?(?:assign(?:ed)?\s+(?:it\s+|this\s+)?to|for(?=\s+[\w.+@-]+(?:\s+(?-i:[A-Z])[\w'-]+)?\s+to\s+[a-z]))\s+"
    r"(?P<who>[\w.+@-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)"
    r"(?:\s+to\s+(?:fix|look\s+at|handle|check)\s+it\b)?",
    _I,
)
_BACK_REFERENCE = re.compile(rf"^(?:{alternation(*words.BACK_REFERENCES)})\b", _I)
_TRAILING = re.compile(r"[\s,;.!?:]+$")
_LEADING = re.compile(r"^(?:[\s,;.!?:-]|\bplease\b)+", re.I)
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an|our|my)\s+", _I)
_WORD = re.compile(r"[\w'@.+:-]+")
_SMALL_TALK = re.compile(
    r"^(?:hi|hello|hey|thanks?(?:\s+you)?|thx|ty|tia|cheers|ok(?:ay)?|great|cool|bye|good\s+(?:morning|night)|"
    r"help|what\s+can\s+you\s+do|who\s+are\s+you|how\s+does\s+this\s+work)\b",
    _I,
)


_LETTERS = re.compile(r"[^\W\d_]+")


def foreign(text: str) -> bool:
    """Whether a message is written in another language than English: most of its letters are of
    another script than Latin (unicodedata names them), or two or more of its words are
    :data:`~.lexicon.FOREIGN_WORDS`, a fifth of its words or more."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return False
    latin = sum(1 for ch in letters if unicodedata.name(ch, "").startswith("LATIN"))
    if latin < len(letters) / 2:
        return True
    said = [w.casefold() for w in _LETTERS.findall(text)]
    hits = {w for w in said if w in words.FOREIGN_WORDS}
    return len(hits) >= 2 and sum(w in words.FOREIGN_WORDS for w in said) * 5 >= len(said)


def quoted(clause: str) -> str:
    """What to quote of a clause not understood: without its politeness ("hey, can you …")."""
    return tidy(_PREAMBLE.sub("", tidy(clause))) or tidy(clause)


def tidy(text: str) -> str:
    return _LEADING.sub("", _TRAILING.sub("", " ".join(text.split())))


def sentence_case(text: str) -> str:
    text = _LEADING_ARTICLE.sub("", text.strip())
    return text[:1].upper() + text[1:] if text else text


def is_small_talk(text: str) -> bool:
    return not tidy(text) or _SMALL_TALK.match(tidy(text)) is not None


def content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if w.casefold().strip(".:'") not in words.FILLER]


# --------------------------------------------------------------------------- requests and clauses

_NOUNS = (
    (MEETING_TOOL, re.compile(rf"\b(?:{_MEETING_NOUN})\b", _I)),
    (JIRA_TOOL, re.compile(rf"\b(?:{_TICKET_NOUN})\b", _I)),
    (EMAIL_TOOL, re.compile(rf"\b(?:{_EMAIL_NOUN})\b", _I)),
)
_NOT_MEETING = re.compile(
    rf"^\s*(?:(?:me|us)\s+)?(?:{_ARTICLE})?(?:{alternation(*words.NOT_MEETINGS)})\b", _I
)
_WITH_SOMEONE = re.compile(r"\bwith\s+\S", _I)
_DO = re.compile(r"do\s+", _I)
_VERB_WORD = re.compile(rf"\b(?:{_VERBS})\b", _I)
_BARE_MEETING = re.compile(rf"(?P<noun>{_MEETING_NOUN})\s+(?=with\s+\S)", _I)
_TICKETS = alternation(*words.ISSUE_TYPES, "tickets", "issues")
_COUNTED_TICKETS = re.compile(rf"\b(?P<count>\d|{_NUMBER_WORD})\s+(?:\w+\s+)?(?:{_TICKETS})\b[^:]*?:\s*", _I)
_WITH_FIRST = re.compile(r"^\s*(?:also\s+)?with\s+\S", _I)
_ABOUT_IT = re.compile(
    r"^\s*(?:it['\u2019]?s|it\s+is|this\s+is|that['\u2019]?s)\s+(?P<about>about|regarding)\b", _I
)
_ANOTHER = re.compile(r"^\s*(?:another|one\s+more|a\s+second)(?:\s+one)?\b", _I)
_NEED_FIRST = re.compile(rf"(?:{_NEED})\s+", _I)
_DEFAULT_TOOL = {
    "book": MEETING_TOOL,
    "set up": MEETING_TOOL,
    "arrange": MEETING_TOOL,
    "organise": MEETING_TOOL,
    "organize": MEETING_TOOL,
    "plan": MEETING_TOOL,
    "grab": MEETING_TOOL,
    "line up": MEETING_TOOL,
    "setting up": MEETING_TOOL,
    "setup": MEETING_TOOL,
    "set-up": MEETING_TOOL,
    "booking": MEETING_TOOL,
    "arranging": MEETING_TOOL,
    "organising": MEETING_TOOL,
    "organizing": MEETING_TOOL,
    "send": EMAIL_TOOL,
    "draft": EMAIL_TOOL,
    "compose": EMAIL_TOOL,
    "prepare": EMAIL_TOOL,
    "write": EMAIL_TOOL,
    "update": EMAIL_TOOL,
}


class Trigger(msgspec.Struct, frozen=True):
    """Where a request starts: its tool, the verb or idiom, where the rest begins, an idiom's people."""

    tool: str
    verb: str
    end: int
    people: str | None = None
    by_default: bool = False


def noun_tool(text: str) -> str | None:
    """The tool of the first thing a text names (a call, a bug, a note), or None."""
    found = [(m.start(), tool) for tool, pattern in _NOUNS if (m := pattern.search(text))]
    return min(found)[1] if found else None


_TO_ONESELF = frozenset({"remind", "tell", "update", "notify", "inform", "nudge"})
_ME = re.compile(r"^\s+(?:me|us)\b", _I)


def _verb_tool(verb: str, rest: str) -> tuple[str | None, bool]:
    """(tool, by default) for a verb: its own, or the one its noun names, or a shared verb's usual one."""
    key = " ".join(verb.casefold().split())
    if key == "jira":
        return JIRA_TOOL, False
    if _EMAIL_ONLY.match(key):
        if key in _TO_ONESELF and _ME.match(rest):
            return None, False  # "remind me to call mum", "tell me a joke": nothing the tools do
        return EMAIL_TOOL, False
    if key in words.TIMED_VERBS:
        timed = _TIMED.match(rest) or noun_tool(rest) == MEETING_TOOL
        return (MEETING_TOOL, False) if timed else (None, False)
    if _MEETING_ONLY.match(key):
        return MEETING_TOOL, False
    named = noun_tool(rest)
    if named is not None:
        return named, False
    if _DEFAULT_TOOL.get(key) == MEETING_TOOL and _NOT_MEETING.search(rest):
        return None, False  # "book me a flight": nothing the tools do
    if key in _DEFAULT_TOOL:
        return _DEFAULT_TOOL[key], True
    if key == "schedule":
        return MEETING_TOOL, False
    if _PROJECT.search(rest) and key in {"file", "log", "raise", "report", "open", "create", "track"}:
        return JIRA_TOOL, False
    return None, False


# Requests about a meeting that already exists (read by :mod:`.changes`): a verb, then the meeting
# as said ("move my sync with Priya …", "cancel tomorrow's standup", "decline the Friday retro").
# "move it …" / "make it …" are edits of a card (:mod:`.edits`), never these.
_NOT_A_MEETING = r"(?!\s+(?:it|this|that|them|me|us)\b)"
_CHANGES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "move_meeting",
        re.compile(
            r"^(?:move|reschedule|push(?:\s+back)?|pull(?:\s+forward)?|bring(?:\s+forward)?|shift|postpone|delay)"
            + _NOT_A_MEETING,
            _I,
        ),
    ),
    ("cancel_meeting", re.compile(r"^(?:cancel|call\s+off|scrap)" + _NOT_A_MEETING, _I)),
    (
        "answer_invitation",
        re.compile(
            r"^(?:tentatively\s+accept|accept|decline|reject|turn\s+down|(?:say|rsvp)\s+(?:yes|no|maybe)\s+to)"
            + _NOT_A_MEETING,
            _I,
        ),
    ),
)
# "make tomorrow's standup 15 minutes": a new length for a meeting that exists (not "make a ticket").
_MAKE_LENGTH = re.compile(
    rf"^make(?=\s+(?:my|our|the|tomorrow['\u2019]s|today['\u2019]s|(?:{_DAY})['\u2019]s)\s)(?=.*\d)", _I
)


def _change_trigger(body: str, offset: int) -> Trigger | None:
    for tool, pattern in _CHANGES:
        match = pattern.match(body)
        if match is not None and not _NOT_MEETING.search(body[match.end() :]):
            return Trigger(tool, match.group(0), offset + match.end())
    make = _MAKE_LENGTH.match(body)
    if make is not None and _DURATION.search(body, make.end()):
        return Trigger("move_meeting", "make", offset + make.end())
    return None


def trigger(clause: str) -> Trigger | None:
    """The request a clause starts, or None when it starts none."""
    preamble = _PREAMBLE.match(clause)
    offset = preamble.end() if preamble else 0
    body = clause[offset:]
    change = _change_trigger(body, offset)
    if change is not None:
        return change
    for tool, pattern in _IDIOMS:
        match = pattern.match(body)
        if match:
            people = next((g for g in match.groups() if g), None)
            return Trigger(tool, match.group(0), offset + match.end(), people)
    match = _NEED_LED.match(body) or _NOUN_LED.match(body)
    named = noun_tool(match.group("noun")) if match else None
    if match and named is not None:
        return Trigger(named, match.group(0), offset + match.end())
    match = _KEY_FIRST_TICKET.match(body) or _TICKET_THEN_KEY.match(body)
    if match and match.groupdict().get("key", "") not in _CAPITALS_NOT_KEYS:
        return Trigger(JIRA_TOOL, match.group(0), offset + match.end())
    match = _VERB.match(body)
    if match:
        verb_tool, by_default = _verb_tool(match.group("verb"), body[match.end() :])
        if verb_tool is not None:
            return Trigger(verb_tool, match.group("verb"), offset + match.end(), by_default=by_default)
    need = _NEED_FIRST.match(body)
    at = need.end() if need else 0
    if _DURATION.match(body, at) and _WITH_SOMEONE.search(body):  # "(I need) 30 min with alex chen friday"
        return Trigger(MEETING_TOOL, body[:at].strip(), offset + at, by_default=True)
    doing = _DO.match(body, at)  # "(can we) do thursday with alex chen"
    at = doing.end() if doing else at
    when = _WHEN.match(body, at)
    who = _WITH_SOMEONE.search(body, when.end()) if when else None
    if when and who and not _VERB_WORD.search(body, when.end(), who.start()):
        # "Thursday at 4pm Berlin time with Alex Müller": a day, then who, and no other request between
        return Trigger(MEETING_TOOL, body[:at].strip(), offset + at, by_default=True)
    bare = _BARE_MEETING.match(body, at)
    if bare:  # "lunch with kinshuok and mei on thursday"
        return Trigger(MEETING_TOOL, bare.group("noun"), offset + bare.end("noun"))
    return None


# The verbs a mistyped first word is compared with ("emial priya", "shedule a call"): one word each.
_SPELLED_VERBS = sorted(
    {
        verb
        for verb in (*words.EMAIL_VERBS, *words.MEETING_VERBS, *words.TICKET_VERBS, *words.DRAFT_VERBS)
        if " " not in verb and "-" not in verb and len(verb) >= 4
    }
)
_FIRST_WORD = re.compile(r"[^\W\d_]{4,}\b")


def respelled(clause: str) -> str | None:
    """The clause with its first word (after a preamble) spelled as the verb it is a typo of, when
    that starts a request ("emial priya about …"); None when no verb is that close (difflib's ratio
    of at least 0.8: one letter swapped, dropped or doubled in a word of four or more)."""
    preamble = _PREAMBLE.match(clause)
    word = _FIRST_WORD.match(clause, preamble.end() if preamble else 0)
    said = word.group(0).casefold() if word else ""
    if word is None or said in words.FILLER or said in _SPELLED_VERBS:
        return None
    close = difflib.get_close_matches(said, _SPELLED_VERBS, n=1, cutoff=0.8)
    if not close:
        return None
    fixed = clause[: word.start()] + close[0] + clause[word.end() :]
    return fixed if trigger(fixed) is not None else None


class Piece(msgspec.Struct):
    text: str
    joiner: str
    hard: bool


_BULLET = re.compile(r"^\s*[-*\u2022]\s+")
_NUMBER = re.compile(r"(?:^|(?<=\s))(?P<n>\d{1,2})[.)]\s+(?=[^\W\d_])")


def _items(message: str) -> list[str]:
    """A message's lines, less their list markers ("- ", "2) "), and the items of a numbered list
    written on one line ("1. email kinshuok 2. file a task"): each starts a request of its own."""
    items: list[str] = []
    for line in message.splitlines():
        line = _BULLET.sub("", line).strip()
        numbers = list(_NUMBER.finditer(line))
        # Only a run 1, 2, 3… is a list ("at 4. Then" is not); a line of its own may start with one.
        if len(numbers) > 1 and [int(m.group("n")) for m in numbers] == list(range(1, len(numbers) + 1)):
            cuts = [0, *(m.start() for m in numbers), len(line)]
            items += [_NUMBER.sub("", line[a:b], count=1) for a, b in pairwise(cuts)]
        elif numbers and numbers[0].start() == 0:
            items.append(line[numbers[0].end() :])
        else:
            items.append(line)
    return [" ".join(item.split()) for item in items if item.strip()]


# A closing ending a message after a sentence: "… Best, Jordan", "Cheers", "Kind regards, Priya".
_CLOSING = re.compile(
    r"(?:[.!?]+\s*|^\s*)(?:(?:all\s+the\s+)?best(?:\s+wishes)?|(?:kind|warm|best)?\s*regards|cheers|"
    r"thanks(?:\s+(?:so\s+much|a\s+lot|in\s+advance))?|thank\s+you|many\s+thanks|ty|tia|thx)"
    r"(?:\s*[,-]?\s*(?-i:[A-Z])[\w'-]*)?[\s.!]*$",
    _I,
)


def pieces(message: str) -> list[Piece]:
    """The clauses of a message, each with the boundary before it (hard: a new sentence or 'then',
    a new line, a list's next item), less a closing at the message's end and a sign-off at each
    clause's end (no request's words)."""
    text = _SHORTHAND.sub(lambda m: words.SHORTHAND[m["word"].casefold()] + " ", ". ".join(_items(message)))
    text = _CLOSING.sub("", text)
    result: list[Piece] = []
    chunks = _HARD.split(text)
    joiners = [m.group(0) for m in _HARD.finditer(text)]
    for index, chunk in enumerate(chunks):
        soft = _SOFT.split(chunk)
        soft_joiners = [m.group(0) for m in _SOFT.finditer(chunk)]
        for position, part in enumerate(soft):
            if position == 0:
                joiner = joiners[index - 1] if index else ""
                result.append(Piece(part, joiner, hard=True))
            else:
                result.append(Piece(part, soft_joiners[position - 1], hard=False))
    for piece in result:
        piece.text = _SIGN_OFF.sub("", piece.text)
    return [p for p in result if p.text.strip()]


def _continues(piece: Piece) -> bool:
    """Whether a clause after a boundary said in words goes on with the one before: it starts no
    request and asks for nothing ("plus sign", "then crashes"; not "then book me a flight" nor "then
    translate it to French", which are said as not understood)."""
    if not _WORD_JOINER.search(piece.joiner):
        return False
    preamble = _PREAMBLE.match(piece.text)
    text = piece.text[preamble.end() if preamble else 0 :].lstrip()
    return _VERB.match(text) is None and _ASKS.match(text) is None


def _separate_meeting(before: Segment, text: str) -> bool:
    """Whether "with <someone> <when>" after a meeting that has its own day is a meeting of its own;
    after one without a day ("a meeting with priya and with kinshuok on wednesday") it adds a guest."""
    return (
        before.trigger.tool == MEETING_TOOL
        and _WITH_FIRST.match(text) is not None
        and _WHEN.search(text) is not None
        and _WHEN.search(before.text) is not None
    )


def _concrete(text: str) -> bool:
    """Whether a clause says who, when or how long: a shared verb there starts a request."""
    return bool(_WHEN.search(text) or _DURATION.search(text) or _WITH_SOMEONE.search(text))


class Segment(msgspec.Struct):
    trigger: Trigger
    text: str


def segments(message: str) -> tuple[list[Segment], list[str]]:
    """(request segments, clauses that belong to none) of a message."""
    found: list[Segment] = []
    unread: list[str] = []
    for piece in pieces(message):
        start = trigger(piece.text)
        if start is None and (fixed := respelled(piece.text)) is not None:
            piece.text, start = fixed, trigger(fixed)
        if (
            start is not None
            and start.by_default
            and not piece.hard
            and found
            and not _concrete(piece.text)
            and start.verb.casefold() != found[-1].trigger.verb.casefold()  # "send Mei …, send Alex …": two
        ):
            start = None  # "… about the budget and plan for Q3": a shared verb mid-sentence continues it
        again = _ANOTHER.match(piece.text)
        if start is None and again is not None and found and _concrete(piece.text):
            # "a sync with priya on wednesday and another one with kinshuok on thursday": the same kind
            start = Trigger(found[-1].trigger.tool, again.group(0).strip(), again.end())
        elif start is None and found and not piece.hard and _separate_meeting(found[-1], piece.text):
            # "1:1s with priya on monday and with kinshuok on wednesday": a day each, a meeting each
            start = Trigger(MEETING_TOOL, "another", 0)
        about = _ABOUT_IT.match(piece.text)
        length = _LENGTH_ALONE.match(piece.text)
        if start is None and length is not None and found and found[-1].trigger.tool == MEETING_TOOL:
            found[-1].text += ", " + piece.text  # "can we do thursday with alex chen? 45 minutes"
            continue
        if start is not None:
            found.append(Segment(start, piece.text))
        elif found and (not piece.hard or _continues(piece)):
            found[-1].text += piece.joiner + piece.text
        elif found and about is not None:  # "Email Mei? It's about the visa letter": the topic, said after
            found[-1].text += " " + piece.text[about.start("about") :]
        elif content_words(piece.text) and not is_small_talk(piece.text):
            unread.append(tidy(piece.text))
    return [each for segment in found for each in _each_counted(segment)], unread


def _each_counted(segment: Segment) -> list[Segment]:
    """'file two bugs in WEB: the logo is blurry, and the cart total is wrong': a ticket per item
    of the list after the colon, when it holds as many items as the count says; else the one."""
    counted = _COUNTED_TICKETS.search(segment.text) if segment.trigger.tool == JIRA_TOOL else None
    if counted is None:
        return [segment]
    said = counted.group("count")
    count = int(said) if said.isdigit() else words.spelled_number(said) or 0
    items = [item for item in _SOFT.split(segment.text[counted.end() :]) if item.strip()]
    if count < 2 or len(items) != count:
        return [segment]
    head = segment.text[: counted.start("count")] + segment.text[counted.end("count") : counted.end()]
    return [Segment(segment.trigger, head + item) for item in items]


def split_intents(message: str) -> list[tuple[str, str]]:
    """(verb, segment) for every request of a message, in order."""
    return [(s.trigger.verb, tidy(s.text)) for s in segments(message)[0]]
