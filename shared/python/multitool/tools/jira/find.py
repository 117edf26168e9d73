"""Finding the Jira issue a reference names, among the issues the caller may see.

A reference is a key ("WEB-12": read directly, ``GET /rest/api/3/issue/{key}``) or words ("the
login crash ticket": ONE JQL search per turn for every worded reference, ``text ~ "..."`` within
the permitted projects, the most recently updated first; each reference's own ranked among the
answers by :func:`multitool.toolkit.references.rank`). The permitted projects are the configured
ones (``JIRA_PROJECTS``) that the account reading may browse: Jira itself answers only what that
account may see (with Jira as the user, the user's own permissions), and a key outside the
configured projects is not read at all. An issue that is not permitted and one that does not
exist are the same answer, "no issue of yours matches": nothing tells another project's issue
exists.

The transition tool's finder (:data:`find_with_transitions`) also reads the transitions each issue
it offers has now (the card offers them, read from Jira, never a list of its own); the link tool's
(:data:`find_with_link_types`) the site's link types, once per turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from multitool.ports.jira import JiraError, JiraRateLimited, JiraUnavailable
from multitool.ports.tokens import ProviderError, ProviderRefused, ProviderThrottled, ProviderUnavailable
from multitool.toolkit.references import (
    FindContext,
    Item,
    ItemRef,
    ItemResolution,
    Match,
    rank,
    resolution,
    words_of,
)

if TYPE_CHECKING:
    from multitool.ports.atlassian.jira_issues import IssueView, JiraReader

KEY = re.compile(r"\b([A-Za-z][A-Za-z0-9_]{0,31})-(\d{1,9})\b")
_NOISE = frozenset(
    {"the", "ticket", "issue", "bug", "task", "story", "jira", "my", "a", "an", "one", "about"}
)


def issue_key(ref: ItemRef) -> str | None:
    """The key a reference names: its ``key`` hint, else one written in what the user said."""
    for text in (ref.key, ref.said):
        found = KEY.search(text or "")
        if found:
            return f"{found[1].upper()}-{int(found[2])}"
    return None


def ref_text(ref: ItemRef) -> str:
    """What a worded reference searches for: its words, else what was said less the filler."""
    if ref.words:
        return " ".join(ref.words)
    return " ".join(w for w in re.findall(r"\w+", ref.said) if w.casefold() not in _NOISE)


def item_of(issue: IssueView) -> Item:
    """An issue as a card shows it; ``updated`` is its version."""
    return Item(
        kind="issue",
        id=issue.key,
        label=f"{issue.key}: {issue.summary} ({issue.status})",
        version=issue.updated,
        fields={
            "key": issue.key,
            "summary": issue.summary,
            "status": issue.status,
            "assignee": issue.assignee,
            "priority": issue.priority,
            "labels": list(issue.labels),
            "dueDate": issue.due_date,
        },
    )


def reader(reads: FindContext) -> JiraReader:
    if reads.ports.jira is None:
        raise ProviderRefused(
            "atlassian", "Jira is not configured in this deployment: no issue can be found."
        )
    return reads.ports.jira


def find_issues(refs: Sequence[ItemRef], reads: FindContext) -> list[ItemResolution]:
    """One resolution per reference: keys read directly, every worded one from one search."""
    jira = reader(reads)
    projects = sorted(reads.config.jira_projects) if reads.config is not None else []
    keys = [issue_key(ref) for ref in refs]
    worded = [ref_text(ref) for ref, key in zip(refs, keys, strict=True) if key is None]
    try:
        read = {key: _permitted(jira, key, projects) for key in dict.fromkeys(k for k in keys if k)}
        found = jira.search(worded, projects) if worded else []
    except JiraError as error:
        raise provider_error(error) from error
    answers = []
    for ref, key in zip(refs, keys, strict=True):
        if key is not None:
            issue = read[key]
            answers.append(resolution(ref.said, [item_of(issue)] if issue is not None else []))
            continue
        # The search already narrowed to the permitted projects; each reference keeps its own words.
        words = ref.model_copy(update={"words": ref.words or ref_text(ref).split()[:8]})
        ranked = rank(
            [item_of(i) for i in found],
            words,
            lambda item: f"{item.fields['summary']} {item.fields['key']}",
            newest=lambda item: item.version,
        )
        answers.append(resolution(ref.said, best(ranked, words.words)))
    return answers


def best(ranked: list[Item], said: Sequence[str]) -> list[Item]:
    """The issues that match the most of the words said ("login crash": the one with both words
    is meant, not every issue about a login); the order of :func:`rank` kept."""
    wanted = {w for word in said for w in words_of(word)}

    def hits(item: Item) -> int:
        return len(wanted & words_of(f"{item.fields['summary']} {item.fields['key']}"))

    top = max((hits(item) for item in ranked), default=0)
    return [item for item in ranked if hits(item) == top]


def _permitted(jira: JiraReader, key: str, projects: Sequence[str]) -> IssueView | None:
    """The issue ``key`` when its project is permitted and the account may browse it, else None."""
    if key.rpartition("-")[0] not in projects:
        return None  # not read: a project outside the configured ones is never asked about
    issue = jira.issue(key)
    return issue if issue is not None and issue.project in projects else None


def with_extra(extra: Callable[[JiraReader, list[ItemResolution]], list[ItemResolution]]) -> Any:
    def finder(refs: Sequence[ItemRef], reads: FindContext) -> list[ItemResolution]:
        answers = find_issues(refs, reads)
        try:
            return extra(reader(reads), answers)
        except JiraError as error:
            raise provider_error(error) from error

    return finder


def _add_transitions(jira: JiraReader, answers: list[ItemResolution]) -> list[ItemResolution]:
    """Each offered issue with the transitions it has now (one read per issue offered)."""
    out = []
    for answer in answers:
        items = [
            _with(
                item,
                transitions=[
                    {"id": t.id, "name": t.name, "toStatus": t.to_status} for t in jira.transitions(item.id)
                ],
            )
            for item in answer.offered
        ]
        out.append(_replaced(answer, items))
    return out


def _add_link_types(jira: JiraReader, answers: list[ItemResolution]) -> list[ItemResolution]:
    """Each offered issue with the site's link types (one read per turn)."""
    if not any(answer.offered for answer in answers):
        return answers
    kinds = [{"name": t.name, "outward": t.outward, "inward": t.inward} for t in jira.link_types()]
    return [
        _replaced(answer, [_with(item, linkTypes=kinds) for item in answer.offered]) for answer in answers
    ]


def _with(item: Item, **fields: Any) -> Item:
    return Item(
        kind=item.kind, id=item.id, label=item.label, version=item.version, fields={**item.fields, **fields}
    )


def _replaced(answer: ItemResolution, items: list[Item]) -> ItemResolution:
    if answer.status is Match.FOUND:
        return ItemResolution(query=answer.query, status=answer.status, item=items[0])
    return ItemResolution(query=answer.query, status=answer.status, candidates=tuple(items))


find_with_transitions = with_extra(_add_transitions)
find_with_link_types = with_extra(_add_link_types)


def provider_error(error: JiraError) -> ProviderError:
    """A Jira read's failure as the batch answers a refused read (the calls that needed it only)."""
    if isinstance(error, JiraRateLimited):
        return ProviderThrottled("atlassian", error.reason, retry_after=error.retry_after)
    if isinstance(error, JiraUnavailable):  # unreachable, 5xx (a read's unknown outcome is retried)
        return ProviderUnavailable("atlassian", error.reason)
    return ProviderRefused("atlassian", error.reason)  # credentials, a refused request


__all__ = [
    "find_issues",
    "find_with_link_types",
    "find_with_transitions",
    "issue_key",
    "item_of",
]
