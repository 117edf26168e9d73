"""What a running turn writes as it goes: cards once each, streamed text in pieces, never text after a card
that was written before it; a failing listener never stops the stream it listens to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from multitool.cards.client_actions import card_from_payload
from multitool.chat.async_turns import TEXT_EVERY_SECONDS, _Progress
from multitool.runtimes.base import streamed_text

from tests.support import bedrock_streams as b
from tests.support.clocks import Clock


class Appends:
    """The turn store's append, kept: every write is one call with the events it carries."""

    def __init__(self) -> None:
        self.writes: list[list[dict[str, Any]]] = []

    def append(self, turn_id: str, events: Sequence[Mapping[str, Any]], status: str = "running") -> None:
        assert (turn_id, status) == ("t-1", "running")
        self.writes.append([dict(e) for e in events])


@pytest.fixture
def progress() -> tuple[_Progress, Appends, Clock]:
    store, clock = Appends(), Clock(100.0)
    return _Progress(store, "t-1", clock), store, clock  # type: ignore[arg-type]


def test_text_is_written_at_most_every_half_second_and_before_the_next_card(progress) -> None:
    listener, store, clock = progress
    listener.text("I'll ")  # the first piece goes at once
    listener.text("prepare ")
    clock.now += TEXT_EVERY_SECONDS / 2
    listener.text("those ")
    assert store.writes == [[{"type": "text", "text": "I'll "}]]
    clock.now += TEXT_EVERY_SECONDS
    listener.text("for you.")
    card = card_from_payload(b.jira_payload())
    listener.card(card, "Jira ticket")
    listener.text(" Done")  # pending, not yet due: the turn's answer has the whole text anyway
    assert store.writes == [
        [{"type": "text", "text": "I'll "}],
        [{"type": "text", "text": "prepare those for you."}],
        [{"type": "card", "card": card.to_wire(), "caption": "Jira ticket"}],
    ]


def test_a_card_reported_twice_is_written_once_with_pending_text_first(progress) -> None:
    listener, store, _clock = progress
    listener.text("a")
    listener.text("b")
    card = card_from_payload(b.jira_payload())
    listener.card(card, "one")
    listener.card(card, "one")
    assert store.writes == [
        [{"type": "text", "text": "a"}],
        [{"type": "text", "text": "b"}, {"type": "card", "card": card.to_wire(), "caption": "one"}],
    ]


class Failing:
    def __init__(self) -> None:
        self.heard: list[str] = []

    def card(self, card: Any, caption: str) -> None:
        raise AssertionError("not a card stream")

    def text(self, delta: str) -> None:
        self.heard.append(delta)
        raise RuntimeError("store away")


def test_the_stream_goes_on_when_its_listener_fails() -> None:
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hello "}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "there"}}},
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{}"}}}},
        {"messageStop": {"stopReason": "end_turn"}},
    ]
    listener = Failing()
    assert list(streamed_text(iter(events), listener)) == events
    assert listener.heard == ["Hello "]  # told once; after its failure, no more
    assert list(streamed_text(iter(events), None)) == events
