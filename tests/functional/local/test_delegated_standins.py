"""The provider stand-ins with delegated tokens (``multitool serve --consent``): each takes only the token
the local identity stand-in issues for a person, acts as that person only, and refuses any other token
with the provider's own 401; without ``delegated`` they keep the sandbox tokens."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date

import pytest
import urllib3
from multitool.local.sandbox.embedded import load_seed
from multitool.local.standins import google_server, graph_server
from multitool.local.standins.google_server import FakeGoogle, sandbox_token, start_fake_google
from multitool.local.standins.graph_server import LOCAL_TOKEN, GraphStandIn, start_graph_stand_in

SEED = load_seed()
JORDAN = next(p for p in SEED.people if p.id == "jordan")
PRIYA = next(p for p in SEED.people if p.id == "priya")
HTTP = urllib3.PoolManager()


@pytest.fixture(scope="module")
def graph() -> Iterator[GraphStandIn]:
    served = start_graph_stand_in(SEED.people, delegated=True)
    yield served
    served.stop()


@pytest.fixture(scope="module")
def google() -> Iterator[FakeGoogle]:
    with start_fake_google(people=SEED.people, week_of=date(2026, 12, 7), delegated=True) as served:
        yield served


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}


def test_graph_acts_as_the_tokens_user_only(graph: GraphStandIn) -> None:
    jordan = bearer(graph_server.delegated_token(JORDAN))
    schedule = {
        "Schedules": [JORDAN.email],
        "StartTime": {"dateTime": "2026-12-07T00:00:00", "timeZone": "UTC"},
        "EndTime": {"dateTime": "2026-12-08T00:00:00", "timeZone": "UTC"},
    }

    own = HTTP.request(
        "POST",
        f"{graph.url}/v1.0/users/{JORDAN.email}/calendar/getSchedule",
        body=json.dumps(schedule),
        headers={**jordan, "Prefer": 'outlook.timezone="UTC"'},
    )
    someone_elses = HTTP.request(
        "POST",
        f"{graph.url}/v1.0/users/{PRIYA.email}/sendMail",
        body=json.dumps({"Message": {"subject": "x"}, "SaveToSentItems": True}),
        headers=jordan,
    )
    directory = HTTP.request("GET", f"{graph.url}/v1.0/users?$top=1", headers=jordan)

    assert own.status == 200, own.data
    assert someone_elses.status == 403
    assert json.loads(someone_elses.data)["error"]["code"] == "ErrorAccessDenied"
    assert directory.status == 200  # the directory is every signed-in user's to read
    assert graph.state.sent == []


@pytest.mark.parametrize("token", [LOCAL_TOKEN, "local-microsoft365-nobody", "local-google-jordan"])
def test_graph_refuses_any_other_token_with_its_401(graph: GraphStandIn, token: str) -> None:
    answer = HTTP.request("GET", f"{graph.url}/v1.0/users?$top=1", headers=bearer(token))

    assert answer.status == 401
    assert json.loads(answer.data)["error"]["code"] == "InvalidAuthenticationToken"
    assert "invalid_token" in answer.headers["WWW-Authenticate"]


def test_graph_hands_the_functions_no_token_when_delegated(graph: GraphStandIn) -> None:
    assert "PROVIDER_TOKEN" not in graph.env
    plain = start_graph_stand_in(SEED.people)
    try:
        assert plain.env["PROVIDER_TOKEN"] == LOCAL_TOKEN
    finally:
        plain.stop()


def test_google_takes_the_identity_stand_ins_token_and_refuses_the_sandbox_one(google: FakeGoogle) -> None:
    search = (
        f"{google.url}/v1/people:searchDirectoryPeople?query=Priya&readMask=names,emailAddresses"
        "&sources=DIRECTORY_SOURCE_TYPE_DOMAIN_PROFILE"
    )
    jordan = HTTP.request("GET", search, headers=bearer(google_server.delegated_token(JORDAN)))
    sandbox = HTTP.request("GET", search, headers=bearer(sandbox_token(JORDAN.email)))

    assert jordan.status == 200, jordan.data
    assert sandbox.status == 401
    assert json.loads(sandbox.data)["error"]["status"] == "UNAUTHENTICATED"
    assert "PROVIDER_TOKENS" not in google.env
