"""The prompt contract, in one place.

The Bedrock agent's instructions (CDK), the prompt session attributes sent with
every InvokeAgent call, and the Converse system prompt all say the same three
things, in so many words: invoke every applicable tool in the same turn; pass
names raw, the backend resolves them; never write tool results as JSON in the
reply. Times are not raw: the model resolves them into the meeting tool's
structured values from ``now`` and the user's zone, which every prompt carries.
A fourth says how to change a card already made: call its tool again with
every field and ``revises`` set to that card's draft id. A fifth says how one call's text names
what another call of the same turn will produce once confirmed (a ``label`` and
``{{label.value}}``, :mod:`multitool.toolkit.links`), still in the one response.
"""

from __future__ import annotations

from datetime import datetime

from multitool.zones import date_order

EVERY_TOOL = (
    "When a message asks for several things, invoke every applicable tool in the same turn, "
    "one call per action, all in one response: never do one and ask about the rest."
)
RAW_NAMES = (
    "Pass people's names exactly as the user wrote them (for example 'Kinshuok'); "
    "the backend resolves names to people and addresses, so never guess an email address."
)
NO_JSON = (
    "Do not write tool results as JSON in your reply: the user sees each result as a card. "
    "Reply with one or two short sentences saying what you prepared. "
    "Beside tool calls, write only what the user must read (a question, a part you cannot do): "
    "it is shown after the cards' own summary."
)
REVISE = (
    "To change a card already made ('make it 45 minutes', 'add Priya', 'move it to Friday'), call the "
    "tool that made it again with every field of the changed card and revises set to that card's "
    "draftId, as the conversation lists it ('[cards: <draftId> <tool>: ...]'): the new card replaces it."
)
LINKS = (
    "When one call's text must name what another call of the same turn will produce once the user "
    "confirms it (the key or link of the ticket being filed, the time of the meeting being proposed), "
    "still make every call in the same response: give the producing call a label ('ticket', 'sync') "
    "and write {{label.value}} where the value belongs ('Filed as {{ticket.key}}: {{ticket.url}}', "
    "'See you {{sync.when}}'); each tool's description lists the values it produces. Never invent "
    "a key, link or time that does not exist yet."
)
REVIEW = "Nothing is sent, booked or created until the user confirms a card."
TIMES = (
    "Times are the exception to raw: for a meeting, pass when as the user said it and also times, the "
    "days and times the user meant, resolved from the current time and the user's time zone that you are "
    "given here ('the day after tomorrow at 2pm' is one value, 'Thursday at 4pm or Friday at 10am' two), "
    "with timezone set to the IANA zone the user named ('4pm London time': Europe/London), timezoneOf to "
    "an attendee whose zone the user meant ('in Priya's time'), and notOn for days ruled out. A meeting "
    "that repeats ('every Monday at 11', 'every other Friday until March') also takes repeat, its rule, with "
    "times its first meeting. The calendar and free times take fromDay and toDay, the days meant. "
    "When you cannot tell which day or time is meant, ask instead of guessing."
)

CONTRACT: tuple[str, ...] = (EVERY_TOOL, RAW_NAMES, NO_JSON, REVISE, LINKS)
"""The rules every runtime states."""

AGENT_INSTRUCTION = " ".join(
    (
        "You are an assistant that prepares emails, meeting proposals and Jira tickets "
        "for the user to review.",
        *CONTRACT,
        TIMES,
        "The current time and the user's time zone are the prompt session attributes now and timezone.",
        REVIEW,
    )
)
"""The Bedrock agent's instruction (set by the CDK stack)."""


def contract_text() -> str:
    """The contract as a numbered list, for prompts."""
    return "\n".join(f"{number}. {rule}" for number, rule in enumerate(CONTRACT, start=1))


def system_prompt(*, timezone: str, now: datetime | None = None, locale: str | None = None) -> str:
    """The Converse system prompt: the contract plus the user's time context."""
    return "\n".join((standing_system_prompt(), time_context(timezone=timezone, now=now, locale=locale)))


def standing_system_prompt() -> str:
    """The part of the system prompt that is the same for every user and turn: a cacheable prefix."""
    lines = [
        "You prepare emails, meeting proposals and Jira tickets for the user to review, using the tools.",
        contract_text(),
        TIMES,
        REVIEW,
    ]
    return "\n".join(lines)


def time_context(*, timezone: str, now: datetime | None = None, locale: str | None = None) -> str:
    """The per-request end of the system prompt: the user's zone, the current time, their locale
    when known, and how their numeric dates ("3/1") are read."""
    lines = [f"The user's time zone is {timezone}."]
    if now is not None:
        lines.append(f"The current time is {now.isoformat()}.")
    if locale is not None:
        lines.append(f"The user's locale is {locale}.")
    lines.append(dates_rule(timezone=timezone, locale=locale))
    return "\n".join(lines)


def dates_rule(*, timezone: str, locale: str | None = None) -> str:
    """How the user's numeric dates are read, as the meeting tool reads them (``multitool.zones``)."""
    order = date_order(locale, timezone)
    if order.day_first is None:
        return (
            "Which comes first in the user's numeric dates (3/1) is not known: read them as month/day "
            "and say so, or ask."
        )
    first = "day/month (3/1 is 3 January)" if order.day_first else "month/day (3/1 is 1 March)"
    why = order.why.replace("your time zone", "the user's time zone")  # the note's words, for the model
    return f"The user's numeric dates are {first}, as dates are written in {why}."


def prompt_session_attributes(
    *, timezone: str, now: datetime | None = None, locale: str | None = None
) -> dict[str, str]:
    """The runtime prompt for InvokeAgent: ``sessionState.promptSessionAttributes`` (string values)."""
    attributes = {"rules": contract_text(), "timezone": timezone}
    if now is not None:
        attributes["now"] = now.isoformat()
    attributes["dates"] = dates_rule(timezone=timezone, locale=locale)
    return attributes
