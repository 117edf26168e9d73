"""Per-user consent from Slack, end to end: ``multitool serve --slack --calendar microsoft365 --consent``.

The deployed Slack function behind the local server, its Web API calls answered (and checked against
Slack's published description and Block Kit) by the Slack stand-in, its tokens from the local AgentCore
Identity stand-in over a real ``bedrock-agentcore`` client (``GetWorkloadAccessTokenForUserId`` for the
Slack user's directory person, validated against botocore's model), and Microsoft 365 a Graph stand-in
that takes only a token the identity stand-in issued for that very person. The consent comes back to the
page, where the person signs in (the OIDC stand-in) and the page posts the session to
``POST /connections/complete``, as in the browser."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import boto3
import httpx
import pytest
from multitool.ports.agentcore.tokens import slack_vault_user

from tests.functional.local.test_consent_flow_http import consent_page, decide
from tests.functional.slack.test_slack_local import Slack, action_ids, text_of
from tests.support.local_server import local_server
from tests.support.page_sign_in import page_id_token as id_token

COMBINED = "Email Kinshuok about the doc and schedule a sync with Priya on Thursday"


class Served(Slack):
    """The Slack stand-in, and the Graph stand-in's own record of what was sent."""

    graph: str = ""


@pytest.fixture(scope="module")
def slack() -> Iterator[Served]:
    output: list[str] = []
    args = ("--slack", "--slack-port", "0", "--calendar", "microsoft365", "--consent")
    with local_server(args=args, output=output) as page:
        [banner] = [line for line in output if "a local Slack workspace at " in line]
        [moto] = [line for line in output if "moto at " in line]
        [graph] = [line for line in output if "Graph stand-in at " in line]
        served = Served(
            banner.split("a local Slack workspace at ", 1)[1].split()[0],
            moto.split("moto at ", 1)[1].split(")")[0],
            page,
        )
        served.graph = graph.split("Graph stand-in at ", 1)[1].split()[0]
        yield served


def complete(slack: Slack, user: str, session_uri: str) -> tuple[int, Any]:
    """``user`` signed in to the page, posting the session the consent came back with (as the page does)."""
    answer = httpx.post(
        f"{slack.page}/connections/complete",
        headers={"Authorization": f"Bearer {id_token(slack.page + '/', user)}"},
        json={"sessionUri": session_uri},
        timeout=30,
    )
    return answer.status_code, answer.json()


def connect_cards(messages: list[dict[str, Any]], provider: str = "Microsoft 365") -> list[dict[str, Any]]:
    return [m for m in messages if m.get("blocks") and f"Connect {provider}" in action_ids(m)]


def draft_cards(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in conversation["messages"] if m["bot"] and m["blocks"] and "Confirm" in action_ids(m)]


def test_a_dm_answers_the_connect_card_and_only_the_same_persons_page_sign_in_connects_it(
    slack: Slack,
) -> None:
    # Given Priya has not connected Microsoft 365: her DM is answered with the connect card, in the DM
    said = slack.post("say", **{"as": "priya", "text": COMBINED})
    assert said["delivered"]["kind"] == "message"
    seen = slack.until("priya", lambda c: bool(connect_cards(c["messages"])), channel=None)
    [card] = connect_cards(seen["messages"])
    assert card["bot"]
    assert "nothing was sent" in text_of(card)
    assert draft_cards(seen) == []
    [button] = [e for b in card["blocks"] if b["type"] == "actions" for e in b["elements"]]
    url = button["url"]

    # The link is the same consent the page's card opens: the stand-in's consent page, for Priya
    assert "Priya" in consent_page(url)
    back = decide(url, "allow")
    assert back.startswith(slack.page)  # the provider returns through AgentCore to the page
    session_uri = parse_qs(urlsplit(back).query)["session_id"][0]

    # Jordan, signed in to the page with the forwarded link: not his consent, nothing bound
    status, body = complete(slack, "jordan", session_uri)
    assert status == 403, body
    assert body["error"]["code"] == "consent_not_yours"

    # Priya signs in to the page: her verified email is the directory person the Slack user matched
    status, body = complete(slack, "priya", session_uri)
    assert status == 200, body
    assert body["status"] == "connected"
    status, _ = complete(slack, "priya", session_uri)
    assert status == 403  # once

    # Her next DM acts with her own token: the Graph stand-in takes only the one issued for her person
    slack.post("say", **{"as": "priya", "text": COMBINED})
    seen = slack.until("priya", lambda c: len(draft_cards(c)) == 2, channel=None)
    email, meeting = sorted(draft_cards(seen), key=lambda m: "Meeting" in text_of(m))
    assert "Kinshuok" in text_of(email)
    assert len(connect_cards(seen["messages"])) == 1  # no second connect card

    # and her Confirm sends from her own mailbox
    sent = slack.post(
        "click", **{"as": "priya", "ts": email["ts"], "action_id": action_ids(email)["Confirm"]}
    )
    assert sent["delivered"]["status"] == 200
    slack.until("priya", lambda c: any(m["edited"] for m in c["messages"]), channel=None)
    mail = httpx.get(f"{slack.graph}/_local/sent", timeout=10).json()["value"]
    assert mail[-1]["from"] == "priya.patel@example.com"

    # Once the account is disconnected (the connection recorded so), a Confirm asks for a fresh consent:
    # the connect card to the clicker only, and the meeting's card stays as it is, confirmable
    limits = boto3.resource("dynamodb", endpoint_url=slack.moto, region_name="us-east-1").Table(
        "multitool-limits"
    )
    key = {"pk": f"CONNECTION#{slack_vault_user('priya.patel@example.com')}#microsoft365"}
    assert limits.get_item(Key=key)["Item"]["status"] in ("completed", "connected")
    limits.update_item(
        Key=key,
        UpdateExpression="SET #s = :d",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":d": "disconnected"},
    )
    slot = action_ids(meeting)["Choose a time"]
    chosen = slack.post("click", **{"as": "priya", "ts": meeting["ts"], "action_id": slot, "value": "0"})
    assert chosen["delivered"]["status"] == 200
    clicked = slack.post(
        "click", **{"as": "priya", "ts": meeting["ts"], "action_id": action_ids(meeting)["Confirm"]}
    )
    assert clicked["delivered"]["status"] == 200
    seen = slack.until("priya", lambda c: bool(connect_cards(c["ephemerals"])), channel=None)
    [again] = connect_cards(seen["ephemerals"])
    assert "confirm it again once the account is connected" in text_of(again)
    [still] = [m for m in seen["messages"] if m["ts"] == meeting["ts"]]
    assert not still["edited"]
    assert "Confirm" in action_ids(still)

    # Page and Slack keep their own connections: the page's list for Priya says not connected
    token = id_token(slack.page + "/", "priya")
    listed = httpx.get(
        f"{slack.page}/connections", headers={"Authorization": f"Bearer {token}"}, timeout=30
    ).json()
    assert {c["provider"]: c["status"] for c in listed["connections"]} == {"microsoft365": "not_connected"}

    state = slack.get("/local/state")
    assert state["violations"] == []
    assert state["errors"] == []


def test_a_mention_in_a_channel_shows_the_connect_card_to_the_asker_only(slack: Slack) -> None:
    said = slack.post("say", **{"as": "mei", "channel": "general", "text": COMBINED})
    assert said["delivered"]["kind"] == "app_mention"
    seen = slack.until("mei", lambda c: bool(connect_cards(c["ephemerals"])))
    [card] = connect_cards(seen["ephemerals"])
    assert card["thread_ts"] == said["messages"][-1]["ts"]
    # Nobody else sees it, and nothing of it is in the channel
    assert connect_cards(slack.conversation("mei")["messages"]) == []
    assert connect_cards(slack.conversation("jordan")["ephemerals"]) == []
    assert json.dumps(slack.conversation("jordan")).count("request_uri") == 0


def test_a_slack_user_with_no_directory_match_still_gets_the_words_on_access(slack: Slack) -> None:
    slack.post("say", **{"as": "sam@partner.example", "text": COMBINED})
    seen = slack.until("sam-guest", lambda c: any(m["bot"] for m in c["messages"]), channel=None)
    replies = [m for m in seen["messages"] if m["bot"]]
    assert len(replies) == 1
    assert "directory" in replies[0]["text"]
    assert connect_cards(seen["messages"]) == []


@pytest.fixture(scope="module")
def google_slack() -> Iterator[Slack]:
    output: list[str] = []
    args = ("--slack", "--slack-port", "0", "--calendar", "google", "--consent")
    with local_server(args=args, output=output) as page:
        [banner] = [line for line in output if "a local Slack workspace at " in line]
        [moto] = [line for line in output if "moto at " in line]
        yield Slack(
            banner.split("a local Slack workspace at ", 1)[1].split()[0],
            moto.split("moto at ", 1)[1].split(")")[0],
            page,
        )


def test_google_workspace_is_connected_from_slack_the_same_way(google_slack: Slack) -> None:
    slack = google_slack
    slack.post("say", **{"as": "jordan", "text": COMBINED})
    seen = slack.until(
        "jordan", lambda c: bool(connect_cards(c["messages"], "Google Workspace")), channel=None
    )
    [card] = connect_cards(seen["messages"], "Google Workspace")
    [button] = [e for b in card["blocks"] if b["type"] == "actions" for e in b["elements"]]
    session_uri = parse_qs(urlsplit(decide(button["url"], "allow")).query)["session_id"][0]
    assert complete(slack, "jordan", session_uri)[0] == 200

    slack.post("say", **{"as": "jordan", "text": COMBINED})
    seen = slack.until("jordan", lambda c: len(draft_cards(c)) == 2, channel=None)
    assert len(draft_cards(seen)) == 2
    state = slack.get("/local/state")
    assert state["violations"] == []
    assert state["errors"] == []
