"""What the tools on existing Jira issues share: the reference argument, the card's words, the
matching of a status or link type as the user said it.

The tools (:mod:`.jira_comment`, :mod:`.jira_transition`, :mod:`.jira_update`, :mod:`.jira_link`)
name an issue with an :class:`~multitool.toolkit.references.ItemRef` found by :mod:`.find`; their
confirms are in :mod:`.changes`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from multitool.toolkit.references import Item, ItemRef, ItemResolution, Match

MAX_COMMENT_CHARS = 10_000
ISSUE_NOUN = "Jira issue"

_CLOSING = frozenset(
    {"close", "closed", "done", "resolve", "resolved", "finish", "finished", "complete", "completed"}
)
_TARGET_STATUSES = ("Done", "Closed", "Resolved")


def issue_field(what: str = "The issue") -> Any:
    return Field(
        description=f"{what} as the user named it: its key in 'key' when said ('WEB-12'), else the "
        "words of its summary in 'words' ('the login crash ticket': words ['login', 'crash'])"
    )


def shown(found: ItemResolution) -> str:
    """'WEB-12 "Login crash on Safari"', or what was said when the card has to settle it."""
    if found.item is not None:
        return f'{found.item.id} "{found.item.fields.get("summary", "")}"'
    return f"'{found.query}'"


def unsettled(*found: ItemResolution) -> str:
    """' (pick the issue)' when a reference is still to settle on the card."""
    if all(f.status is Match.FOUND for f in found):
        return ""
    return " (pick the issue)" if any(f.status is Match.AMBIGUOUS for f in found) else " (no issue found)"


def _words(text: str) -> str:
    return " ".join(text.casefold().replace("-", " ").split())


def matching_transitions(said: str, offered: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The transitions of ``offered`` (``{id, name, toStatus}``) that what the user said names: by
    status ("In Review"), by name ("Start progress"), or closing words ("close", "resolve") for the
    one that leads to Done, Closed or Resolved."""
    said_words = _words(said)
    for wanted in dict.fromkeys((said_words, said_words.removeprefix("to ").removeprefix("the "))):
        exact = [t for t in offered if wanted in (_words(str(t["toStatus"])), _words(str(t["name"])))]
        if exact:  # "To Do" is a status before "to" is a word of the sentence ("move it to done")
            return exact
    wanted = said_words.removeprefix("to ").removeprefix("the ")
    if wanted in _CLOSING:
        for status in _TARGET_STATUSES:
            found = [t for t in offered if str(t["toStatus"]).casefold() == status.casefold()]
            if found:
                return found
    return [
        t
        for t in offered
        if wanted and (wanted in _words(str(t["name"])) or wanted in _words(str(t["toStatus"])))
    ]


def transition_for(said: str, item: Item | None) -> str | None:
    """The id of the one transition of ``item`` that ``said`` names, else None."""
    if item is None:
        return None
    found = matching_transitions(said, item.fields.get("transitions", []))
    ids = {str(t["id"]) for t in found}
    return ids.pop() if len(ids) == 1 else None


def already_there(said: str, item: Item | None) -> bool:
    """Whether ``item`` is already in the status ``said`` names (a transition made answers done)."""
    if item is None:
        return False
    status = _words(str(item.fields.get("status", "")))
    wanted = _words(said)
    return status == wanted or (wanted in _CLOSING and status in {s.casefold() for s in _TARGET_STATUSES})


def link_type_for(said: str, kinds: Sequence[Mapping[str, Any]]) -> tuple[str, bool] | None:
    """(the site's link type, whether the first issue is its source) for the link as said: its
    outward words ("blocks"), its inward words ("is blocked by"), or its name ("Relates")."""
    wanted = _words(said).removeprefix("as ")
    for kind in kinds:
        outward, inward, name = (_words(str(kind[k])) for k in ("outward", "inward", "name"))
        if wanted in (outward, name) or wanted == outward.removesuffix("s"):
            return str(kind["name"]), True
        if wanted in (inward, inward.removeprefix("is ")):
            return str(kind["name"]), False
    for kind in kinds:  # "relate", "duplicate": a word of the name or the outward words
        if wanted and (
            wanted in _words(str(kind["outward"])) or _words(str(kind["name"])).startswith(wanted[:5])
        ):
            return str(kind["name"]), True
    return None


def ref_of(said: str) -> ItemRef:
    return ItemRef.model_validate({"said": said})
