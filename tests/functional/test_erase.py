"""``multitool erase --user SUB``: one user's items go, by the owner index; another user's stay."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from multitool.chat.sessions import DynamoSessionStore
from multitool.local.cli import main
from multitool.ports.audit import AuditEntry, DynamoAuditLog
from multitool.ports.quota import DynamoRecipientQuota, Spend
from multitool.ports.rate import DynamoTokenBucket
from multitool.ports.tables import ALL_TABLES

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
    assert "Audit: deleted 1" in printed
    for env_var, count in before.items():
        assert _count(moto_tables, env_var) == count // 2, env_var
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
