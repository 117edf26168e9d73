"""The words of the offline grammar: what starts a request, what names a thing, what is filler.

:mod:`multitool.runtimes.offline.grammar` composes these into its rules. Each list is the
everyday ways people say one thing; extend a list to teach the stand-in a phrasing.
"""

from __future__ import annotations

import re


def phrases(text: str) -> tuple[str, ...]:
    """The comma-separated phrases of a text, in order."""
    return tuple(" ".join(p.split()) for p in text.split(",") if p.strip())


def alternation(*phrases: str) -> str:
    """A regex alternation of phrases, longest first (so 'set up' wins over 'set'), spaces flexible."""
    ordered = sorted(set(phrases), key=len, reverse=True)
    return "|".join(p.replace(" ", r"\s+") for p in ordered)


# --------------------------------------------------------------------------- what starts a request

# What may come before a request without changing it: politeness, questions, needs.
# A count of what follows: "Three things: …", "a couple of things -".
COUNTED_PREAMBLE = (
    r"(?:here\s+are\s+)?(?:two|three|four|five|a\s+few|a\s+couple\s+(?:of\s+)?|some|couple\s+(?:of\s+)?)"
    r"\s+things?(?:\s+(?:to\s+do|for\s+you))?\s*[:,-]"
)
PREAMBLES = phrases(
    """
    please, pls, kindly, hey, hi, hello, ok, okay, so, also, quickly, could you, can you, would
    you, will you, could you please, can you please, would you please, can we, could we, shall
    we, should we, can i, could i, may i, i need you to, i'd like you to, i would like you to, i
    want you to, i need to, i have to, i want to, i'd like to, i would like to, we need to, we
    should, we have to, i should, let's, lets, help me, go ahead and, remember to, don't forget
    to, dont forget to, do you mind, would you mind, is it possible to, any chance you could,
    make sure to, i'd love to, time to, now, and now, oh, oh and, ah, and, um, hmm, btw, by the way,
    quick one, quick q, real quick
    """
)
# A need names the thing itself: "I need a meeting with Priya", "can I get a ticket for …".
NEEDS = phrases(
    """
    i need, we need, i want, i'd like, i would like, we'd like, can i get, could i get, can we get,
    could we get, get, can i
    have, could i have, get me, set me up with, i'm after, there should be, we could use, how
    about, what about, need, do, have, get me on, put me on, add me to, throw in, pop in
    """
)

# Verbs (and idioms) that ask for an email; a person may stand inside an idiom ("drop Priya a line").
EMAIL_VERBS = phrases(
    """
    email, e-mail, mail, write to, write, message, ping, send an email over to, send a note over to,
    shoot an email to, shoot a note to, shoot a message to, shoot an email over to, drop an email to,
    drop a note to, drop a line to, reach out to, get in touch with,
    contact, notify, tell, inform, reply to, follow up with, nudge, remind, update, loop in,
    send a note to, send an email to, send a message to, send a mail to, send an e-mail to, send
    a line to, emailing, messaging, writing to
    """
)
EMAIL_IDIOMS = (
    r"drop\s+(?P<p1>.+?)\s+an?\s+(?:quick\s+|short\s+|brief\s+)?(?:line|note|email|e-mail|message|mail)",
    r"shoot\s+(?P<p2>.+?)\s+an?\s+(?:quick\s+|short\s+|brief\s+)?(?:email|e-mail|note|message|mail)",
    r"send\s+(?P<p3>.+?)\s+an?\s+(?:quick\s+|short\s+|brief\s+)?(?:email|e-mail|note|message|mail|line|update)",
    r"let\s+(?P<p4>.+?)\s+know",
    r"give\s+(?P<p5>.+?)\s+a\s+heads[\s-]up",
    r"fire\s+off\s+an?\s+(?:email|e-mail|note|message)",
)
# Verbs whose noun says the tool ("draft a ticket"); alone, they draft an email ("draft one to Priya").
DRAFT_VERBS = ("send", "draft", "compose", "prepare")
MEETING_VERBS = phrases(
    """
    schedule, book, set up, setup, set-up, arrange, organise, organize, plan, find time, find a time,
    find some
    time, find a slot, get time, get some time, grab time, grab some time, grab, block time, block out
    time, block an hour, block, set aside time, pencil in, line up, put together, meet, meet up,
    meet with, sync with, sync up with, catch up with, get together with, talk to, talk with,
    chat with, call, invite, hold, have, host, run, put time on the calendar, put something on
    the calendar, put a meeting on the calendar, add a meeting, calendar, discuss, go over,
    setting up, scheduling, booking, arranging, organising, organizing
    """
)
# Verbs that ask for a meeting only when a length or a meeting follows: "put 30 mins on Thursday with
# her", "set a 30 min triage with him", "find 30 minutes with jo" ("set the priority" and "put it in
# OPS" are edits; "find the doc" is nothing the tools do).
TIMED_VERBS = ("put", "set", "find")
TICKET_VERBS = phrases(
    """
    file, create, open, log, raise, report, track, submit, write up, add, make, put in, enter,
    jira, filing, creating, opening, logging
    """
)
# A sentence that reports a problem asks for a ticket: "there's a bug in WEB: …".
TICKET_IDIOMS = (
    r"there(?:'s|\s+is)\s+an?\s+(?:bug|problem|issue|defect|glitch)",
    r"(?:we|i)\s+(?:found|hit|have|got)\s+an?\s+(?:bug|problem|issue|defect)",
)

# --------------------------------------------------------------------------- what names a thing

EMAIL_NOUNS = ("email", "e-mail", "mail", "note", "message", "line", "heads-up", "heads up", "update")
_ONE_MEETING = phrases(
    """
    meeting, sync, sync-up, call, review, standup, stand-up, 1:1, one-on-one, 1-on-1, catch-up,
    catchup, catch up, chat, retro, retrospective, demo, workshop, kickoff, kick-off, huddle, session,
    interview, lunch, coffee, postmortem, post-mortem, planning, brainstorm, time, slot,
    appointment
    """
)
# Several of one kind ("1:1s with priya on monday and with kinshuok on wednesday") name it too.
MEETINGS_OF = {
    noun + ("es" if noun.endswith(("ch", "sh")) else "s"): noun
    for noun in _ONE_MEETING
    if not noun.endswith(("s", "time", "planning"))
}
MEETING_NOUNS = (*_ONE_MEETING, *MEETINGS_OF)
TICKET_NOUNS = phrases(
    """
    jira, ticket, bug, task, story, issue, epic, incident, defect, bug report,
    tickets, bugs, tasks, stories, issues, epics, incidents, defects, bug reports
    """
)
_SINGULAR_TYPES = {
    "bug": "Bug",
    "defect": "Bug",
    "bug report": "Bug",
    "task": "Task",
    "story": "Story",
    "epic": "Epic",
    "incident": "Incident",
}
# The issue type a ticket noun names, one or several ("ticket" and "issue" name none).
ISSUE_TYPES = {
    **_SINGULAR_TYPES,
    **{("stories" if noun == "story" else f"{noun}s"): kind for noun, kind in _SINGULAR_TYPES.items()},
}
_PRIORITY_IS = r"(?:,\s*)?\bpriority\s*(?:[:=]\s*|is\s+|of\s+|should\s+be\s+)?"  # "..., priority low"
PRIORITIES = (
    (
        re.compile(
            rf"\b(?:blocker|highest\s+priority|critical|p0|sev\s*1)\b|{_PRIORITY_IS}(?:highest|critical)\b",
            re.I,
        ),
        "Highest",
    ),
    (
        re.compile(
            rf"\b(?:urgent|high\s+priority|high[\s-]pri|asap|p1|important)\b|{_PRIORITY_IS}high\b", re.I
        ),
        "High",
    ),
    (
        re.compile(
            rf"\b(?:medium\s+priority|normal\s+priority|p2)\b|{_PRIORITY_IS}(?:medium|normal)\b", re.I
        ),
        "Medium",
    ),
    (re.compile(rf"\b(?:lowest\s+priority|trivial|p4)\b|{_PRIORITY_IS}lowest\b", re.I), "Lowest"),
    (
        re.compile(
            rf"\b(?:low\s+priority|low[\s-]pri|minor|p3|when\s+(?:you|someone)\s+can)\b|{_PRIORITY_IS}low\b",
            re.I,
        ),
        "Low",
    ),
)

# --------------------------------------------------------------------------- people and time

# "them" and "both of them" stand for the people of the request before (or of the last turn).
PLURAL_PRONOUNS = phrases(
    """
    both of them, the two of them, all of them, them both, them all, them, both, everyone, the
    same people, those people
    """
)
SINGULAR_PRONOUNS = ("her", "him", "them")
# Topic words that point back to the request before: "email Priya about it".
BACK_REFERENCES = (
    "it",
    "that",
    "this",
    "the same",
    "the same thing",
    "the above",
    "this issue",
    "that issue",
    "the ticket",
)

DAYS = phrases(
    """
    monday, tuesday, wednesday, thursday, friday, saturday, sunday, mon, tue, tues, wed, thu,
    thur, thurs, fri, sat, sun
    """
)
MONTHS = phrases(
    """
    january, february, march, april, may, june, july, august, september, october, november,
    december, jan, feb, mar, apr, jun, jul, aug, sep, sept, oct, nov, dec
    """
)
SHORTHAND = {
    "sched": "schedule",
    "schd": "schedule",
    "mtg": "meeting",
    "mtgs": "meetings",
    "w": "with",
    "w/": "with",
    "pls": "please",
    "plz": "please",
    "pri": "priority",
    "prio": "priority",
    "re:": "about",
    "abt": "about",
    "u": "you",
    "ur": "your",
    "thx": "thanks",
}
"""Chat shorthand, written out before a message is read ("sched mtg w/ priya thurs 30m")."""
NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "ten": 10,
    "fifteen": 15,
    "twenty": 20,
    "twenty-five": 25,
    "thirty": 30,
    "forty": 40,
    "forty-five": 45,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
}
"""Numbers a duration or a count is spelled with ("a two-hour workshop", "twenty minutes")."""


def spelled_number(said: str) -> int | None:
    """The number a word of :data:`NUMBER_WORDS` spells, however hyphenated ("forty five")."""
    return NUMBER_WORDS.get("-".join(said.casefold().replace("-", " ").split()))


PARTS_OF_DAY = phrases(
    """
    morning, afternoon, evening, lunchtime, lunch, noon, midday, end of day, end of the day,
    eod, cob, close of business, arvo, aft, after work
    """
)

# What "book" may name that is not a meeting: travel and tables are not on the calendar tool.
NOT_MEETINGS = phrases(
    """
    flight, flights, plane, hotel, hotels, train, trains, taxi, cab, car, rental car, table,
    restaurant, trip, room for the night, airbnb, ferry, bus
    """
)

_CONTRACTIONS = phrases(
    """
    i'm, i'll, i've, i'd, we're, we'll, we've, we'd, you're, you'll, it's, that's, there's, here's,
    what's, let's, don't, can't, won't, isn't, didn't
    """
)
# Words that are never a person, whatever their case ("Email", "Friday", "I").
NOT_NAMES = frozenset(
    {
        *DAYS,
        *MONTHS,
        *(w for phrase in PREAMBLES for w in phrase.split()),
        *phrases(
            """
        i, me, my, we, us, our, you, your, the, a, an, and, or, then, also, plus, today,
        tomorrow, tonight, yesterday, next, last, this, coming, jira, email, e-mail, mail,
        schedule, book, file, create, open, send, write, set, ping, meeting, sync, call,
        ticket, bug, task, story, team, everyone, all, them, her, him, both, it, that, re,
        thanks, thank, cheers, asap, eod, ok, okay, hey, hi, hello, please, urgent, fyi,
        btw, noon, midday, morning, afternoon, evening, week, month, day
            """
        ),
        *_CONTRACTIONS,
        *(w.replace("'", "\u2019") for w in _CONTRACTIONS),
    }
)

# Words left over from a request that say nothing the stand-in could have missed.
FILLER = frozenset(
    {
        *NOT_NAMES,
        *phrases(
            """
        to, for, with, on, in, at, by, of, about, from, is, are, be, some, quick, short,
        new, too, as, well, so, just, now, soon, them, up, out, time, there, one, get, can,
        could, would, will, do, know, let, via, over, around, any, free, available, fine, works, +, &
            """
        ),
    }
)

# Words common in other languages' requests and not English ones: a message with several of them
# and no request read is answered "English only" (other scripts are told by their letters).
FOREIGN_WORDS = frozenset(
    phrases(
        """
        bitte, eine, einen, einem, einer, mit, und, der, das, ich, kannst, können, könntest, wir,
        nicht, für, mir, uns, ist, wegen, zum, zur, morgen, termin, schreiben, schicke, erstelle,
        danke, donnerstag, montag, dienstag, mittwoch, freitag, besprechung, einrichten, mail an,
        una, con, los, las, por, para, reunión, correo, mañana, jueves, lunes, martes, miércoles,
        viernes, favor, gracias, programa, enviar, envía, crea, del, que, hola,
        une, avec, les, des, pour, réunion, demain, merci, vous, nous, envoie, crée, plaît, jeudi,
        lundi, mardi, mercredi, vendredi, bonjour,
        uma, com, reunião, amanhã, obrigado, obrigada, você, quinta, sexta,
        riunione, domani, grazie, della, giovedì, venerdì, ciao,
        een, met, het, voor, vergadering, alsjeblieft, bedankt, donderdag, vrijdag
        """
    )
)
