"""Schemathesis against a real ``multitool serve``, with the committed OpenAPI document.

Every operation of docs/openapi.json is fuzzed, positive and negative data, signed in as a
seeded user (``X-Local-User``); the review routes are also sent the ids of real drafts made
through /chat first (three turns of three cards), so confirm and discard meet real state (done,
discarded, edits refused), not only 404s. Every response must be no server error, and conform
to the document: its status code, content type, headers (Retry-After) and body schema. A check
of our own, run on the same responses, refuses stack traces and internal names.

Beside the run: no route answers without a signed-in user, and another user's draft is 404.

Bounded for the gate: ``MULTITOOL_FUZZ_EXAMPLES`` examples per operation (50; derandomized so
the gate tries the same cases every run; no shrinking), each request at most
``REQUEST_TIMEOUT`` seconds, and the whole run within ``MULTITOOL_FUZZ_SECONDS`` (180).
``make fuzz`` runs it with more examples, random seeds and shrinking. The figures of the last
run go to artifacts/schemathesis.json.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from multitool.api.openapi import DOCUMENT
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.support.local_server import REPO, local_server

EXAMPLES = int(os.environ.get("MULTITOOL_FUZZ_EXAMPLES", "50"))
BUDGET_SECONDS = float(os.environ.get("MULTITOOL_FUZZ_SECONDS", "180"))
LONG_RUN = os.environ.get("MULTITOOL_FUZZ_LONG") == "1"
REQUEST_TIMEOUT = 35  # the function timeout (30 s) and some
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# What a response must never show: a stack trace, a source path, a module or model name.
INTERNALS = (
    "Traceback",
    'File "',
    ".py",
    "multitool.",
    "pydantic",
    "botocore",
    "boto3",
    "powertools",
    "moto",
    "ChatRequest",
    "DraftView",
    "EmailEdits",
    "MeetingEdits",
    "JiraEdits",
    "ValidationError",
    "KeyError",
    "TypeError",
)
# Each makes three drafts (an email, a meeting, a ticket): real state for confirm and discard to meet.
SEED_MESSAGES = (
    "Email Kinshuok about the doc, schedule a sync with Priya on Thursday and file a Jira bug in WEB: crash",
    "Email Priya about the launch, schedule a review with Kinshuok Friday and file a Jira task in WEB: docs",
    "Email Kinshuok about lunch, schedule a call with Priya tomorrow and file a Jira bug in WEB about login",
)


@dataclass
class Served:
    url: str
    user: str
    other: str
    drafts: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    calls: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)

    def post(self, path: str, body: Any, user: str | None) -> requests.Response:
        headers = {"X-Local-User": user} if user else {}
        return requests.post(self.url + path, json=body, headers=headers, timeout=REQUEST_TIMEOUT)


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with local_server() as url:
        users = requests.get(f"{url}/local/users", timeout=10).json()
        ids = [u["id"] for u in users["users"]]
        user = users["defaultUser"]
        other = next(i for i in ids if i != user)
        running = Served(url, user, other)
        for message in SEED_MESSAGES:
            reply = running.post("/chat", {"message": message}, user)
            assert reply.status_code == 200, reply.text
            running.drafts += [card["id"] for card in reply.json()["clientActions"]]
        assert len(running.drafts) == 3 * len(SEED_MESSAGES)
        REAL_DRAFTS[:] = running.drafts
        yield running
        figures = {
            "examplesPerOperation": EXAMPLES,
            "requests": sum(running.calls.values()),
            "byOperation": dict(running.calls),
            "statuses": dict(sorted(running.statuses.items())),
            "seconds": round(time.monotonic() - running.started, 1),
        }
        (REPO / "artifacts").mkdir(exist_ok=True)
        (REPO / "artifacts" / "schemathesis.json").write_text(json.dumps(figures, indent=2) + "\n")
        print(f"\nSchemathesis: {json.dumps(figures)}")


# Loaded at import (schemathesis' lazy from_fixture does not run on pytest 9); the server's URL is given
# per call, and the drafts the hook picks from are made by the ``served`` fixture before any case runs.
schema = schemathesis.openapi.from_path(str(DOCUMENT))
REAL_DRAFTS: list[str] = []


@schema.hook
def flatmap_path_parameters(context: Any, path_parameters: dict[str, Any]) -> Any:
    # Half the review calls name a real draft (the caller's own), the rest whatever was generated.
    if not REAL_DRAFTS or not path_parameters or "id" not in path_parameters:
        return st.just(path_parameters)
    real = st.sampled_from(list(REAL_DRAFTS)).map(lambda draft: {**path_parameters, "id": draft})
    return st.one_of(st.just(path_parameters), real)


@schemathesis.check
def no_internals_in_responses(ctx: Any, response: schemathesis.Response, case: schemathesis.Case) -> bool:
    text = response.text or ""
    shown = [word for word in INTERNALS if word in text]
    if shown:
        raise AssertionError(f"The response shows internal details: {shown}")
    return True


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not LONG_RUN,
    database=None,
    phases=[Phase.explicit, Phase.generate, *([Phase.shrink] if LONG_RUN else [])],
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_keeps_its_document(case: schemathesis.Case, served: Served) -> None:
    if time.monotonic() - served.started > BUDGET_SECONDS:
        pytest.fail(f"The fuzz run is over its budget of {BUDGET_SECONDS:.0f} s: lower the examples")
    response = case.call(base_url=served.url, headers={"X-Local-User": served.user}, timeout=REQUEST_TIMEOUT)
    served.calls[f"{case.method} {case.path}"] += 1
    served.statuses[str(response.status_code)] += 1
    case.validate_response(response, checks=[*CHECKS, no_internals_in_responses])


# -- beside the run: who may call what ---------------------------------------------------------------


def _operations() -> list[tuple[str, str]]:
    document = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    return [(m.upper(), p) for p, item in document["paths"].items() for m in item]


@pytest.mark.parametrize(("method", "path"), _operations())
@pytest.mark.parametrize(
    "headers",
    [{}, {"X-Local-User": "nobody-of-the-seed"}, {"X-Local-User": ""}, {"Authorization": "Bearer not-a-jwt"}],
    ids=["no user", "unknown user", "empty user", "bearer garbage"],
)
def test_no_route_answers_without_a_signed_in_user(served: Served, method: str, path: str, headers) -> None:
    target = served.url + path.replace("{id}", served.drafts[0])
    response = requests.request(
        method, target, json={"message": "hi"}, headers=headers, timeout=REQUEST_TIMEOUT
    )

    assert response.status_code == 401
    assert response.headers["content-type"].startswith("application/json")
    assert "Traceback" not in response.text


def test_another_users_draft_is_404_like_a_draft_that_does_not_exist(served: Served) -> None:
    draft = served.drafts[0]
    for method, path, body in (
        ("GET", f"/actions/{draft}", None),
        ("POST", f"/actions/{draft}/confirm", {}),
        ("POST", f"/actions/{draft}/discard", None),
    ):
        theirs = requests.request(
            method, served.url + path, json=body, headers={"X-Local-User": served.other}, timeout=30
        )
        missing = requests.request(
            method,
            served.url + path.replace(draft, "d-does-not-exist"),
            json=body,
            headers={"X-Local-User": served.other},
            timeout=30,
        )
        assert theirs.status_code == 404, (method, path, theirs.text)
        assert theirs.json()["error"]["code"] == missing.json()["error"]["code"] == "not_found"
    owner = requests.get(f"{served.url}/actions/{draft}", headers={"X-Local-User": served.user}, timeout=30)
    assert owner.status_code == 200
    assert owner.json()["id"] == draft
