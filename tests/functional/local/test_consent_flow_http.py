"""The consent flow over HTTP, no browser: ``multitool serve --calendar microsoft365 --consent``.

Every request is what the page sends (the OIDC stand-in's ID token as the bearer, the API's JSON, the
consent page's form), and behind the API the deployed code path runs: AgentCoreTokens and Accounts over
a real ``bedrock-agentcore`` client at the local identity stand-in, the Microsoft 365 adapters against
the Graph stand-in, which takes only the token the stand-in issued for the signed-in user."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.support.local_server import clean_env, local_server
from tests.support.page_sign_in import page_id_token

HARNESS = "arn:aws:bedrock-agentcore:us-east-1:123456789012:harness/multitool-abc"
ASKED = "Email Priya about the doc and schedule a sync with Priya on Thursday"


@dataclass(frozen=True)
class Served:
    page: str
    graph: str
    identity: str


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    output: list[str] = []
    with local_server(args=("--calendar", "microsoft365", "--consent"), output=output) as url:
        [graph] = [line for line in output if "Graph stand-in at " in line]
        [identity] = [line for line in output if "AgentCore Identity stand-in (" in line]
        yield Served(
            url,
            graph.split("Graph stand-in at ", 1)[1].split()[0],
            identity.split("stand-in (", 1)[1].split(",")[0],
        )


class User:
    """One signed-in user of the page, sending what the page sends."""

    def __init__(self, served: Served, user: str) -> None:
        self.served = served
        self.headers = {"Authorization": f"Bearer {page_id_token(served.page, user)}"}

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        answer = httpx.request(
            method,
            self.served.page.rstrip("/") + path,
            headers=self.headers,
            json=body,
            timeout=30,
        )
        return answer.status_code, answer.json()


def consent_page(url: str) -> str:
    answer = httpx.get(url, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.text


def decide(url: str, decision: str) -> str:
    """Press Allow or Deny on the consent page at ``url``: where the browser is sent next."""
    uri = parse_qs(urlsplit(url).query)["request_uri"][0]
    answer = httpx.post(url.split("?", 1)[0], data={"request_uri": uri, "decision": decision}, timeout=10)
    assert answer.status_code == 303, answer.text
    return answer.headers["location"]


def card(reply: dict[str, Any], kind: str) -> dict[str, Any]:
    [found] = [c for c in reply.get("clientActions", []) if c["type"] == kind]
    return found


def graph_events(served: Served) -> list[dict[str, Any]]:
    value: list[dict[str, Any]] = httpx.get(f"{served.graph}/_local/events", timeout=10).json()["value"]
    return value


def test_ask_consent_come_back_confirm_books_in_the_users_own_calendar(served: Served) -> None:
    jordan = User(served, "jordan")

    # Given Jordan's account is not connected: both drafts need it (the directory is Jordan's too), so the
    # turn answers the one consent card, and nothing else
    status, reply = jordan.call("POST", "/chat", {"message": ASKED})
    assert status == 200, reply
    connect = card(reply, "show_connect_account")
    assert [c["type"] for c in reply["clientActions"]] == ["show_connect_account"]
    assert connect["provider"] == "microsoft365"
    assert connect["authorizationUrl"].startswith(f"{served.identity}/consent?request_uri=")
    assert jordan.call("GET", "/connections")[1]["connections"][0]["status"] == "pending"

    # When Jordan allows it on the consent page, which names Jordan and what multitool may do
    page = consent_page(connect["authorizationUrl"])
    assert "Allow multitool to read your calendar and send mail as" in page
    assert "jordan.lee@example.com" in page
    back = decide(connect["authorizationUrl"], "allow")
    assert back.startswith(served.page)
    session = parse_qs(urlsplit(back).query)["session_id"][0]
    # and the page, back with the session, finishes it signed in as Jordan
    status, done = jordan.call("POST", "/connections/complete", {"sessionUri": session})
    assert (status, done["status"]) == (200, "connected")
    assert jordan.call("GET", "/connections")[1]["connections"][0]["status"] == "connected"

    # Then the message sent again makes both cards, from Jordan's own directory and free/busy
    status, again = jordan.call("POST", "/chat", {"message": ASKED, "sessionId": reply["sessionId"]})
    assert status == 200, again
    email, meeting = card(again, "show_new_email_draft"), card(again, "show_meeting_scheduler")
    assert email["to"][0]["person"]["email"] == "priya.patel@example.com"
    assert meeting["slots"]
    assert jordan.call("GET", "/connections")[1]["connections"][0]["status"] == "connected"
    before = len(graph_events(served))

    # and the meeting's confirm books the event in Jordan's calendar at Microsoft 365
    status, confirmed = jordan.call(
        "POST", f"/actions/{meeting['id']}/confirm", {"slot": meeting["slots"][0]}
    )
    assert status == 200, confirmed
    events = graph_events(served)
    assert len(events) == before + 1
    assert events[-1]["organizer"]["emailAddress"]["address"] == "jordan.lee@example.com"
    assert "priya.patel@example.com" in [a["emailAddress"]["address"] for a in events[-1]["attendees"]]
    # and the email's leaves from Jordan's own mailbox
    status, sent = jordan.call("POST", f"/actions/{email['id']}/confirm", {})
    assert status == 200, sent
    mail = httpx.get(f"{served.graph}/_local/sent", timeout=10).json()["value"]
    assert mail[-1]["from"] == "jordan.lee@example.com"


def test_a_consent_finished_by_another_user_is_refused_and_connects_nothing(served: Served) -> None:
    priya, alex = User(served, "priya"), User(served, "alex-chen")
    status, reply = priya.call("POST", "/chat", {"message": "Schedule a sync with Jordan on Friday"})
    assert status == 200, reply
    link = card(reply, "show_connect_account")["authorizationUrl"]

    # When Alex opens Priya's link, allows it, and the page posts the session as Alex
    session = parse_qs(urlsplit(decide(link, "allow")).query)["session_id"][0]
    status, refused = alex.call("POST", "/connections/complete", {"sessionUri": session})

    # Then it is refused, and neither of them is connected
    assert status == 403
    assert refused["error"]["code"] == "consent_not_yours"
    assert alex.call("GET", "/connections")[1]["connections"][0]["status"] == "not_connected"
    assert priya.call("GET", "/connections")[1]["connections"][0]["status"] == "pending"
    status, still = priya.call("POST", "/chat", {"message": "Schedule a sync with Jordan on Friday"})
    assert [c["type"] for c in still["clientActions"]] == ["show_connect_account"]


def test_deny_goes_back_with_the_error_and_the_next_turn_asks_again(served: Served) -> None:
    kinshuok = User(served, "kinshuok")
    _, reply = kinshuok.call("POST", "/chat", {"message": "Schedule a sync with Priya on Thursday"})
    link = card(reply, "show_connect_account")["authorizationUrl"]

    back = decide(link, "deny")

    assert back.startswith(served.page)
    assert parse_qs(urlsplit(back).query)["error"] == ["access_denied"]
    assert "session_id" not in parse_qs(urlsplit(back).query)
    # the declined link is spent; the next turn offers a fresh one
    assert httpx.get(link, timeout=10).status_code == 400
    _, again = kinshuok.call("POST", "/chat", {"message": "Schedule a sync with Priya on Thursday"})
    assert card(again, "show_connect_account")["authorizationUrl"] != link


def test_disconnect_makes_the_next_turn_ask_again(served: Served) -> None:
    alex = User(served, "alex-muller")
    _, reply = alex.call("POST", "/chat", {"message": "Schedule a sync with Priya on Thursday"})
    session = parse_qs(
        urlsplit(decide(card(reply, "show_connect_account")["authorizationUrl"], "allow")).query
    )["session_id"][0]
    assert alex.call("POST", "/connections/complete", {"sessionUri": session})[0] == 200
    _, connected = alex.call("POST", "/chat", {"message": "Schedule a sync with Priya on Thursday"})
    assert [c["type"] for c in connected["clientActions"]] == ["show_meeting_scheduler"]

    status, gone = alex.call("POST", "/connections/microsoft365/disconnect", {})

    assert (status, gone["status"]) == (200, "disconnected")
    _, asked = alex.call("POST", "/chat", {"message": "Schedule a sync with Priya on Thursday"})
    assert [c["type"] for c in asked["clientActions"]] == ["show_connect_account"]


def test_the_graph_stand_in_refuses_any_other_token_with_graphs_401(served: Served) -> None:
    answer = httpx.get(
        f"{served.graph}/v1.0/users?$top=1", headers={"Authorization": "Bearer local-graph-token"}
    )
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "InvalidAuthenticationToken"
    assert json.dumps(answer.json()).find("local-graph-token") == -1


def test_the_same_flow_with_google_books_in_the_users_own_calendar() -> None:
    output: list[str] = []
    with local_server(args=("--calendar", "google", "--consent"), output=output) as url:
        [line] = [line for line in output if "Google stand-in at " in line]
        google = line.split("Google stand-in at ", 1)[1].split()[0]
        priya = User(Served(url, google, ""), "priya")
        _, asked = priya.call("POST", "/chat", {"message": "Schedule a sync with Jordan on Thursday"})
        connect = card(asked, "show_connect_account")
        assert connect["provider"] == "google"
        assert "priya.patel@example.com" in consent_page(connect["authorizationUrl"])
        session = parse_qs(urlsplit(decide(connect["authorizationUrl"], "allow")).query)["session_id"][0]
        assert priya.call("POST", "/connections/complete", {"sessionUri": session})[0] == 200

        _, again = priya.call("POST", "/chat", {"message": "Schedule a sync with Jordan on Thursday"})
        meeting = card(again, "show_meeting_scheduler")
        status, done = priya.call("POST", f"/actions/{meeting['id']}/confirm", {"slot": meeting["slots"][0]})

        assert status == 200, done
        booked = httpx.get(f"{google}/_local/events", timeout=10).json()["value"]
        assert [e["organizer"]["email"] for e in booked] == ["priya.patel@example.com"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--consent",), "add --calendar microsoft365|google"),
        (("--consent", "--calendar", "google", "--sign-in", "local"), "--consent needs --sign-in oidc"),
        (("--consent", "--calendar", "microsoft365", "--harness-arn", HARNESS), "--harness-arn"),
    ],
)
def test_consent_options_that_cannot_work_are_refused_before_anything_starts(
    args: tuple[str, ...], says: str
) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "multitool.local.cli", "serve", "--ephemeral", *args],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert ran.returncode == 2
    assert says in ran.stderr
    assert "Open http" not in ran.stdout


def test_the_page_is_told_the_accounts_connect(served: Served) -> None:
    config = httpx.get(f"{served.page}config.json", timeout=10).json()

    assert config["connections"] is True
    assert config["auth"] == "oidc"
