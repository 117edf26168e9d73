"""The offline grammar's requests on Jira issues that already exist: comment, move, update, link.

Read before the rest of the grammar (:func:`multitool.runtimes.offline.fields.read`): each clause
(:func:`multitool.runtimes.offline.grammar.pieces`) that asks for one of these takes it, with the
clauses that go on with it (a comment's text after a comma), and the rest of the message is read
as before. An issue is named by its key ("WEB-12") or by words with a ticket noun ("the login
crash ticket"); a clause that names neither is not one of these ("move my sync to Friday")::

    comment    := ("add" | "post" | "leave") "a"? ("comment" | "note") ("to" | "on") ISSUE
                  (":" | "saying") TEXT
                | "comment on" ISSUE (":" | "saying") TEXT
    transition := ("close" | "resolve" | "reopen" | "finish") ISSUE
                | ("move" | "set" | "put" | "mark" | "transition") ISSUE ("to" | "as" | "into") STATUS
    update     := "make" ISSUE PRIORITY "priority" ("and assign it to" NAME)?
                | ("assign" | "reassign") ISSUE "to" NAME | "rename" ISSUE "to" SUMMARY
                | ("label" | "tag") ISSUE ("as" | "with") LABEL
    link       := "link" ISSUE ("to" | "with" | "and") ISSUE ("as" LINK)?
                | ISSUE ("blocks" | "is blocked by" | "duplicates" | "relates to") ISSUE

The model passes what was said; the backend finds the issue (:mod:`multitool.tools.jira.find`).
"""

from __future__ import annotations

import re
from typing import Any

from multitool.runtimes.offline import grammar as g
from multitool.runtimes.offline.grammar import Intent

COMMENT_TOOL = "comment_on_jira_issue"
TRANSITION_TOOL = "transition_jira_issue"
UPDATE_TOOL = "update_jira_issue"
LINK_TOOL = "link_jira_issues"

_I = re.IGNORECASE
_KEY = re.compile(r"\b([A-Za-z][A-Za-z0-9]{1,9})-(\d{1,7})\b")
_TICKET = re.compile(r"\b(?:ticket|issue|bug|story|task|epic|jira)s?\b", _I)
_NOISE = frozenset(
    {"the", "a", "an", "my", "our", "that", "this", "ticket", "issue", "bug", "story", "task", "one", "jira"}
)
_PRIORITY = r"(?P<prio>highest|high|medium|low|lowest)"

_COMMENT = (
    re.compile(
        r"^(?:add|post|leave|put|write|drop)\s+(?:a\s+|another\s+)?(?:comment|note)\s+(?:to|on|in)\s+(?P<ref>.+?)"
        r"(?:\s*:\s*|\s+(?:saying|that\s+says|to\s+say|that)\s+)(?P<text>.+)$",
        _I,
    ),
    re.compile(r"^comment\s+on\s+(?P<ref>.+?)(?:\s*:\s*|\s+(?:saying|that)\s+)(?P<text>.+)$", _I),
)
_CLOSE = re.compile(r"^(?P<verb>close|resolve|reopen|finish|complete)\s+(?P<ref>.+)$", _I)
_MOVE = re.compile(
    r"^(?:move|set|put|mark|transition|change)\s+(?P<ref>.+?)\s+(?:to|as|into)\s+"
    r"(?P<status>[\w][\w -]{0,40})$",
    _I,
)
_MAKE_PRIORITY = re.compile(
    rf"^make\s+(?P<ref>.+?)\s+(?:an?\s+)?{_PRIORITY}(?:[\s-]+priority|\s+prio)?"
    r"(?:\s+and\s+(?:assign|give)\s+(?:it|that)\s+to\s+(?P<who>.+))?$",
    _I,
)
_SET_PRIORITY = re.compile(
    rf"^(?:set|change|bump|raise|lower)\s+(?:the\s+)?priority\s+(?:of|on|for)\s+(?P<ref>.+?)\s+to\s+{_PRIORITY}$",
    _I,
)
_ASSIGN = re.compile(r"^(?:assign|reassign|give)\s+(?P<ref>.+?)\s+to\s+(?P<who>.+)$", _I)
_RENAME = re.compile(r"^(?:rename|retitle)\s+(?P<ref>.+?)\s+(?:to|as)\s+(?P<summary>.+)$", _I)
_LABEL = re.compile(r"^(?:label|tag)\s+(?P<ref>.+?)\s+(?:as|with)\s+(?P<label>[\w-]+)$", _I)
_LINK = re.compile(r"^link\s+(?P<a>.+?)\s+(?:to|with|and)\s+(?P<b>.+?)(?:\s+as\s+(?P<kind>.+))?$", _I)
_KEYS_LINKED = re.compile(
    r"^(?:mark\s+)?(?P<a>[A-Za-z][A-Za-z0-9]{1,9}-\d{1,7})\s+(?:as\s+)?(?P<kind>blocks|is\s+blocked\s+by|"
    r"duplicates|is\s+duplicated\s+by|relates\s+to|clones)\s+(?P<b>[A-Za-z][A-Za-z0-9]{1,9}-\d{1,7})$",
    _I,
)
_IT = re.compile(r"^(?:it|that|that\s+one|this\s+one)$", _I)


def issue_ref(said: str) -> dict[str, Any] | None:
    """What the model would pass for an issue said so: its key, or its words; None when it names none."""
    said = " ".join(said.strip(" .,!?").split())
    key = _KEY.search(said)
    if key is not None:
        return {"said": said, "key": f"{key[1].upper()}-{key[2]}"}
    if _TICKET.search(said) is None:
        return None
    found = [w for w in re.findall(r"[\w']+", said) if w.casefold() not in _NOISE]
    return {"said": said, "words": found[:8]} if found else None


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:]


def request(text: str) -> Intent | None:
    """The request on an existing issue a clause asks for, or None."""
    for pattern in _COMMENT:
        found = pattern.match(text)
        if found and (ref := issue_ref(found["ref"])):
            return Intent(COMMENT_TOOL, text, {"issue": ref, "comment": _sentence(found["text"])})
    if (found := _KEYS_LINKED.match(text)) is not None:
        kind = " ".join(found["kind"].split())
        return Intent(
            LINK_TOOL, text, {"issue": issue_ref(found["a"]), "other": issue_ref(found["b"]), "link": kind}
        )
    if (found := _LINK.match(text)) and (a := issue_ref(found["a"])) and (b := issue_ref(found["b"])):
        kind = " ".join((found["kind"] or "relates to").split())
        return Intent(LINK_TOOL, text, {"issue": a, "other": b, "link": kind})
    if (found := _MAKE_PRIORITY.match(text) or _SET_PRIORITY.match(text)) and (
        ref := issue_ref(found["ref"])
    ):
        args: dict[str, Any] = {"issue": ref, "priority": found["prio"].capitalize()}
        who = found.groupdict().get("who")
        if who:
            args["assignee"] = who.strip(" .")
        return Intent(UPDATE_TOOL, text, args, names=[args["assignee"]] if who else [])
    if (found := _ASSIGN.match(text)) and (ref := issue_ref(found["ref"])):
        who = found["who"].strip(" .")
        return Intent(UPDATE_TOOL, text, {"issue": ref, "assignee": who}, names=[who])
    if (found := _RENAME.match(text)) and (ref := issue_ref(found["ref"])):
        return Intent(UPDATE_TOOL, text, {"issue": ref, "summary": found["summary"].strip(" .\"'")})
    if (found := _LABEL.match(text)) and (ref := issue_ref(found["ref"])):
        return Intent(UPDATE_TOOL, text, {"issue": ref, "labelsAdd": [found["label"]]})
    if (found := _CLOSE.match(text)) and (ref := issue_ref(found["ref"])):
        verb = found["verb"].casefold()
        return Intent(TRANSITION_TOOL, text, {"issue": ref, "status": "Reopen" if verb == "reopen" else verb})
    if (found := _MOVE.match(text)) and (ref := issue_ref(found["ref"])):
        return Intent(TRANSITION_TOOL, text, {"issue": ref, "status": found["status"].strip()})
    return None


def _more(before: Intent, text: str) -> bool:
    """Whether a clause adds to the request before it: "... and assign it to Priya"."""
    found = _ASSIGN.match(text)
    if before.tool == UPDATE_TOOL and found is not None and _IT.match(found["ref"].strip()):
        who = found["who"].strip(" .")
        before.args["assignee"] = who
        before.names.append(who)
        return True
    return False


def take(message: str) -> tuple[list[Intent], str]:
    """(the requests on existing issues, the rest of the message for the rest of the grammar)."""
    intents: list[Intent] = []
    kept: list[str] = []
    current: Intent | None = None
    for piece in g.pieces(message):
        preamble = g._PREAMBLE.match(piece.text)
        text = piece.text[preamble.end() if preamble else 0 :].strip()
        if current is not None and _more(current, text):
            continue
        found = request(text)
        if found is not None:
            intents.append(found)
            current = found
            continue
        if (
            current is not None
            and current.tool == COMMENT_TOOL
            and not piece.hard
            and g.trigger(text) is None
        ):
            current.args["comment"] += piece.joiner + piece.text  # the comment's text goes on
            continue
        current = None
        kept.append((_joined(piece) if kept else "") + piece.text)
    return (intents, "".join(kept)) if intents else ([], message)


def _joined(piece: g.Piece) -> str:
    """The boundary before a clause kept, as the rest of the grammar reads it again: a new
    sentence stays one ("meet at 4. Then email Priya")."""
    if not piece.hard:
        return piece.joiner
    words = piece.joiner.strip(" ;.!?")
    return f". {words} " if words else ". "
