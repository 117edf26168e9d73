"""Turns past the request in the orchestrator's own handler, on moto: the start, the self-invocation (a
real Lambda client, its Invoke checked against botocore's model by a Stubber), the run, its failures."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from multitool.chat.turn_store import LOST, START_WITHIN_SECONDS, DynamoTurnStore, StoredTurn
from multitool.people import Person
from multitool.runtimes import OfflineHarness

from tests.support.chat_env import Launches, offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body

COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"
# What the model did not understand it says beside its calls: text streamed before the cards.
WITH_ASIDE = "Email Kinshuok about the doc, schedule a sync for Thursday and water the plants"
PEOPLE = [
    Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com", timezone="Asia/Kolkata"),
    Person(id="p2", display_name="Priya Natarajan", email="priya@example.com", timezone="Europe/Berlin"),
]
ASYNC = {"Prefer": "respond-async"}


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    with offline_chat_env(monkeypatch, PEOPLE) as environment:
        launches = Launches()
        real_client = boto3.client

        def client(service: str, *args: Any, **kwargs: Any) -> Any:
            return launches.client if service == "lambda" else real_client(service, *args, **kwargs)

        monkeypatch.setattr(boto3, "client", client)
        from multitool.wiring.orchestrator import aws_chat_turns

        aws_chat_turns.cache_clear()
        yield {**environment, "launches": launches}
        aws_chat_turns.cache_clear()


def handle(event: dict[str, Any]) -> dict[str, Any]:
    from functions.orchestrator.handler import handler

    return handler(event, FakeLambdaContext())


def start(body: Any, sub: str = "user-1", headers: dict[str, str] | None = None) -> dict[str, Any]:
    return handle(http_api_event("POST", "/chat", body, sub=sub, headers={**ASYNC, **(headers or {})}))


def read(turn_id: str, sub: str = "user-1", after: int | None = None) -> dict[str, Any]:
    query = {"after": str(after)} if after is not None else None
    return handle(
        http_api_event(
            "GET",
            f"/turns/{turn_id}",
            sub=sub,
            path_parameters={"id": turn_id},
            query=query,
            route_key="GET /turns/{id}",
        )
    )


def count(env: dict[str, Any], table: str) -> int:
    return int(env["client"].scan(TableName=env["tables"][table], Select="COUNT")["Count"])


def test_the_turn_runs_in_the_invocation_the_start_launched_once(env: dict[str, Any]) -> None:
    launches: Launches = env["launches"]
    launches.expect()
    answer = start({"message": WITH_ASIDE})
    assert answer["statusCode"] == 202
    started = json_body(answer)
    launches.stubber.assert_no_pending_responses()  # one Invoke, of the shape Lambda's API accepts
    assert launches.payload() == {"multitoolTurn": {"turnId": started["turnId"]}}
    assert json_body(read(started["turnId"]))["events"] == []  # nothing ran yet
    assert count(env, "DRAFTS_TABLE_NAME") == 0

    assert handle(launches.payload()) == {"status": "done"}
    view = json_body(read(started["turnId"]))
    assert view["status"] == "done"
    events = view["events"]
    assert [e["type"] for e in events if e["type"] != "text"] == ["card", "card", "done"]
    # the harness streams its text: what the model wrote before its tool calls came before their cards
    kinds = [e["type"] for e in events]
    assert kinds[0] == "text"
    assert "".join(e["text"] for e in events[: kinds.index("card")]).strip()
    drafts = count(env, "DRAFTS_TABLE_NAME")
    assert drafts == 2
    # Lambda may deliver an event twice: the second delivery runs nothing
    assert handle(launches.payload()) == {"status": "skipped"}
    assert count(env, "DRAFTS_TABLE_NAME") == drafts
    assert json_body(read(started["turnId"], after=view["next"]))["events"] == []


def test_a_refused_launch_answers_503_and_the_turn_is_failed(env: dict[str, Any]) -> None:
    launches: Launches = env["launches"]
    launches.stubber.add_client_error("invoke", "TooManyRequestsException", http_status_code=429)
    launches.stubber.add_client_error("invoke", "TooManyRequestsException", http_status_code=429)
    answer = start({"message": COMBINED})
    assert answer["statusCode"] == 503
    assert answer["headers"]["Retry-After"] == "2"
    assert json_body(answer)["error"]["code"] == "turns_unavailable"
    (item,) = env["client"].scan(TableName=env["tables"]["TURNS_TABLE_NAME"])["Items"]
    assert item["status"]["S"] == "failed"
    assert json.loads(item["events"]["L"][-1]["S"])["error"]["code"] == "turn_not_started"


def test_a_model_failure_ends_the_turn_with_the_answer_post_chat_gives_it(
    env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def throttled(self: OfflineHarness, **kwargs: Any) -> Any:
        raise ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "InvokeHarness")

    monkeypatch.setattr(OfflineHarness, "invoke_harness", throttled)
    launches: Launches = env["launches"]
    launches.expect()
    started = json_body(start({"message": COMBINED}))
    assert handle(launches.payload()) == {"status": "failed"}
    view = json_body(read(started["turnId"]))
    assert view["status"] == "failed"
    assert view["events"] == [
        {
            "type": "failed",
            "status": 503,
            "error": {
                "code": "model_busy",
                "message": "The assistant is busy right now. Retry in 2 seconds.",
            },
            "retryAfter": 2,
        }
    ]
    # and the same request without Prefer answers exactly that
    waited = handle(http_api_event("POST", "/chat", {"message": COMBINED}))
    assert waited["statusCode"] == 503
    assert json_body(waited)["error"] == view["events"][0]["error"]


def test_only_the_owner_reads_a_turn(env: dict[str, Any]) -> None:
    env["launches"].expect()
    started = json_body(start({"message": COMBINED}))
    for answer in (read(started["turnId"], sub="user-2"), read("t-unknownunknownunknown")):
        assert answer["statusCode"] == 404
        assert json_body(answer)["error"]["code"] == "not_found"
    assert read(started["turnId"])["statusCode"] == 200
    unauthenticated = handle(
        http_api_event(
            "GET", f"/turns/{started['turnId']}", sub=None, path_parameters={"id": started["turnId"]}
        )
    )
    assert unauthenticated["statusCode"] == 401


def test_a_turn_whose_invocation_never_came_or_ended_early_reads_as_lost(env: dict[str, Any]) -> None:
    store = DynamoTurnStore(env["tables"]["TURNS_TABLE_NAME"], env["client"], clock=lambda: 1_000.0)
    store.create("t-oldoldoldoldold", "user-1", "s-1", {"request": {"message": "hi"}})
    turn = store.get("t-oldoldoldoldold")
    assert turn is not None
    assert turn.status == "running"
    assert turn.settled(now=1_000.0 + START_WITHIN_SECONDS).status == "running"
    lost = turn.settled(now=1_000.0 + START_WITHIN_SECONDS + 1)
    assert (lost.status, lost.events[-1]) == ("failed", LOST)
    # too old to start: an invocation arriving now runs nothing
    later = DynamoTurnStore(store.table_name, env["client"], clock=lambda: 1_000.0 + START_WITHIN_SECONDS + 5)
    assert later.start("t-oldoldoldoldold", deadline=2_000.0) is None
    cut = StoredTurn("t-x", "user-1", "s-1", "running", {}, 1_000.0, (), deadline=1_100.0)
    assert cut.settled(now=1_110.0).status == "running"
    assert cut.settled(now=1_120.0).status == "failed"


def _emf(printed: str) -> list[dict[str, Any]]:
    """The CloudWatch embedded-metric documents among what the handler printed."""
    documents = [json.loads(line) for line in printed.splitlines() if line.startswith("{")]
    return [d for d in documents if "CloudWatchMetrics" in d.get("_aws", {})]


@pytest.mark.parametrize(
    ("code", "counted"), [("ThrottlingException", "ModelBusy"), ("ValidationException", "ModelFailed")]
)
def test_a_turn_the_model_failed_is_counted_for_the_stacks_alarms(
    env: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    code: str,
    counted: str,
) -> None:
    def failing(self: OfflineHarness, **kwargs: Any) -> Any:
        raise ClientError({"Error": {"Code": code, "Message": "no"}}, "InvokeHarness")

    monkeypatch.setattr(OfflineHarness, "invoke_harness", failing)
    launches: Launches = env["launches"]
    launches.expect()
    start({"message": COMBINED})
    capsys.readouterr()

    assert handle(launches.payload()) == {"status": "failed"}
    (document,) = _emf(capsys.readouterr().out)
    # one figure for the model runtime's failure, one for the async turn answered as failed
    assert (document[counted], document["TurnsFailed"]) == ([1.0], [1.0])
    (directive,) = document["_aws"]["CloudWatchMetrics"]
    assert directive["Dimensions"] == [
        ["service"]
    ]  # what the stack's alarms name (infra.components.operations)
    assert document["service"] == "multitool"

    # the same failure answered inline counts the model's failure, and no async turn
    waited = handle(http_api_event("POST", "/chat", {"message": COMBINED}))
    assert waited["statusCode"] in (502, 503)
    (document,) = _emf(capsys.readouterr().out)
    assert document[counted] == [1.0]
    assert "TurnsFailed" not in document


def test_an_answered_turn_counts_no_failure(env: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    launches: Launches = env["launches"]
    launches.expect()
    start({"message": COMBINED})
    capsys.readouterr()
    assert handle(launches.payload()) == {"status": "done"}
    documents = _emf(capsys.readouterr().out)
    counted = {
        name
        for d in documents
        for m in d["_aws"]["CloudWatchMetrics"]
        for name in (x["Name"] for x in m["Metrics"])
    }
    assert "ClientActions" in counted
    assert not counted & {"ModelBusy", "ModelFailed", "TurnsFailed"}
