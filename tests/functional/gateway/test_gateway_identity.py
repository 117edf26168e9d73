"""Who owns a draft made through the Gateway: never the arguments; the turn's user or the verified caller.

The three rules, on moto DynamoDB with the real handlers, the real claim and the real reviewer:
a draft made through the Gateway in a user's harness turn is confirmable by that user and no one
else; a draft the Gateway made for no turn (an outside MCP client) is confirmable by no one; a
draft made for a verified caller is confirmable by that caller only, and no turn can take it.
"""

from __future__ import annotations

from typing import Any

import pytest
from multitool.drafts import UNCLAIMED_OWNER, DraftStatus
from multitool.local.sandbox.memory import MemoryCalendar
from multitool.review import Caller, DraftNotFound, ReviewConfig
from multitool.review.reviewer import Reviewer
from multitool.runtimes import AgentCoreRuntime, TurnRequest
from multitool.runtimes.claims import draft_claims
from multitool.runtimes.harness_gateway import gateway_tools
from multitool.runtimes.product import product_flows
from multitool.tools.gateway_target import sign_caller
from multitool.wiring.action_groups import aws_environment

from tests.support.bedrock_events import tool_handler
from tests.support.gateway_events import GatewayHarness, gateway_custom, gateway_turn_stream, invoke_target
from tests.support.harness_streams import HARNESS_ARN, ScriptedHarness
from tests.support.moto_tables import Tables
from tests.support.review_support import RecordingMailer

GATEWAY_ARN = "arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/multitool-gw-abc123"
EMAIL = "email-draft___create_email_draft"
ARGS = {"to": ["Kinshuok"], "subject": "The doc", "body": "Here it is."}
ALICE, BOB = "user-alice", "user-bob"


def _handlers() -> dict[str, Any]:
    return {group: tool_handler(group) for group in ("email_draft", "meeting_scheduler", "jira_draft")}


def _reviewer(tables: Tables, mailer: RecordingMailer) -> Reviewer:
    return Reviewer(
        tables.drafts,
        mailer=mailer,
        calendar=MemoryCalendar(),
        jira=None,
        config=ReviewConfig(sender_email="assistant@example.com"),
    )


def _turn(tables: Tables, user: str, *calls: tuple[str, Any]) -> tuple[Any, GatewayHarness]:
    harness = GatewayHarness(_handlers(), list(calls))
    runtime = AgentCoreRuntime(
        harness,
        HARNESS_ARN,
        product_flows(_unused_ports()),
        tools=gateway_tools(GATEWAY_ARN),
        claims=draft_claims(tables.drafts),
    )
    results = runtime.run_turn(TurnRequest(user, "s-1", "Email Kinshuok about the doc", "Europe/Berlin"))
    return results, harness


def _unused_ports() -> Any:
    """The Gateway runs the tools: a turn that touched these ports would fail loudly."""

    class Unused:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"the Gateway turn used the orchestrator's {name}")

    return Unused()


def test_a_gateway_draft_of_a_users_turn_is_confirmable_by_that_user_and_no_one_else(
    moto_tables: Tables,
) -> None:
    results, harness = _turn(moto_tables, ALICE, (EMAIL, ARGS))
    (card,) = results.client_actions
    draft_id = card.id
    # The Lambda made it unclaimed (the Gateway named no user); the turn's claim gave it to Alice.
    assert harness.answers[0]["draftId"] == draft_id
    stored = moto_tables.drafts.get(draft_id)
    assert stored is not None
    assert (stored.owner, stored.version) == (ALICE, 1)

    mailer = RecordingMailer()
    reviewer = _reviewer(moto_tables, mailer)
    for stranger in (BOB, UNCLAIMED_OWNER):
        with pytest.raises(DraftNotFound):
            reviewer.confirm(Caller(stranger), draft_id, {})
        with pytest.raises(DraftNotFound):
            reviewer.discard(Caller(stranger), draft_id)
    assert mailer.sent == []
    done = reviewer.confirm(Caller(ALICE), draft_id, {})
    assert done.status is DraftStatus.DONE
    assert len(mailer.sent) == 1


def test_a_replayed_result_in_another_users_turn_claims_nothing_and_shows_no_card(
    moto_tables: Tables,
) -> None:
    results, harness = _turn(moto_tables, ALICE, (EMAIL, ARGS))
    (card,) = results.client_actions
    # Bob's harness stream carries Alice's result (a replay): his turn claims nothing, shows no card.
    stream = gateway_turn_stream([("tooluse_replay", EMAIL, ARGS, harness.answers[0])], "Done.")
    runtime = AgentCoreRuntime(
        ScriptedHarness(stream),
        HARNESS_ARN,
        product_flows(_unused_ports()),
        tools=gateway_tools(GATEWAY_ARN),
        claims=draft_claims(moto_tables.drafts),
    )
    bobs = runtime.run_turn(TurnRequest(BOB, "s-9", "Email Kinshuok", "UTC"))
    assert bobs.client_actions == ()
    assert [failure.code for failure in bobs.failures] == ["draft_not_claimed"]
    claim = draft_claims(moto_tables.drafts)
    assert claim(BOB, [card.id]) == frozenset()
    assert claim(ALICE, [card.id]) == frozenset({card.id})  # a repeated claim by its owner is a no-op
    stored = moto_tables.drafts.get(card.id)
    assert stored is not None
    assert (stored.owner, stored.version) == (ALICE, 1)


def test_a_gateway_draft_no_turn_claimed_is_confirmable_by_no_one(moto_tables: Tables) -> None:
    # An outside MCP client calls the Gateway: the Lambda gets only the Gateway's keys.
    answer = invoke_target(_handlers()["email_draft"], ARGS, gateway_custom(EMAIL))
    stored = moto_tables.drafts.get(answer["draftId"])
    assert stored is not None
    assert stored.owner == UNCLAIMED_OWNER
    reviewer = _reviewer(moto_tables, mailer := RecordingMailer())
    for anyone in (ALICE, BOB, UNCLAIMED_OWNER):
        with pytest.raises(DraftNotFound):
            reviewer.get(Caller(anyone), answer["draftId"])
        with pytest.raises(DraftNotFound):
            reviewer.confirm(Caller(anyone), answer["draftId"], {})
    assert mailer.sent == []


@pytest.fixture
def caller_key(moto_tables: Tables, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """The key a verifying invoker (``multitool mcp``) shares with the handlers' process."""
    key = bytes(range(32))
    monkeypatch.setenv("CALLER_CONTEXT_KEY", key.hex())
    aws_environment.cache_clear()
    return key


def test_a_draft_made_for_a_verified_caller_is_only_theirs_and_no_turn_can_claim_it(
    moto_tables: Tables, caller_key: bytes
) -> None:
    custom = sign_caller(
        gateway_custom(EMAIL, multitoolCallerId=ALICE, multitoolCallerTimezone="Europe/Berlin"), caller_key
    )
    answer = invoke_target(_handlers()["email_draft"], ARGS, custom)
    draft_id = answer["draftId"]
    assert draft_claims(moto_tables.drafts)(BOB, [draft_id]) == frozenset()
    reviewer = _reviewer(moto_tables, RecordingMailer())
    with pytest.raises(DraftNotFound):
        reviewer.confirm(Caller(BOB), draft_id, {})
    assert reviewer.confirm(Caller(ALICE), draft_id, {}).status is DraftStatus.DONE


@pytest.mark.parametrize(
    "forged",
    [{"userId": BOB}, {"owner": BOB}, {"timezone": "Asia/Tokyo"}, {"now": "2030-01-01T00:00:00Z"}],
)
def test_identity_written_into_the_arguments_is_refused(moto_tables: Tables, forged: dict[str, str]) -> None:
    answer = invoke_target(_handlers()["email_draft"], {**ARGS, **forged}, gateway_custom(EMAIL))
    assert answer["error"]["code"] == "invalid_input"
    (name,) = forged
    assert name in answer["error"]["message"]
    assert moto_tables.client.scan(TableName=moto_tables.names["DRAFTS_TABLE_NAME"])["Count"] == 0


def _pending_card_of(moto_tables: Tables, owner: str) -> str:
    """Alice's pending email card, made in her own harness turn through the Gateway."""
    results, _ = _turn(moto_tables, owner, (EMAIL, ARGS))
    (card,) = results.client_actions
    return str(card.id)


def test_a_deployed_function_ignores_caller_keys_it_has_no_key_for(moto_tables: Tables) -> None:
    # Given Alice's pending card, and a principal allowed to invoke the Lambda (no signing key here:
    # the stack sets none) who names Alice in the client context and revises her card to mail them
    alices = _pending_card_of(moto_tables, ALICE)
    custom = gateway_custom(EMAIL, multitoolCallerId=ALICE, multitoolCallerSession="s-1")
    forged = {**ARGS, "to": ["attacker@evil.test"], "revises": alices}

    answer = invoke_target(_handlers()["email_draft"], forged, custom)

    # Then the call is not Alice's: her card is untouched, and no draft of hers exists for it
    assert answer["error"]["code"] == "cannot_revise"
    stored = moto_tables.drafts.get(alices)
    assert stored is not None
    assert (stored.owner, stored.status) == (ALICE, DraftStatus.PROPOSED)
    plain = invoke_target(_handlers()["email_draft"], {**ARGS, "to": ["attacker@evil.test"]}, custom)
    made = moto_tables.drafts.get(plain["draftId"])
    assert made is not None
    assert made.owner == UNCLAIMED_OWNER


def test_caller_keys_with_a_wrong_signature_are_ignored(moto_tables: Tables, caller_key: bytes) -> None:
    custom = sign_caller(gateway_custom(EMAIL, multitoolCallerId=ALICE), b"another key of 32 bytes, not it!")
    answer = invoke_target(_handlers()["email_draft"], ARGS, custom)
    stored = moto_tables.drafts.get(answer["draftId"])
    assert stored is not None
    assert stored.owner == UNCLAIMED_OWNER
    # a signature binds one call: copied onto another request it no longer holds
    signed = sign_caller(gateway_custom(EMAIL, multitoolCallerId=ALICE), caller_key)
    replayed = {**gateway_custom(EMAIL), **{k: v for k, v in signed.items() if k.startswith("multitool")}}
    again = invoke_target(_handlers()["email_draft"], {**ARGS, "subject": "Other"}, replayed)
    other = moto_tables.drafts.get(again["draftId"])
    assert other is not None
    assert other.owner == UNCLAIMED_OWNER


def test_an_unclaimed_draft_is_revised_only_from_the_call_that_made_it(moto_tables: Tables) -> None:
    # Two outside MCP clients: both get unclaimed drafts (same placeholder owner), in their own calls.
    first = invoke_target(_handlers()["email_draft"], ARGS, gateway_custom(EMAIL))
    answer = invoke_target(
        _handlers()["email_draft"],
        {**ARGS, "to": ["attacker@evil.test"], "revises": first["draftId"]},
        gateway_custom(EMAIL),
    )
    assert answer["error"]["code"] == "cannot_revise"
    stored = moto_tables.drafts.get(first["draftId"])
    assert stored is not None
    assert stored.status is DraftStatus.PROPOSED
