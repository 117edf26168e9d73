"""A session's conversation as the page draws it again: the body of ``GET /sessions/{id}``.

The wire shapes and their reading of the stored history (:mod:`multitool.chat.sessions`) alone: a
chat turn never shows a session, so its cold start defines none of these models; the route loads
them on its first request, and the OpenAPI document names them.
"""

import re

from pydantic import Field

from multitool.chat.sessions import History, exchanges_of
from multitool.tools import REGISTRY
from multitool.wire import WireModel


class ConversationCard(WireModel):
    """A card one exchange produced: its draft (``GET /actions/{id}`` has its state) and caption."""

    id: str = Field(description="The draft's id")
    caption: str = Field(description="The caption the reply gave it (clientActionMessages)")


class ConversationExchange(WireModel):
    message: str = Field(description="What the user wrote")
    reply: str = Field(description="What the assistant answered")
    cards: tuple[ConversationCard, ...] = Field(description="The cards the turn produced, in order")


class SessionView(WireModel):
    """The body of ``GET /sessions/{id}``: the session's stored conversation, oldest exchange first."""

    session_id: str
    exchanges: tuple[ConversationExchange, ...] = Field(
        description="The exchanges the session keeps (its last HISTORY_EXCHANGES), oldest first"
    )


# The summary line exchange() appends to a reply; a draft id is "d_" and 32 hex digits (drafts.draft_id).
_SUMMARY = re.compile(r"\n?\[cards: (?P<entries>d_[0-9a-f]{32} .*)\]\Z", re.DOTALL)
_ENTRY_START = re.compile(r"(?:\A|; )(d_[0-9a-f]{32}) ")


def _cards_of(entries: str) -> tuple[ConversationCard, ...]:
    starts = list(_ENTRY_START.finditer(entries))
    cards = []
    for index, found in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(entries)
        caption = entries[found.end() : end]
        tool, _, rest = caption.partition(": ")
        # card_entry() put the tool's name first, for the model: the page shows the caption alone.
        cards.append(
            ConversationCard(id=found.group(1), caption=rest if rest and tool in REGISTRY else caption)
        )
    return tuple(cards)


def conversation_view(session_id: str, history: History) -> SessionView:
    """The stored history as the page draws it again: each exchange's message, reply and cards."""
    exchanges = []
    for user, assistant in exchanges_of(history):
        reply, cards = assistant.text, tuple[ConversationCard, ...]()
        summary = _SUMMARY.search(reply)
        if summary is not None:
            reply, cards = reply[: summary.start()].strip(), _cards_of(summary.group("entries"))
        exchanges.append(ConversationExchange(message=user.text, reply=reply, cards=cards))
    return SessionView(session_id=session_id, exchanges=tuple(exchanges))
