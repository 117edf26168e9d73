"""Session ids, ownership and the bounded conversation history (in memory; DynamoDB is tested on moto)."""

from __future__ import annotations

import json

import pytest
from multitool.chat.sessions import (
    MAX_STORED_TEXT_CHARS,
    HistoryMessage,
    SessionNotOwned,
    bounded,
    cards_summary,
    converse_messages,
    exchange,
    history_json,
    new_session_id,
    parse_history,
    valid_session_id,
)
from multitool.local.sandbox.memory import MemorySessionStore


def test_new_session_ids_are_valid_and_unique() -> None:
    ids = {new_session_id() for _ in range(200)}

    assert len(ids) == 200
    assert all(valid_session_id(i) for i in ids)


@pytest.mark.parametrize("value", ["", "a", "has space", "x" * 101, "semi;colon", "ünïcode"])
def test_invalid_session_ids_are_refused(value: str) -> None:
    assert not valid_session_id(value)


def test_a_session_belongs_to_its_first_user() -> None:
    store = MemorySessionStore()
    store.claim("sess-1", "alice")
    store.claim("sess-1", "alice")

    with pytest.raises(SessionNotOwned):
        store.claim("sess-1", "bob")
    store.claim("sess-2", "bob")


# --- conversation history --------------------------------------------------------------------------


def turn(number: int, size: int = 10) -> tuple[HistoryMessage, HistoryMessage]:
    return exchange(f"message {number} " + "x" * size, f"reply {number}")


def test_an_exchange_is_a_user_and_an_assistant_text_message_with_its_cards() -> None:
    user, assistant = exchange(
        "Email Kinshuok about the doc",
        "I prepared an email draft for you to review.",
        [("d_1", "Draft email to Kinshuok Sharma: About the doc")],
    )

    assert converse_messages((user, assistant)) == (
        {"role": "user", "content": [{"text": "Email Kinshuok about the doc"}]},
        {
            "role": "assistant",
            "content": [
                {
                    "text": "I prepared an email draft for you to review.\n"
                    "[cards: d_1 Draft email to Kinshuok Sharma: About the doc]"
                }
            ],
        },
    )


def test_the_card_summary_lists_every_card_and_is_empty_without_cards() -> None:
    assert cards_summary([]) == ""
    assert cards_summary([("d_1", "Jira Bug in WEB: Login crash"), ("d_2", "Meeting 'Sync' with Priya")]) == (
        "[cards: d_1 Jira Bug in WEB: Login crash; d_2 Meeting 'Sync' with Priya]"
    )


def test_history_keeps_the_newest_exchanges() -> None:
    history = tuple(message for number in range(15) for message in turn(number))

    kept = bounded(history, max_exchanges=10)

    assert len(kept) == 20
    assert kept[0].text.startswith("message 5 ")
    assert kept[-1].text == "reply 14"
    assert bounded(history, max_exchanges=0) == ()


def test_history_fits_its_byte_bound_exactly_with_whole_exchanges() -> None:
    history = tuple(message for number in range(10) for message in turn(number, size=900))
    one_exchange = len(history_json(history[-2:]).encode())

    for limit in (one_exchange - 1, one_exchange, 3 * one_exchange, 5000, 64 * 1024):
        kept = bounded(history, max_bytes=limit)
        size = len(history_json(kept).encode())
        assert size <= max(limit, 2)
        assert len(kept) % 2 == 0
        if len(kept) < len(history):  # one more exchange would not have fitted
            assert len(history_json(history[-len(kept) - 2 :]).encode()) > limit
    assert bounded(history, max_bytes=one_exchange - 1) == ()
    assert bounded(history, max_bytes=one_exchange) == history[-2:]


def test_long_texts_are_clipped_and_empty_ones_kept_valid() -> None:
    user, assistant = exchange("y" * (MAX_STORED_TEXT_CHARS + 50), "   ")

    assert len(user.text) == MAX_STORED_TEXT_CHARS
    assert user.text.endswith("…")
    assert assistant.text == "…"


def test_stored_history_round_trips_and_damage_is_dropped_not_raised() -> None:
    history = turn(1) + turn(2)

    assert parse_history(history_json(history)) == history
    assert parse_history(None) == ()
    assert parse_history("not json") == ()
    assert parse_history(json.dumps([{"role": "system", "content": [{"text": "x"}]}])) == ()
    assert parse_history(json.dumps({"role": "user", "content": [{"text": "x"}]})) == ()
    assert parse_history("[1, 2]") == ()
    assert parse_history("[]") == ()
    # A message out of turn is dropped with its partner; whole exchanges survive.
    lone_user = json.loads(history_json(turn(0)[:1]))
    assert parse_history(json.dumps(lone_user + json.loads(history_json(history)))) == history


def test_history_is_stored_as_the_compact_json_sessions_always_held() -> None:
    # The text a stored session holds: Converse messages as compact JSON, UTF-8 unescaped (what the
    # pydantic model wrote before), so a session stored before reads the same and its size (what
    # `bounded` counts) is unchanged.
    history = turn(1) + exchange('Ünïcode ✓ "quoted"\nnew line', "\u2028 and \x00")
    messages = [{"role": m.role, "content": [{"text": b.text} for b in m.content]} for m in history]
    whole = json.dumps(messages, ensure_ascii=False, separators=(",", ":"))

    assert history_json(history) == whole
    assert history_json(()) == "[]"
    assert parse_history(whole) == history
    assert converse_messages(history) == tuple(messages)


def test_the_memory_store_returns_the_owners_history_and_refuses_others() -> None:
    store = MemorySessionStore()
    assert store.claim("sess-1", "alice") == ()

    store.remember("sess-1", "alice", turn(1))

    assert store.claim("sess-1", "alice") == turn(1)
    with pytest.raises(SessionNotOwned):
        store.remember("sess-1", "bob", turn(2))
    assert store.claim("sess-1", "alice") == turn(1)


def test_a_session_reads_back_for_its_owner_only() -> None:
    from multitool.chat.sessions import SessionNotFound

    store = MemorySessionStore()
    store.claim("s-1", "alice")
    store.remember("s-1", "alice", exchange("Hi", "Hello."))

    assert store.read("s-1", "alice") == exchange("Hi", "Hello.")
    for who, session in (("mallory", "s-1"), ("alice", "s-2")):
        with pytest.raises(SessionNotFound):
            store.read(session, who)
