"""What the offline model remembers of a conversation: its cards (with draft ids) and last request.

It keeps nothing itself. Each turn it reads again the messages it is sent: every earlier
user message is read as the grammar reads it (requests and edits), and the cards that
turn produced are matched to those requests by tool, in order. The draft ids come from
what the runtimes put in the conversation: the ``[cards: <id> <tool>: …]`` line the chat
service adds to an assistant reply (Converse, offline-converse), or the ``toolResult``
payloads the harness keeps (offline, AgentCore).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from multitool.runtimes.offline import answers, edits, fields
from multitool.runtimes.offline import grammar as g
from multitool.runtimes.offline import lexicon as words
from multitool.runtimes.offline.edits import Card
from multitool.runtimes.offline.grammar import Intent
from multitool.tools import REGISTRY

_CARD = re.compile(r"(?:\[cards:\s*|;\s*)(?P<id>[\w-]+)\s+(?P<tool>[a-z_]+):")


class Memory(msgspec.Struct):
    cards: list[Card] = msgspec.field(default_factory=list)
    last: Intent | None = None


def _blocks(message: Any) -> list[Mapping[str, Any]]:
    if not isinstance(message, Mapping):
        return []
    return [b for b in message.get("content") or [] if isinstance(b, Mapping)]


def user_text(message: Any) -> str | None:
    """A user message's text, or None for tool results and assistant messages."""
    if not isinstance(message, Mapping) or message.get("role") != "user":
        return None
    text = " ".join(b["text"] for b in _blocks(message) if isinstance(b.get("text"), str))
    return text or None


def card_ids(message: Any) -> list[tuple[str, str]]:
    """(tool, draft id) of every card a message names, in order."""
    found: list[tuple[str, str]] = []
    for block in _blocks(message):
        if isinstance(block.get("text"), str):
            found += [(m.group("tool"), m.group("id")) for m in _CARD.finditer(block["text"])]
        result = block.get("toolResult")
        if isinstance(result, Mapping):
            for content in result.get("content") or []:
                body = content.get("json") if isinstance(content, Mapping) else None
                if isinstance(body, Mapping) and isinstance(body.get("draftId"), str):
                    tool = REGISTRY.by_action(str(body.get("action")))
                    if tool is not None:
                        found.append((tool.name, body["draftId"]))
    return found


_KEY_PLACE = re.compile(
    rf"\b(?:in|into|under)\s+(?P<after>[a-z][a-z0-9]{{1,4}})\b|\b(?P<before>[a-z][a-z0-9]{{1,4}})\s+(?:{g._TICKET_NOUN})\b"
)


def calmed(text: str) -> str:
    """A message written all in capitals, in lower case (names are then found as the directory
    knows them), but for the words where a project key stands ("IN OPS", "AN OPS INCIDENT")."""
    if not any(ch.isalpha() for ch in text) or any(ch.islower() for ch in text):
        return text
    lowered = "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)
    for match in _KEY_PLACE.finditer(lowered):
        group = "after" if match.group("after") else "before"
        if match.group(group) not in words.NOT_NAMES:
            lowered = (
                lowered[: match.start(group)]
                + text[match.start(group) : match.end(group)]
                + lowered[match.end(group) :]
            )
    return lowered


_SHOUTED = re.compile(r"\b[^\W\d_a-zà-ÿ]{2,}(?:['\u2019-][^\W\d_a-zà-ÿ]+)*\b")


def recased(text: str, lookup: g.Lookup | None) -> str:
    """A message's words in capitals that the directory knows as people, written as names
    ("email MEI and KINSHUOK" -> "email Mei and Kinshuok"); a project key ("OPS") is no one and
    stays as it is. One lookup for all of them."""
    shouted = [m for m in _SHOUTED.finditer(text) if not m.group(0).isascii() or m.group(0).isalpha()]
    if lookup is None or not shouted or not any(ch.islower() for ch in text):
        return text
    known = set(lookup(sorted({m.group(0).casefold() for m in shouted})))
    if not known:
        return text
    return _SHOUTED.sub(
        lambda m: m.group(0).capitalize() if m.group(0).casefold() in known else m.group(0), text
    )


def interpret(
    text: str, memory: Memory, lookup: g.Lookup | None
) -> tuple[list[Intent], list[str], str | None]:
    """(requests, clauses not understood, why an edit could not be made) for one user message."""
    text = recased(calmed(text), lookup)
    revision, refusal = edits.revise(text, memory.cards, lookup)
    if revision is not None:
        return [revision], [], None
    if refusal is not None:
        return [], [], refusal
    answering, rest = answers.read_answers(text)
    if not answering:
        reading = fields.read(text, memory.last, lookup)
        return reading.intents, reading.unread, None
    intents = [intent for _, intent in answering]
    if not rest:
        return intents, [], None
    others = fields.read(rest, memory.last, lookup)
    # A reply or forward said first stays first ("reply to Priya's email and file a WEB bug").
    first = answering[0][0] == 0
    ordered = [*intents, *others.intents] if first else [*others.intents, *intents]
    return ordered, others.unread, None


def _record(memory: Memory, intents: Sequence[Intent], ids: Sequence[tuple[str, str]]) -> None:
    waiting = list(ids)
    for intent in intents:
        if not intent.callable:
            continue
        match = next((pair for pair in waiting if pair[0] == intent.tool), None)
        if match is not None:
            waiting.remove(match)
        if intent.revises is not None:
            if match is None:
                continue  # the tool refused the change: the card it would have replaced still stands
            memory.cards = [c for c in memory.cards if c.id != intent.revises]
        args = {k: v for k, v in intent.args.items() if k != "revises"}
        memory.cards.append(
            Card(intent.tool, args, match[1] if match else None, list(intent.names), intent.topic)
        )
    if intents:
        memory.last = intents[-1]


def remember(messages: Sequence[Any], lookup: g.Lookup | None) -> Memory:
    """The cards and last request of the earlier messages of a conversation."""
    memory = Memory()
    pending: list[Intent] = []
    ids: list[tuple[str, str]] = []
    for message in messages:
        text = user_text(message)
        if text is None:
            ids += card_ids(message)
            continue
        _record(memory, pending, ids)
        pending, ids = interpret(text, memory, lookup)[0], []
    _record(memory, pending, ids)
    return memory
