"""A card as a Block Kit message, for any card type, from its model's fields.

One message per card (:func:`card_message`): the caption, then each field the card model adds to
:class:`multitool.toolkit.cards.Card`, drawn by the type of its value, never by the card's type:

- a person (:class:`multitool.people.NameResolution`, or a tuple of them): the name with the
  person's local time and day now (``Priya Raman · 14:05 Thu``), and for a name that matches
  several people a ``static_select`` of the candidates (``pick:<field>:<index>``);
- a tuple of time slots (values with ``start`` and ``end``): a ``static_select`` of them, in the
  card's ``timezone`` field when it has one;
- a text: a line, or its own section when long; a number, an enum: a line;
- ``notes``: a context block of what the user still has to settle.

Then Confirm, Edit and Discard. A card type that needs more names a :class:`CardHook` in
:data:`HOOKS` (fields to leave out, blocks to add); a new card type renders with no change here.

Block Kit's limits (https://docs.slack.dev/reference/block-kit/blocks/section-block/: 3000
characters of section text; https://docs.slack.dev/reference/block-kit/block-elements/select-menu-element/:
100 options; 50 blocks a message; 75 characters of button and option text) are held by truncating,
with a link to the page for the whole card, never by a failed post. The blocks are built with
``slack_sdk.models.blocks``, whose ``to_dict()`` checks those limits again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from enum import Enum
from typing import Any
from zoneinfo import ZoneInfo

import msgspec
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    MarkdownTextObject,
    Option,
    SectionBlock,
    StaticSelectElement,
)

from multitool.people import NameResolution, Person, Resolution
from multitool.toolkit.cards import Card, day_words
from multitool.zones import iana_zone

MAX_SECTION_CHARS = 3000
MAX_BLOCKS = 50
MAX_OPTIONS = 100
MAX_OPTION_CHARS = 75
MAX_FALLBACK_CHARS = 3000
LONG_TEXT_CHARS = 120
"""A text longer than this gets a section of its own."""

CONFIRM, EDIT, DISCARD, SLOT, PICK = "confirm", "edit", "discard", "slot", "pick"
ACTION_PREFIX = "mt:"


class CardHook(msgspec.Struct, frozen=True):
    """What one card type adds to the generic rendering."""

    hidden: frozenset[str] = frozenset()
    """Fields not drawn (what only the page's detail view shows)."""
    extra: Callable[[Card], Sequence[Block]] | None = None
    """Blocks after the fields."""


HOOKS: dict[str, CardHook] = {
    # The meeting's search details and each person's side of each slot are the page's detail view.
    "show_meeting_scheduler": CardHook(
        hidden=frozenset({"times", "requested_timezone", "slot_notes", "slot_checks", "requested"})
    ),
}


class Message(msgspec.Struct, frozen=True):
    """A message: its notification text and its blocks (Block Kit JSON)."""

    text: str
    blocks: tuple[dict[str, Any], ...]


def escaped(text: str) -> str:
    """Text as Slack shows it literally: ``&``, ``<`` and ``>`` escaped (Slack's formatting rules)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def clipped(text: str, limit: int, more: str = "…") -> str:
    return text if len(text) <= limit else text[: max(0, limit - len(more))] + more


def action_id(kind: str, *parts: str) -> str:
    return ":".join((ACTION_PREFIX + kind, *parts))


def label(name: str) -> str:
    """``issue_type`` -> ``Issue type``."""
    words = name.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def local_time(person: Person, now: datetime) -> str:
    """The person's time and day now: ``14:05 Thu``."""
    zone = iana_zone(person.timezone) or UTC
    here = now.astimezone(zone if isinstance(zone, ZoneInfo) else UTC)
    return f"{here:%H:%M} {day_words(here).split(' ', 1)[0]}"


def person_words(resolution: NameResolution, now: datetime) -> str:
    person = resolution.person
    if resolution.status is Resolution.RESOLVED and person is not None:
        return f"{escaped(person.display_name)} · {local_time(person, now)}"
    if resolution.status is Resolution.AMBIGUOUS:
        return f"{escaped(resolution.query)} (matches {len(resolution.candidates)} people: pick one below)"
    return f"{escaped(resolution.query)} (no one by that name: edit the card)"


def _is_slot(value: Any) -> bool:
    return isinstance(getattr(value, "start", None), datetime) and isinstance(
        getattr(value, "end", None), datetime
    )


def slot_words(slot: Any, zone_name: str | None) -> str:
    zone = iana_zone(zone_name) if zone_name else None
    start, end = slot.start, slot.end
    if isinstance(zone, ZoneInfo):
        start, end = start.astimezone(zone), end.astimezone(zone)
    return f"{day_words(start)} {start:%H:%M}-{end:%H:%M}"


def _option(text: str, value: str) -> Option:
    return Option(value=value[:150], text=clipped(text, MAX_OPTION_CHARS))


class _Builder:
    """The blocks of one card, within Block Kit's limits."""

    def __init__(self, card: Card, page_url: str | None, now: datetime, settled: bool = False) -> None:
        self.card = card
        self.settled = settled
        self.page_url = page_url
        self.now = now
        self.lines: list[str] = []
        self.blocks: list[Block] = []
        self.selects: list[StaticSelectElement] = []
        self.truncated = False

    def more(self) -> str:
        if self.page_url:
            return f"… <{self.page_url}|see the whole card on the page>"
        return "… (the page shows the whole card)"

    def section(self, text: str) -> None:
        if len(text) > MAX_SECTION_CHARS:
            self.truncated = True
            text = clipped(text, MAX_SECTION_CHARS, self.more())
        self.blocks.append(SectionBlock(text=MarkdownTextObject(text=text)))

    def flush(self) -> None:
        if self.lines:
            self.section("\n".join(self.lines))
            self.lines = []

    def field(self, name: str, value: Any) -> None:
        if value is None or value == () or value == "":
            return
        title = f"*{label(name)}:*"
        if isinstance(value, NameResolution):
            value = (value,)
        if isinstance(value, tuple) and all(isinstance(v, NameResolution) for v in value):
            self.lines.append(f"{title} " + "; ".join(person_words(v, self.now) for v in value))
            for index, resolution in enumerate(value):
                if resolution.status is Resolution.AMBIGUOUS:
                    self.pick(name, index, resolution)
            return
        if isinstance(value, tuple) and all(_is_slot(v) for v in value):
            shown_in = getattr(self.card, "timezone", None)
            zone = shown_in if isinstance(shown_in, str) else None
            if self.settled:  # the slot booked: its time, no choice left
                self.lines.append(f"{title} " + "; ".join(escaped(slot_words(v, zone)) for v in value))
                return
            self.slots(value, zone)
            self.lines.append(f"{title} {len(value)} to choose from, below" + (f" ({zone})" if zone else ""))
            return
        if isinstance(value, Enum):
            value = value.value
        if isinstance(value, str) and (len(value) > LONG_TEXT_CHARS or "\n" in value):
            self.flush()
            self.section(f"{title}\n{escaped(value)}")
            return
        if isinstance(value, tuple):
            value = ", ".join(str(v) for v in value)
        self.lines.append(f"{title} {escaped(str(value))}")

    def pick(self, name: str, index: int, resolution: NameResolution) -> None:
        options = [_option(f"{p.display_name} ({p.email})", p.id) for p in resolution.candidates]
        self.selects.append(
            StaticSelectElement(
                action_id=action_id(PICK, name, str(index)),
                placeholder=clipped(f"Which {resolution.query}?", 150),
                options=self.capped(options),
            )
        )

    def slots(self, slots: Sequence[Any], zone: str | None) -> None:
        options = [_option(slot_words(slot, zone), str(i)) for i, slot in enumerate(slots)]
        self.selects.append(
            StaticSelectElement(
                action_id=action_id(SLOT), placeholder="Choose a time", options=self.capped(options)
            )
        )

    def capped(self, options: list[Option]) -> list[Option]:
        if len(options) > MAX_OPTIONS:
            self.truncated = True
            return options[:MAX_OPTIONS]
        return options


def _buttons(card: Card) -> ActionsBlock:
    return ActionsBlock(
        block_id="buttons",
        elements=[
            ButtonElement(text="Confirm", action_id=action_id(CONFIRM), value=card.id, style="primary"),
            ButtonElement(text="Edit", action_id=action_id(EDIT), value=card.id),
            ButtonElement(text="Discard", action_id=action_id(DISCARD), value=card.id, style="danger"),
        ],
    )


def card_fields(card: Card) -> list[tuple[str, Any]]:
    """The card's own fields (those its model adds to :class:`Card`), in the model's order."""
    hook = HOOKS.get(card.type, CardHook())
    return [
        (name, getattr(card, name))
        for name in type(card).model_fields
        if name not in Card.model_fields and name not in hook.hidden
    ]


def card_message(
    card: Card,
    caption: str,
    *,
    page_url: str | None = None,
    now: datetime | None = None,
    owner: str | None = None,
    outcome: str | None = None,
) -> Message:
    """The message of one card: its fields, its choices and its buttons; with ``outcome`` (after a
    confirm or a discard) the fields and the outcome, without buttons or choices."""
    moment = now or datetime.now(UTC)
    builder = _Builder(card, page_url, moment, settled=outcome is not None)
    head = f"*{escaped(caption)}*" + (f" (for <@{owner}>)" if owner else "")
    builder.lines.append(head)
    for name, value in card_fields(card):
        builder.field(name, value)
    builder.flush()
    hook = HOOKS.get(card.type)
    if hook is not None and hook.extra is not None:
        builder.blocks.extend(hook.extra(card))  # noqa: S610 (not Django)
    tail: list[Block] = []
    if card.notes and outcome is None:
        notes = "\n".join(f"• {escaped(n)}" for n in card.notes)
        tail.append(ContextBlock(elements=[MarkdownTextObject(text=clipped(notes, MAX_SECTION_CHARS))]))
    if outcome is not None:
        tail.append(SectionBlock(text=MarkdownTextObject(text=clipped(outcome, MAX_SECTION_CHARS))))
    else:
        if builder.selects:
            tail.append(ActionsBlock(block_id="choices", elements=builder.selects[:25]))
        tail.append(_buttons(card))
    blocks = builder.blocks
    room = MAX_BLOCKS - len(tail) - 1
    if len(blocks) > room:
        builder.truncated = True
        blocks = blocks[:room]
    if builder.truncated:
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=builder.more().lstrip("… "))]))
    built = tuple(block.to_dict() for block in (*blocks, *tail))
    return Message(text=clipped(caption, MAX_FALLBACK_CHARS), blocks=built)


def outcome_words(held: str, status: str, result: Mapping[str, Any] | None, error: str | None) -> str:
    """What a confirm or a discard did, for the card's message (``Created <url|WEB-12>``)."""
    if status == "discarded":
        return ":wastebasket: Discarded: nothing was sent, booked or created."
    if status == "superseded":
        return ":arrows_counterclockwise: Replaced by a revised card."
    if status == "failed":
        return f":warning: Not done: {escaped(error or 'the action failed')}. It can be confirmed again."
    if status != "done":
        return f":hourglass: {escaped(status)}"
    found = result or {}
    links = [
        f"<{value}|{escaped(str(found.get(key[:-3] + 'Key') or 'open'))}>"
        for key, value in found.items()
        if key.endswith("Url") and isinstance(value, str) and value.startswith("https://")
    ]
    sandbox = " (sandbox: nothing real was sent)" if (result or {}).get("sandbox") else ""
    return f":white_check_mark: {held.capitalize()}" + (f" {' '.join(links)}" if links else "") + sandbox


def replaced_message(caption: str) -> Message:
    """A card a revision replaced: its caption struck through, and where the revision is."""
    words = f"~{escaped(caption)}~\n:arrows_counterclockwise: Replaced by the revised card below."
    block = SectionBlock(text=MarkdownTextObject(text=clipped(words, MAX_SECTION_CHARS)))
    return Message(text=clipped(f"Replaced: {caption}", MAX_FALLBACK_CHARS), blocks=(block.to_dict(),))


def text_message(text: str) -> Message:
    """Plain words as a message (the reply of a turn, a refusal), within a section's limit."""
    return Message(text=clipped(text, MAX_FALLBACK_CHARS), blocks=())


CONNECT = "connect"
MAX_BUTTON_URL_CHARS = 3000
"""A button's ``url``: https://docs.slack.dev/reference/block-kit/block-elements/button-element/ (3000)."""
AFTER_TURN = "Ask me again once it is connected; the cards posted here stay as they are."
AFTER_CONFIRM = "The card stays as it is: confirm it again once the account is connected."


def connect_message(
    provider_name: str, authorization_url: str, *, after: str = AFTER_TURN, page_url: str | None = None
) -> Message:
    """The connect card: which account, and a link button to the consent (the same AgentCore Identity
    flow as the page's card). The provider returns to the chat page, where the person signs in and the
    page finishes the consent for them only (:mod:`multitool.review.accounts`). ``after``: what happens
    to the turn's or the card's drafts. A link button still sends a ``block_actions`` to the app, which
    ignores it (no draft behind it)."""
    name = escaped(provider_name)
    words = (
        f"*Connect your {name} account* to go on: nothing was sent. The link opens {name}'s consent; "
        f"then sign in to the chat page, which finishes it for you. {escaped(after)}"
    )
    blocks: list[Block] = [SectionBlock(text=MarkdownTextObject(text=clipped(words, MAX_SECTION_CHARS)))]
    if len(authorization_url) <= MAX_BUTTON_URL_CHARS:
        button = ButtonElement(
            text=clipped(f"Connect {provider_name}", MAX_OPTION_CHARS),
            action_id=action_id(CONNECT),
            url=authorization_url,
            style="primary",
        )
        blocks.append(ActionsBlock(block_id="connect", elements=[button]))
    else:  # never in practice (AgentCore's link is short): the page asks again with its own card
        where = f"<{page_url}|the chat page>" if page_url else "the chat page"
        blocks.append(
            ContextBlock(elements=[MarkdownTextObject(text=f"Ask there from {where} to connect it.")])
        )
    text = f"Connect your {provider_name} account to go on: nothing was sent."
    return Message(text=clipped(text, MAX_FALLBACK_CHARS), blocks=tuple(b.to_dict() for b in blocks))
