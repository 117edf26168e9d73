"""The user Gateway's request interceptor names the signed-in user; the targets make the draft theirs.

On moto (DynamoDB, Secrets Manager, Cognito): the interceptor Lambda gets the request as the
Gateway sends it (interceptor input 1.0, headers passed), its answer's arguments go to the real
action-group handler as the Gateway invokes a target, and the real reviewer says whose draft it is.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import boto3
import pytest
from multitool.drafts import UNCLAIMED_OWNER, DraftStatus
from multitool.local.sandbox.lambdas import LambdaContext
from multitool.local.sandbox.memory import MemoryCalendar
from multitool.ports.agentcore.gateway_caller import CALLER_ARGUMENT, verified_caller
from multitool.review import Caller, DraftNotFound, ReviewConfig
from multitool.review.reviewer import Reviewer
from multitool.wiring.action_groups import aws_environment
from multitool.wiring.interceptor import aws_interceptor

from tests.support.bedrock_events import tool_handler
from tests.support.gateway_events import (
    access_token,
    gateway_custom,
    interceptor_event,
    invoke_target,
    seed_user_gateway,
    tools_call,
)
from tests.support.moto_tables import Tables
from tests.support.review_support import RecordingMailer

EMAIL = "email-draft___create_email_draft"
MEETING = "meeting-scheduler___propose_meeting"
ARGS = {"to": ["Kinshuok"], "subject": "The doc", "body": "Here it is."}


@pytest.fixture
def user_gateway(moto_tables: Tables, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The stack's pieces: the caller-signing secret (targets and interceptor) and a pool with Alice."""
    alice = seed_user_gateway(
        boto3.client("secretsmanager", region_name="us-east-1"),
        boto3.client("cognito-idp", region_name="us-east-1"),
        "alice@example.com",
    )
    monkeypatch.setenv("CALLER_KEY_SECRET_ARN", alice.secret_arn)
    monkeypatch.setenv("USER_POOL_ID", alice.pool_id)
    aws_environment.cache_clear()
    aws_interceptor.cache_clear()
    yield {"sub": alice.sub, "username": alice.username, "pool": alice.pool_id}
    aws_interceptor.cache_clear()


def _intercept(event: dict[str, Any]) -> dict[str, Any]:
    handler = importlib.import_module("functions.mcp_caller.handler").handler
    answer: dict[str, Any] = json.loads(json.dumps(handler(event, LambdaContext("multitool-mcp-caller"))))
    return answer


def _target(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    group = name.split("___")[0].replace("-", "_")
    handler = tool_handler(group)
    answer: dict[str, Any] = invoke_target(handler, arguments, gateway_custom(name))
    return answer


def _reviewer(tables: Tables) -> Reviewer:
    return Reviewer(
        tables.drafts,
        mailer=RecordingMailer(),
        calendar=MemoryCalendar(),
        jira=None,
        config=ReviewConfig(sender_email="assistant@example.com"),
    )


def test_a_signed_in_users_call_makes_a_draft_only_they_can_confirm(
    moto_tables: Tables, user_gateway: dict[str, str]
) -> None:
    # Given Alice's tools/call, in which her client also wrote a caller of its own
    forged = {"id": "someone-else", "signature": "00"}
    event = interceptor_event(
        tools_call(EMAIL, {**ARGS, CALLER_ARGUMENT: forged}), access_token(**_who(user_gateway))
    )

    # When the interceptor answers and the Gateway invokes the target with its arguments
    answer = _intercept(event)
    assert answer["interceptorOutputVersion"] == "1.0"
    body = answer["mcp"]["transformedGatewayRequest"]["body"]
    assert (body["jsonrpc"], body["id"], body["method"], body["params"]["name"]) == (
        "2.0",
        7,
        "tools/call",
        EMAIL,
    )
    arguments = body["params"]["arguments"]
    caller = arguments[CALLER_ARGUMENT]
    assert caller["id"] == user_gateway["sub"]
    assert (caller["email"], caller["timezone"]) == (
        "alice@example.com",
        "Europe/Berlin",
    )
    assert "Bearer" not in json.dumps(answer)  # the token goes no further
    made = _target(EMAIL, arguments)

    # Then the draft is Alice's (her sub, as the page signs her in), and no one else's
    assert "draftId" in made, made
    stored = moto_tables.drafts.get(made["draftId"])
    assert stored is not None
    assert stored.owner == user_gateway["sub"]
    reviewer = _reviewer(moto_tables)
    with pytest.raises(DraftNotFound):
        reviewer.confirm(Caller("someone-else"), made["draftId"], {})
    assert reviewer.confirm(Caller(user_gateway["sub"]), made["draftId"], {}).status is DraftStatus.DONE


def _who(user_gateway: dict[str, str]) -> dict[str, str]:
    return {"sub": user_gateway["sub"], "username": user_gateway["username"]}


@pytest.mark.parametrize(
    "tamper",
    [
        lambda c: {**c, "id": "someone-else"},  # another user, same signature
        lambda c: {**c, "tool": MEETING},  # signed for another tool
        lambda c: {**c, "expires": c["expires"] + 3600},  # kept for later
        lambda c: {k: v for k, v in c.items() if k != "signature"},
    ],
)
def test_a_caller_argument_not_signed_for_this_call_makes_an_unclaimed_draft(
    moto_tables: Tables, user_gateway: dict[str, str], tamper: Any
) -> None:
    answer = _intercept(interceptor_event(tools_call(EMAIL, ARGS), access_token(**_who(user_gateway))))
    arguments = answer["mcp"]["transformedGatewayRequest"]["body"]["params"]["arguments"]
    made = _target(EMAIL, {**arguments, CALLER_ARGUMENT: tamper(arguments[CALLER_ARGUMENT])})
    stored = moto_tables.drafts.get(made["draftId"])
    assert stored is not None
    assert stored.owner == UNCLAIMED_OWNER


def test_a_signed_caller_is_good_for_its_tool_and_a_few_minutes_only(user_gateway: dict[str, str]) -> None:
    answer = _intercept(interceptor_event(tools_call(EMAIL, ARGS), access_token(**_who(user_gateway))))
    caller = answer["mcp"]["transformedGatewayRequest"]["body"]["params"]["arguments"][CALLER_ARGUMENT]
    key = aws_interceptor().key
    assert verified_caller(caller, EMAIL, key) is not None
    assert verified_caller(caller, MEETING, key) is None
    assert verified_caller(caller, EMAIL, key, now=caller["expires"] + 1) is None
    assert verified_caller(caller, EMAIL, b"another key") is None


def test_requests_other_than_a_tool_call_pass_unchanged(user_gateway: dict[str, str]) -> None:
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    answer = _intercept(interceptor_event(listing, access_token(**_who(user_gateway))))
    assert answer == {
        "interceptorOutputVersion": "1.0",
        "mcp": {"transformedGatewayRequest": {"body": listing}},
    }


def test_without_a_user_in_the_token_the_forged_caller_is_dropped_and_the_draft_unclaimed(
    moto_tables: Tables, user_gateway: dict[str, str]
) -> None:
    forged = {"id": user_gateway["sub"], "signature": "00"}
    answer = _intercept(interceptor_event(tools_call(EMAIL, {**ARGS, CALLER_ARGUMENT: forged}), None))
    arguments = answer["mcp"]["transformedGatewayRequest"]["body"]["params"]["arguments"]
    assert arguments == ARGS
    stored = moto_tables.drafts.get(_target(EMAIL, arguments)["draftId"])
    assert stored is not None
    assert stored.owner == UNCLAIMED_OWNER


def test_the_interceptor_loads_no_tool_at_cold_start() -> None:
    """It runs before every call of the user Gateway: the tools' models (~1 s to import) are not its."""
    from tests.unit.project.test_import_cost import loaded_by

    modules = ["multitool.tools", "multitool.toolkit", "multitool.toolkit.registry", "boto3"]
    assert loaded_by("mcp_caller", modules) == []


def test_a_user_the_pool_no_longer_has_still_gets_their_own_draft_in_the_default_zone(
    moto_tables: Tables, user_gateway: dict[str, str]
) -> None:
    token = access_token(sub="deleted-user-sub", username="gone@example.com")
    answer = _intercept(interceptor_event(tools_call(EMAIL, ARGS), token))
    caller = answer["mcp"]["transformedGatewayRequest"]["body"]["params"]["arguments"][CALLER_ARGUMENT]
    assert (caller["id"], caller["email"], caller["timezone"]) == ("deleted-user-sub", None, None)
    made = _target(EMAIL, answer["mcp"]["transformedGatewayRequest"]["body"]["params"]["arguments"])
    stored = moto_tables.drafts.get(made["draftId"])
    assert stored is not None
    assert stored.owner == "deleted-user-sub"


def test_the_benchs_interceptor_floor_reads_and_signs_what_the_interceptor_does(
    user_gateway: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the cold-start bench's floor for mcp_caller: the stack without multitool, same event
    from benchmarks.bench_cold_start import REFERENCES

    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "bench")
    event = interceptor_event(tools_call(EMAIL, ARGS), access_token(**_who(user_gateway)))
    floor: dict[str, Any] = {"__name__": "bench_interceptor_floor"}
    exec(compile(REFERENCES["stack, interceptor"], "floor", "exec"), floor)

    # When both answer it
    expected = _intercept(event)
    answer = json.loads(json.dumps(floor["handler"](event, LambdaContext("bench-floor"))))

    # Then the floor made the same reads (the pool's user, the secret) into the same answer's place
    arguments = answer["mcp"]["transformedGatewayRequest"]["body"]["params"]["arguments"]
    theirs = expected["mcp"]["transformedGatewayRequest"]["body"]["params"]["arguments"]
    assert {k: v for k, v in arguments.items() if k != "caller"} == {
        k: v for k, v in theirs.items() if k != CALLER_ARGUMENT
    }
    caller = arguments["caller"]
    assert (caller["id"], caller["email"], caller["zoneinfo"]) == (
        theirs[CALLER_ARGUMENT]["id"],
        theirs[CALLER_ARGUMENT]["email"],
        theirs[CALLER_ARGUMENT]["timezone"],
    )
    assert len(caller["signature"]) == len(theirs[CALLER_ARGUMENT]["signature"]) == 64
