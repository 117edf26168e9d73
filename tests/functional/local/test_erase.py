"""``multitool erase --user SUB``: one user's items go, by the owner index; another user's stay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from multitool.chat.sessions import DynamoSessionStore
from multitool.local.cli import main
from multitool.local.deployed.erase import erased_key
from multitool.people import Person
from multitool.ports.audit import AuditEntry, DynamoAuditLog
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.calendar import Booking
from multitool.ports.connections import DynamoConnections
from multitool.ports.quota import DynamoRecipientQuota, Spend
from multitool.ports.rate import DynamoTokenBucket
from multitool.ports.tables import ALL_TABLES
from multitool.ports.turn_slots import DynamoTurnSlots

from tests.support.chat_env import offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import Tables
from tests.support.review_support import email_draft

ALICE, BOB = "user-alice", "user-bob"


def _count(tables: Tables, env_var: str) -> int:
    count: int = tables.client.scan(TableName=tables.names[env_var], Select="COUNT")["Count"]
    return count


def _fill(tables: Tables, user: str) -> None:
    tables.drafts.create_many(
        [email_draft(owner=user, session="s-1"), email_draft(owner=user, session="s-2")]
    )
    DynamoSessionStore(tables.names["SESSIONS_TABLE_NAME"], tables.client).claim(f"{user}-session", user)
    audit = DynamoAuditLog(tables.names["AUDIT_TABLE_NAME"], tables.client, retention_days=30)
    audit.record(AuditEntry(user, "d_1", "show_new_email_draft", "done", datetime.now(UTC), 2))
    limits = tables.names["LIMITS_TABLE_NAME"]
    DynamoTokenBucket(limits, tables.client, per_minute=6, burst=10).take(user, "chat")
    DynamoConnections(limits, tables.client).pending(
        user, "microsoft365", f"urn:ietf:params:oauth:request_uri:{user}"
    )
    DynamoTurnSlots(limits, tables.client, per_user=3).take(user, f"t-{user}-turn", until=10**10)
    DynamoRecipientQuota(limits, tables.client).spend(
        user, datetime.now(UTC).date().isoformat(), Spend(2, 0), per_day=100, outside_per_day=None
    )


def test_erase_removes_one_users_items_and_keeps_the_others(
    moto_tables: Tables, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(moto_tables, ALICE)
    _fill(moto_tables, BOB)
    before = {
        v: _count(moto_tables, v) for v in ("DRAFTS_TABLE_NAME", "SESSIONS_TABLE_NAME", "AUDIT_TABLE_NAME")
    }
    # the table names as the command reads them (the stack's outputs otherwise)
    for spec in ALL_TABLES:
        monkeypatch.setenv(spec.env_var, moto_tables.names[spec.env_var])

    assert main(["erase", "--user", ALICE, "--dry-run"]) == 0
    assert _count(moto_tables, "DRAFTS_TABLE_NAME") == before["DRAFTS_TABLE_NAME"]
    assert "Drafts: would delete 2" in capsys.readouterr().out

    assert main(["erase", "--user", ALICE]) == 0

    printed = capsys.readouterr().out
    assert "Drafts: deleted 2" in printed
    assert "Sessions: deleted 1" in printed
    assert "Audit: kept 1" in printed  # without what ties it to her (below)
    for env_var, count in before.items():
        assert _count(moto_tables, env_var) == count // 2 + (env_var == "AUDIT_TABLE_NAME"), env_var
    limits = moto_tables.client.scan(TableName=moto_tables.names["LIMITS_TABLE_NAME"])["Items"]
    assert limits
    assert all(BOB in item["pk"]["S"] for item in limits)
    assert all(ALICE not in str(item) for item in _all_items(moto_tables))


def _all_items(tables: Tables) -> list[Any]:
    items: list[Any] = []
    for spec in ALL_TABLES:
        items += tables.client.scan(TableName=tables.names[spec.env_var])["Items"]
    return items


def test_erase_without_a_user_id_is_a_usage_error(
    moto_tables: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    for spec in ALL_TABLES:
        monkeypatch.setenv(spec.env_var, moto_tables.names[spec.env_var])
    assert main(["erase", "--user", " "]) == 2


COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"
PEOPLE = [
    Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com", timezone="Asia/Kolkata"),
    Person(id="p2", display_name="Priya Natarajan", email="priya@example.com", timezone="Europe/Berlin"),
]
THURSDAY = datetime(2030, 6, 6, 9, 0, tzinfo=UTC)


def _chat(sub: str, key: str) -> dict[str, Any]:
    from functions.orchestrator.handler import handler

    event = http_api_event("POST", "/chat", {"message": COMBINED}, sub=sub, headers={"Idempotency-Key": key})
    response = handler(event, FakeLambdaContext())
    assert response["statusCode"] == 200
    body: dict[str, Any] = json_body(response)
    return body


def _book(calendar: DynamoCalendar, booking_id: str, owner: str | None, attendee: str) -> None:
    calendar.book(
        Booking(
            id=booking_id,
            title="Sync",
            organizer=f"{attendee.split('@')[0]}-organizer@example.com",
            attendees=(attendee,),
            start=THURSDAY,
            end=THURSDAY + timedelta(minutes=30),
            owner=owner,
        )
    )


def _items(client: Any, tables: dict[str, str]) -> list[dict[str, Any]]:
    return [item for name in tables.values() for item in client.scan(TableName=name)["Items"]]


def test_erase_removes_the_replies_kept_for_retries_and_the_bookings_and_strips_the_audit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with offline_chat_env(monkeypatch, PEOPLE) as env:
        client, tables = env["client"], env["tables"]
        # Given each user's /chat reply kept for a retry with the same Idempotency-Key
        alice_reply, bob_reply = _chat(ALICE, "k-1"), _chat(BOB, "k-1")
        assert _chat(ALICE, "k-1") == alice_reply  # a retry replays the stored reply
        # and their bookings (one from before bookings carried their owner: found by its draft)
        calendar = DynamoCalendar(tables["BOOKINGS_TABLE_NAME"], client)
        alice_cards = [a["id"] for a in alice_reply["clientActions"]]
        _book(calendar, alice_cards[0], ALICE, "kinshuok@example.com")
        _book(calendar, alice_cards[1], None, "priya@example.com")
        _book(calendar, bob_reply["clientActions"][0]["id"], BOB, "bob-guest@example.com")
        # and their audit records
        audit = DynamoAuditLog(tables["AUDIT_TABLE_NAME"], client, retention_days=30)
        for user, draft_id in ((ALICE, alice_cards[0]), (BOB, "d_bob")):
            audit.record(
                AuditEntry(
                    user, draft_id, "show_new_email_draft", "done", datetime.now(UTC), 2, {"messageId": "m-1"}
                )
            )

        # When Alice is erased
        assert main(["erase", "--user", ALICE]) == 0

        # Then it says what went, what stays and why
        printed = capsys.readouterr().out
        assert "Idempotency: deleted 1" in printed
        assert "Bookings: deleted 2" in printed
        assert "Audit: kept 1, kept without the draft and message ids" in printed
        assert "for accountability" in printed
        assert "CloudWatch logs hold the sub" in printed
        # nothing of hers is left: no item names her, her session or her cards
        hers = [ALICE, alice_reply["sessionId"], *alice_cards]
        assert [i for i in _items(client, tables) if any(h in str(i) for h in hers)] == []
        # the same Idempotency-Key no longer replays her erased reply: the turn runs anew
        again = _chat(ALICE, "k-1")
        assert again["sessionId"] != alice_reply["sessionId"]
        assert _chat(BOB, "k-1") == bob_reply  # Bob's stays
        # her bookings and the time they held are gone; Bob's is there
        hour = (THURSDAY, THURSDAY + timedelta(hours=1))
        assert calendar.busy(["kinshuok@example.com", "priya@example.com"], *hour) == {
            "kinshuok@example.com": [],
            "priya@example.com": [],
        }
        assert calendar.busy(["bob-guest@example.com"], *hour)["bob-guest@example.com"]
        # her audit record is kept, without what ties it to her or to the draft
        records = client.scan(TableName=tables["AUDIT_TABLE_NAME"])["Items"]
        [kept] = [r for r in records if r["pk"]["S"] == erased_key(ALICE)]
        assert set(kept) == {"pk", "sk", "action", "outcome", "recipients", "expiresAt"}
        assert (kept["action"]["S"], kept["outcome"]["S"], kept["recipients"]["N"]) == (
            "show_new_email_draft",
            "done",
            "2",
        )
        assert [r["draftId"]["S"] for r in records if r["pk"]["S"] == f"USER#{BOB}"] == ["d_bob"]
