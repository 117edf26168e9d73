"""Replies and forwards in the offline grammar: "reply to Priya's email about the budget: sounds good",
"reply all and say I'm in", "forward the invoice from Mei to accounting@acme.com with a note".

Read before the rest of the grammar (:func:`multitool.runtimes.offline.conversation.interpret`): a
clause that starts with "reply" or "forward" is one request for ``reply_to_email`` or
``forward_email``; the clauses around it ("... and file a WEB bug for what she reported") are read by
the grammar as always. The message is passed as the user said it (an
:class:`~multitool.toolkit.references.ItemRef`): the names in it ("Priya's", "from Mei") as
``people``, its other content words ("budget", "invoice") as ``words``; the backend finds it.
"""

from __future__ import annotations

import re

from multitool.runtimes.offline.grammar import Intent
from multitool.tools.email import email_forward, email_reply

REPLY_TOOL = email_reply.SPEC.name
FORWARD_TOOL = email_forward.SPEC.name
ACKNOWLEDGED = "Thanks, I'm on it."
"""The reply's text when the user said none ("reply to Priya's email and file a bug"): the card's
text field is there to change it, and nothing is sent until the user confirms."""

_I = re.IGNORECASE
_SPLIT = re.compile(
    r"(?:[,;.]\s*|\s+)(?:and\s+(?:then\s+)?|then\s+|also\s+)(?=(?:please\s+)?(?:file|log|raise|create|open|"
    r"email|schedule|book|set\s+up|send|forward|reply|put|make|add)\b)",
    _I,
)
_LEAD = r"^\s*(?:(?:please|can\s+you|could\s+you|and|then|also)[,\s]+)*"
_REPLY = re.compile(
    _LEAD + r"(?:write\s+(?:a\s+)?)?reply(?:ing)?(?P<all>\s+(?:to\s+)?(?:all|everyone))?"
    r"(?:\s+(?:to|on)\s+(?P<ref>.+?))?"
    r"(?:(?:\s*:\s*|\s*,?\s+(?:and\s+)?(?:say(?:ing)?|tell(?:ing)?\s+(?:her|him|them)|with)\s+(?:that\s+)?)"
    r"(?P<body>.+))?$",
    _I,
)
_FORWARD = re.compile(
    _LEAD + r"(?:forward|fwd)\s+(?P<ref>.+?)\s+to\s+(?P<to>.+?)"
    r"(?:\s+with\s+(?:a\s+|the\s+)?note(?:\s+(?:saying|that)\s+|\s*:\s*)?(?P<note>.*)|\s*:\s*(?P<body>.+))?$",
    _I,
)
_NAME = re.compile(r"\b(?P<name>[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)(?:'s|\u2019s)\b")
_FROM = re.compile(r"\b(?:from|by|with)\s+(?P<name>[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?|[\w.+-]+@[\w.-]+)")
_GENERIC = frozenset(
    (
        "a",
        "an",
        "the",
        "my",
        "her",
        "his",
        "their",
        "our",
        "your",
        "last",
        "latest",
        "recent",
        "newest",
        "email",
        "emails",
        "mail",
        "message",
        "messages",
        "thread",
        "note",
        "from",
        "by",
        "with",
        "about",
        "on",
        "re",
        "to",
        "of",
        "it",
        "that",
        "this",
        "one",
    )
)


def _reference(said: str) -> dict[str, object]:
    text = said.strip().rstrip(".,;:")
    people = [m.group("name") for m in _NAME.finditer(text)]
    people += [m.group("name") for m in _FROM.finditer(text) if m.group("name") not in people]
    if not people and re.fullmatch(r"[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?", text):
        people = [text]  # "reply to Alex": the last message from Alex
    named = {w.casefold() for p in people for w in re.split(r"[\s@.]+", p)}
    words = [
        w
        for w in re.findall(r"[\w-]+", re.sub(r"(?:'s|\u2019s)\b", "", text))
        if w.casefold() not in _GENERIC and w.casefold() not in named and not w.isdigit()
    ]
    reference: dict[str, object] = {"said": text or "my last email"}
    if people:
        reference["people"] = people[:10]
    if words:
        reference["words"] = list(dict.fromkeys(words))[:8]
    return reference


def _reply(clause: str) -> Intent | None:
    match = _REPLY.match(clause)
    if match is None:
        return None
    ref, body = match.group("ref"), (match.group("body") or "").strip()
    if ref and not body and ":" in ref:
        ref, _, body = ref.partition(":")
    reference = _reference(ref or "my last email")
    args: dict[str, object] = {"message": reference, "body": _sentence(body) or ACKNOWLEDGED}
    if match.group("all"):
        args["replyAll"] = True
    names = list(reference.get("people", []))  # type: ignore[call-overload]
    return Intent(REPLY_TOOL, clause.strip(), args, names=names)


def _forward(clause: str) -> Intent | None:
    match = _FORWARD.match(clause)
    if match is None:
        return None
    to = [p.strip() for p in re.split(r"\s*(?:,|\band\b)\s*", match.group("to")) if p.strip()]
    reference = _reference(match.group("ref"))
    note = (match.group("note") or match.group("body") or "").strip()
    args: dict[str, object] = {"message": reference, "to": to}
    if note:
        args["note"] = _sentence(note)
    names = [*list(reference.get("people", [])), *to]  # type: ignore[call-overload]
    return Intent(FORWARD_TOOL, clause.strip(), args, names=names)


def _sentence(text: str) -> str:
    text = text.strip().strip("\"'“”")
    return text[:1].upper() + text[1:] if text else ""


def read_answers(text: str) -> tuple[list[tuple[int, Intent]], str]:
    """The reply and forward requests of a message (with their clause's place), and the rest of it."""
    clauses = _SPLIT.split(text)
    found: list[tuple[int, Intent]] = []
    rest: list[str] = []
    for index, clause in enumerate(clauses):
        intent = _forward(clause) or _reply(clause)
        if intent is not None:
            found.append((index, intent))
        else:
            rest.append(clause)
    return found, " and ".join(c.strip() for c in rest if c.strip())
