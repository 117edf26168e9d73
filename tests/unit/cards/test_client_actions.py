"""The mapper registry: every tool payload has a card, and the page's schema matches the code."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from multitool.cards.client_actions import (
    CARD_SPECS,
    JSON_VALIDATORS,
    SCHEMA_PATH,
    InvalidPayloadError,
    UnknownActionError,
    caption,
    card_from_payload,
    client_action_adapter,
    fingerprint,
    main,
    schema_text,
)
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.people import Person
from multitool.tools import REGISTRY, ToolContext, ToolPorts, run_calls
from multitool.tools.email.email_draft import EmailDraftCard
from multitool.tools.jira.jira_draft import JiraTicketDraftCard
from multitool.tools.meeting.meeting_scheduler import MeetingSchedulerCard

from tests.support import bedrock_streams as b

PAYLOAD_ONLY = {"action", "draftId"}


@pytest.mark.parametrize("spec", list(REGISTRY.values()), ids=lambda s: s.name)
def test_every_tool_action_has_a_mapper(spec) -> None:
    assert spec.action in CARD_SPECS, f"{spec.name} returns {spec.action!r}, which has no card in CARD_SPECS"


@pytest.mark.parametrize("spec", list(REGISTRY.values()), ids=lambda s: s.name)
def test_every_payload_field_reaches_the_card(spec) -> None:
    payload_fields = {f.alias or name for name, f in spec.payload_model.model_fields.items()} - PAYLOAD_ONLY
    card_model = CARD_SPECS[spec.action].model
    card_fields = {f.alias or name for name, f in card_model.model_fields.items()}
    missing = payload_fields - card_fields
    assert not missing, f"{spec.action} payload fields missing from {card_model.__name__}: {sorted(missing)}"


def test_real_tool_payloads_become_cards() -> None:
    people = [
        Person(
            id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com", timezone="Europe/Berlin"
        ),
        Person(id="p2", display_name="Priya Natarajan", email="priya@example.com"),
    ]
    ports = ToolPorts(MemoryDirectory(people), MemoryCalendar(), MemoryDraftStore())
    ctx = ToolContext(
        owner="user-1",
        session_id="s-1",
        now=datetime(2026, 11, 30, 8, 0, tzinfo=UTC),
        timezone="Europe/Berlin",
    )
    outcomes = run_calls(
        [
            (
                "create_email_draft",
                {"to": ["Kinshuok"], "subject": "About the doc", "body": "Please review."},
            ),
            ("propose_meeting", {"attendees": ["Kinshuok"], "title": "Sync", "when": "Thursday"}),
            ("create_jira_ticket_draft", {"project": "WEB", "issueType": "Bug", "summary": "Login crash"}),
        ],
        ctx,
        ports,
    )

    cards = [card_from_payload(o.body) for o in outcomes]

    assert [type(c) for c in cards] == [EmailDraftCard, MeetingSchedulerCard, JiraTicketDraftCard]
    assert all(c.id.startswith("d_") for c in cards)
    wire = cards[1].to_wire()
    assert wire["type"] == "show_meeting_scheduler"
    assert wire["durationMinutes"] == 30
    assert caption(cards[0]) == "Draft email to Kinshuok Sharma: About the doc"
    assert caption(cards[1]).startswith("Meeting 'Sync' with Kinshuok Sharma: 3 proposed slots on Thu 3 Dec")
    assert caption(cards[2]) == "Jira Bug in WEB: Login crash"


def test_card_wire_shape_is_type_id_and_camel_case_payload_fields() -> None:
    card = card_from_payload(b.jira_payload(assignee=b.resolved("Priya", b.PRIYA)))

    wire = card.to_wire()

    assert wire["type"] == "show_jira_ticket_draft"
    assert wire["id"] == "d_jira1"
    assert wire["issueType"] == "Bug"
    assert wire["assignee"]["person"]["displayName"] == "Priya Natarajan"
    assert "action" not in wire
    assert "draftId" not in wire
    assert client_action_adapter().validate_python(wire) == card


def test_unknown_action_and_invalid_payload_raise_clear_errors() -> None:
    with pytest.raises(UnknownActionError, match="show_teleport"):
        card_from_payload({"action": "show_teleport", "draftId": "d_1"})
    with pytest.raises(InvalidPayloadError, match="summary"):
        card_from_payload({"action": "show_jira_ticket_draft", "draftId": "d_1", "project": "WEB"})
    with pytest.raises(InvalidPayloadError, match="id"):
        card_from_payload({**b.email_payload(), "draftId": None})


def test_fingerprints_are_per_action_type() -> None:
    email = card_from_payload(b.email_payload())
    same_email = card_from_payload(b.email_payload(draft_id="d_other", subject="  ABOUT the doc"))
    other_body = card_from_payload(b.email_payload(body="Something else entirely."))
    meeting = card_from_payload(b.meeting_payload())
    later = card_from_payload(b.meeting_payload(starts=("2026-12-03T14:00:00+01:00",)))

    assert fingerprint(email) == fingerprint(same_email)
    assert fingerprint(email) != fingerprint(other_body)
    assert fingerprint(meeting) != fingerprint(later)
    assert fingerprint(email)[0] == "show_new_email_draft"


def test_committed_schema_matches_the_code() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), (
        "web/client-actions.schema.json is stale: run python -m multitool.cards.client_actions"
    )


def test_schema_is_a_discriminated_union_of_every_card() -> None:
    schema = json.loads(schema_text())

    assert schema["discriminator"]["propertyName"] == "type"
    assert set(schema["discriminator"]["mapping"]) == set(CARD_SPECS)
    meeting = schema["$defs"]["MeetingSchedulerCard"]
    assert "durationMinutes" in meeting["properties"]
    assert "durationMinutes" in meeting["required"]


def test_schema_cli_writes_and_checks(tmp_path) -> None:
    target = tmp_path / "schema.json"

    assert main(["--check", str(target)]) == 1
    assert main([str(target)]) == 0
    assert main(["--check", str(target)]) == 0


JIRA = "show_jira_ticket_draft"
PAYLOADS = [
    b.email_payload(),
    b.email_payload(to=[b.ambiguous("Priya", b.PRIYA, b.PRIYA_K)]),
    b.meeting_payload(),
    b.meeting_payload(attendees=[b.unknown("Zed")], starts=()),
    b.jira_payload(),
    b.jira_payload(assignee=b.resolved("Priya", b.PRIYA)),
]


@pytest.mark.parametrize("payload", PAYLOADS, ids=lambda p: p["action"])
def test_the_json_validator_gives_the_card_card_from_payload_gives(payload) -> None:
    from_json = JSON_VALIDATORS[payload["action"]](json.dumps(payload))
    from_payload = card_from_payload(payload)

    assert type(from_json) is type(from_payload)
    assert from_json == from_payload
    assert fingerprint(from_json) == fingerprint(from_payload)
    assert caption(from_json) == caption(from_payload)


def test_meeting_captions_name_the_day_as_strftime_does() -> None:
    # Every weekday and month name, against strftime in the C locale the tables stand in for.
    first = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
    for offset in range(0, 365, 5):
        start = first + timedelta(days=offset)
        card = card_from_payload(b.meeting_payload(starts=(start.isoformat(),)))

        assert (
            caption(card)
            == f"Meeting 'Sync' with Kinshuok Sharma: 1 proposed slot on {start:%a} {start.day} {start:%b}"
        )


def test_meeting_caption_says_from_when_slots_span_days() -> None:
    card = card_from_payload(
        b.meeting_payload(starts=("2026-12-03T16:00:00+01:00", "2026-12-04T09:00:00+01:00"))
    )

    assert caption(card) == "Meeting 'Sync' with Kinshuok Sharma: 2 proposed slots from Thu 3 Dec"


def test_captions_list_every_name_and_every_unsettled_one() -> None:
    priya = b.resolved("Priya", b.PRIYA)
    kinshuok = b.resolved("Kinshuok", b.KINSHUOK)
    nobody = card_from_payload(b.email_payload(to=[]))
    three = card_from_payload(b.meeting_payload(attendees=[kinshuok, priya, b.unknown("Zed")], starts=()))
    cc = card_from_payload({**b.email_payload(), "cc": [b.ambiguous("Priya", b.PRIYA, b.PRIYA_K)]})

    assert caption(nobody) == "Draft email to nobody yet: About the doc"
    assert caption(three) == (
        "Meeting 'Sync' with Kinshuok Sharma, Priya Natarajan and Zed: no free slot found for Thursday"
        " (no one named Zed found: check the name)"
    )
    assert caption(cc) == "Draft email to Kinshuok Sharma: About the doc (Priya matches 2 people: pick one)"


def test_fingerprints_ignore_the_order_and_case_of_people() -> None:
    priya = b.resolved("Priya", b.PRIYA)
    kinshuok = b.resolved("Kinshuok", b.KINSHUOK)
    shouting = b.resolved("KINSHUOK", {**b.KINSHUOK, "email": b.KINSHUOK["email"].upper()})
    one = card_from_payload(b.meeting_payload(attendees=[kinshuok, priya]))
    other = card_from_payload(b.meeting_payload(draft_id="d_meet2", attendees=[priya, shouting]))
    fewer = card_from_payload(b.meeting_payload(draft_id="d_meet3", attendees=[priya]))

    assert fingerprint(one) == fingerprint(other)
    assert fingerprint(one) != fingerprint(fewer)
