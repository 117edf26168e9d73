"""Links between the calls of one turn: what one call's text names of what another call will produce.

"File a WEB bug for the login crash and email Priya about it": the mail must name the ticket that
the other card creates once confirmed. In its ONE response the model gives the ticket call a
``label`` ("ticket") and writes ``{{ticket.key}}`` / ``{{ticket.url}}`` where the mail names it.

- A tool says what its card produces once confirmed (:attr:`multitool.toolkit.spec.ToolSpec.produces`:
  ``{"key": Produced(...), "url": Produced(...)}`` for a ticket; ``start``, ``when`` for a meeting)
  and which of its arguments may carry a placeholder (``ToolSpec.takes_links``: a mail's subject
  and body). Nothing here names a tool.
- The batch (:mod:`multitool.tools.linking`) checks every placeholder (the label is a call of this
  turn, not the call itself, the value one that kind produces, no cycle) and stores each as a
  :class:`Link` in the dependent card's payload (``links``), its text rewritten to the canonical
  ``{{label.value}}``.
- The review (:mod:`multitool.review.links`) confirms in order and fills the real values in.

The syntax is double braces around ``label.value``; spaces inside the braces and any letter case
are read (``{{ Ticket.Key }}``), and written back canonical. Double braces are what template
languages (Mustache, Jinja, Handlebars) use, so models write them without being shown twice.
"""

import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Annotated, Any, Final
from zoneinfo import ZoneInfo

import msgspec
from pydantic import Field, StringConstraints

from multitool.wire import WireModel

MAX_LABEL_CHARS: Final = 32
LABEL_PATTERN: Final = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"

CallLabel = Annotated[str, StringConstraints(strip_whitespace=True, pattern=LABEL_PATTERN)]
"""A call's label: a letter, then letters, digits, ``_`` or ``-``; at most 32 characters."""

PLACEHOLDER: Final = re.compile(
    r"\{\{\s*([A-Za-z][A-Za-z0-9_-]{0,63})\s*\.\s*([A-Za-z][A-Za-z0-9_]{0,31})\s*\}\}"
)
"""``{{label.value}}``, spaces inside the braces allowed, any case. In place of a label, a draftId
of an earlier card of the caller's (``{{d_0a34….key}}``): how a client that makes one call at a time
(an MCP client) links to the card its earlier call made."""
DRAFT_ID: Final = re.compile(r"^d_[0-9a-f]{32}$")

LABEL_HELP: Final = (
    "Optional: a short name for this call (a letter, then letters, digits, _ or -), so another call "
    "of this same turn can use what this one produces once the user confirms it, by writing "
    "{{label.value}} in its text."
)
LINKS_HELP: Final = (
    "give that call a label and write {{label.value}} where the value belongs (e.g. {{ticket.key}}, "
    "{{ticket.url}}, {{sync.when}}; an earlier card of yours by its draftId: {{d_....key}}): the card "
    "shows what it waits for, and the real value is filled in when the user confirms."
)


def label_field() -> Any:
    """The optional ``label`` argument every tool takes (:data:`LABEL_HELP`)."""
    return Field(default=None, description=LABEL_HELP)


def links_field() -> Any:
    """The payload's ``links``: what its text waits for (the batch writes them)."""
    return Field(default=(), description="Values of other cards of this turn this card's text waits for")


def canonical(label: str, value: str) -> str:
    """The placeholder as stored: ``{{ticket.key}}``."""
    return "{{" + f"{label}.{value}" + "}}"


class Produced(msgspec.Struct, frozen=True):
    """One value a kind of card produces once confirmed, declared by its tool.

    - ``description``: what it is, for the model ("the ticket's key, e.g. WEB-12").
    - ``fill``: the value from the confirm's result, in words for a reader in ``zone``.
    - ``preview``: what the card says until then, a template over the card's current fields
      (``{project}-?``; ``{slot.start|when}`` formats a time in the reader's zone; a field the
      edits lack reads the first of its plural on the card, the first slot offered). The page
      evaluates the same template over the card as the user edits it.
    - ``pending``: until when ("once the ticket is created").
    """

    description: str
    fill: Callable[[Mapping[str, Any], ZoneInfo], str]
    preview: str
    pending: str


class Link(WireModel):
    """One placeholder of a card's text: which card it waits for and which of its values it names."""

    field: str
    """The card's field holding it (``body``)."""
    waits_for: str
    """The draft id of the card it waits for."""
    label: str
    value: str
    placeholder: str
    """The text standing in for the value (``{{ticket.key}}``)."""
    kind: str
    """The action of the card it waits for (``show_jira_ticket_draft``)."""
    preview: str
    """What the card says until then: :attr:`Produced.preview`, evaluated on the other card as proposed."""
    pending: str
    template: str
    """:attr:`Produced.preview` itself, for a page to evaluate on the other card as it is edited."""
    zone: str = "UTC"
    """The zone the value is written in (the turn's)."""


def placeholders(text: str) -> list[tuple[str, str, str]]:
    """Every placeholder of ``text``: (as written, label, value), in order."""
    return [(m.group(0), m.group(1), m.group(2)) for m in PLACEHOLDER.finditer(text)]


_FIELD: Final = re.compile(r"\{([A-Za-z][A-Za-z0-9_.]*)(?:\|(when))?\}")


def _read(fields: Mapping[str, Any], path: str) -> Any:
    value: Any = fields
    for part in path.split("."):
        if isinstance(value, Mapping):
            found = value.get(part)
            if found is None and isinstance(value.get(part + "s"), list | tuple) and value[part + "s"]:
                found = value[part + "s"][0]
            value = found
        else:
            return None
    return value


def time_words(moment: datetime, zone: ZoneInfo, end: datetime | None = None) -> str:
    """'Thursday 10 December, 15:00-15:30 (America/New_York)': a time in words, in ``zone``."""
    start = moment.astimezone(zone)
    until = f"-{end.astimezone(zone):%H:%M}" if end is not None else ""
    return f"{start:%A} {start.day} {start:%B}, {start:%H:%M}{until} ({zone.key})"


def preview(template: str, fields: Mapping[str, Any], zone: ZoneInfo) -> str:
    """The template evaluated on a card's fields (:attr:`Produced.preview`)."""

    def one(match: re.Match[str]) -> str:
        value = _read(fields, match.group(1))
        if value is None or value == "":
            return "?"
        if match.group(2) == "when":
            try:
                return time_words(datetime.fromisoformat(str(value)), zone)
            except ValueError:
                return "?"
        return str(value)

    return _FIELD.sub(one, template)


def fill(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each placeholder ``values`` holds replaced by its value."""
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return text


def remove(text: str, gone: Iterable[str]) -> str:
    """``text`` without these placeholders: a line left empty goes, and a space left doubled."""
    gone = list(gone)
    lines = []
    for line in text.split("\n"):
        kept = line
        for placeholder in gone:
            kept = kept.replace(placeholder, "")
        if kept != line and not kept.strip():
            continue
        kept = re.sub(r"[ \t]{2,}", " ", kept)
        lines.append(re.sub(r"[ \t]+([.,;:!?)])", r"\1", kept))
    return "\n".join(lines).strip()
