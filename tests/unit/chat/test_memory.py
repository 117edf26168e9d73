"""ChatService keeps each session's conversation and hands it to the next turn (in memory, offline model)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from multitool.chat.service import ChatRequest, ChatService
from multitool.chat.sessions import History, SessionWriteFailed
from multitool.local.sandbox.memory import (
    MemoryCalendar,
    MemoryDirectory,
    MemoryDraftStore,
    MemorySessionStore,
)
from multitool.people import Person
from multitool.runtimes import ConverseRuntime, OfflineModel, TurnRequest
from multitool.runtimes.product import product_flows
from multitool.runtimes.traces import ToolResults
from multitool.tools import ToolPorts

NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
PEOPLE = [
    Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com"),
    Person(id="p2", display_name="Priya Natarajan", email="priya@example.com"),
]


class Recording:
    """The offline Converse runtime, keeping every TurnRequest it ran."""

    def __init__(self) -> None:
        ports = ToolPorts(MemoryDirectory(PEOPLE), MemoryCalendar(), MemoryDraftStore())
        self.inner = ConverseRuntime(OfflineModel(), "offline", product_flows(ports))
        self.requests: list[TurnRequest] = []

    def run_turn(self, request: TurnRequest) -> ToolResults:
        self.requests.append(request)
        return self.inner.run_turn(request)


def service(runtime: Recording, store: MemorySessionStore | None = None, **kwargs) -> ChatService:
    return ChatService(runtime, store or MemorySessionStore(), clock=lambda: NOW, **kwargs)


def say(chat: ChatService, text: str, session: str = "sess-1", user: str = "alice") -> dict:
    return chat.reply(user, ChatRequest(message=text, session_id=session)).to_wire()


def test_the_second_turn_sees_the_first_with_its_cards_and_resolves_it() -> None:
    runtime = Recording()
    chat = service(runtime)

    first = say(chat, "File a Jira bug in WEB for the login crash")
    second = say(chat, "Email Priya about it")

    assert runtime.requests[0].history == ()
    user, assistant = runtime.requests[1].history
    assert user == {"role": "user", "content": [{"text": "File a Jira bug in WEB for the login crash"}]}
    ticket_id = first["clientActions"][0]["id"]
    assert assistant["content"][0]["text"] == (
        f"{first['message']}\n[cards: {ticket_id} create_jira_ticket_draft: Jira Bug in WEB: Login crash]"
    )
    (email,) = second["clientActions"]
    assert email["subject"] == "Login crash"
    assert email["to"][0]["person"]["email"] == "priya@example.com"


def test_sessions_do_not_share_memory_and_turns_are_bounded() -> None:
    runtime = Recording()
    store = MemorySessionStore()
    chat = service(runtime, store, history_exchanges=3)

    for number in range(5):
        say(chat, f"Email Kinshuok about topic {number}")
    say(chat, "What can you do?", session="sess-2")

    assert [len(r.history) for r in runtime.requests] == [0, 2, 4, 6, 6, 0]
    assert runtime.requests[4].history[0]["content"][0]["text"] == "Email Kinshuok about topic 1"
    assert len(store.histories["sess-1"]) == 6
    assert store.histories["sess-1"][-2].text == "Email Kinshuok about topic 4"


def test_a_runtime_that_keeps_its_own_memory_gets_none_and_nothing_is_stored() -> None:
    runtime = Recording()
    store = MemorySessionStore()
    chat = service(runtime, store, history_exchanges=0)

    say(chat, "File a Jira bug in WEB for the login crash")
    say(chat, "Email Priya about it")

    assert [r.history for r in runtime.requests] == [(), ()]
    assert store.histories == {}
    assert store.writes == 2  # the two claims only


class FailingMemory(MemorySessionStore):
    def remember(self, session_id: str, user_id: str, history: History, now: datetime | None = None) -> None:
        raise SessionWriteFailed("The conversation could not be stored.")


def test_a_failed_memory_write_still_answers_the_turn() -> None:
    chat = service(Recording(), FailingMemory())

    body = say(chat, "File a Jira bug in WEB for the login crash")

    assert body["clientActions"][0]["type"] == "show_jira_ticket_draft"


@pytest.mark.parametrize("history_exchanges", [1, 10])
def test_the_history_a_turn_sees_always_starts_with_the_user_and_alternates(history_exchanges: int) -> None:
    runtime = Recording()
    chat = service(runtime, history_exchanges=history_exchanges)

    for text in ("Email Kinshuok about the doc", "What can you do?", "Schedule a sync with Priya on Friday"):
        say(chat, text)

    for request in runtime.requests:
        roles = [m["role"] for m in request.history]
        assert roles == ["user", "assistant"] * (len(roles) // 2)
