"""The offline model: a deterministic development stand-in for a Bedrock model behind Converse.

:class:`OfflineModel` exposes ``converse(**kwargs)`` and answers in Converse's
response shape, so the real Converse loop, the product flow, the tools and the
page run with no AWS account (``make demo``, the tests). It is selected with
``RUNTIME=offline`` (behind the offline harness) or ``RUNTIME=offline-converse``
and is never placed in front of Bedrock in a deployment.

What it understands is a grammar, not language (:mod:`.grammar`, its words in
:mod:`.lexicon`, the fields of each request in :mod:`.fields`); it changes a card
by chat (:mod:`.edits`) and remembers the conversation by reading it again
(:mod:`.conversation`). It never guesses: what it cannot read, it says.
"""

from multitool.runtimes.offline import changes  # noqa: F401 - its readers join fields.READERS
from multitool.runtimes.offline.fields import read
from multitool.runtimes.offline.grammar import (
    EMAIL_TOOL,
    JIRA_TOOL,
    MEETING_TOOL,
    Intent,
    Reading,
    split_intents,
)
from multitool.runtimes.offline.model import HELP_TEXT, OfflineModel, _summary


def parse_intents(message: str, previous: Intent | None = None) -> list[Intent]:
    """The requests of a message, with arguments as a model would pass them (no directory)."""
    return read(message, previous).intents


__all__ = [
    "EMAIL_TOOL",
    "HELP_TEXT",
    "JIRA_TOOL",
    "MEETING_TOOL",
    "Intent",
    "OfflineModel",
    "Reading",
    "_summary",
    "parse_intents",
    "read",
    "split_intents",
]
