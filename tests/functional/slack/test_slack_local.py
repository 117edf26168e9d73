"""``multitool serve --slack`` end to end: the deployed Slack function (``functions/slack/handler.py``)
behind the local server's ``POST /slack/events``, its secrets in embedded Secrets Manager, its Web API
calls answered by the Slack stand-in, which checks every one against Slack's published description
and Block Kit's rules and sends every event and click signed as Slack does. The offline model
answers; nothing is stubbed."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest

from tests.support.local_server import local_server

COMBINED = "Email Kinshuok about the doc and schedule a sync with Priya on Thursday"


class Slack:
    """The stand-in's JSON API, as ``multitool slack`` uses it."""

    def __init__(self, url: str, moto: str, page: str) -> None:
        self.url = url
        self.moto = moto
        self.page = page.rstrip("/")

    def drafts(self) -> list[dict[str, Any]]:
        """The drafts table of the server's embedded AWS, as stored."""
        dynamodb = boto3.resource("dynamodb", endpoint_url=self.moto, region_name="us-east-1")
        return dynamodb.Table("multitool-drafts").scan()["Items"]

    def post(self, action: str, **request: Any) -> dict[str, Any]:
        data = json.dumps(request).encode()
        call = urllib.request.Request(f"{self.url}/local/{action}", data=data, method="POST")
        call.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(call, timeout=30) as answer:
                return json.loads(answer.read())  # type: ignore[no-any-return]
        except urllib.error.HTTPError as error:
            raise AssertionError(f"{action}: HTTP {error.code} {error.read()!r}") from None

    def get(self, path: str) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.url}{path}", timeout=30) as answer:
            return json.loads(answer.read())  # type: ignore[no-any-return]

    def conversation(self, who: str, channel: str | None = "general") -> dict[str, Any]:
        """What ``who`` sees in ``channel`` (None: their DM with the app)."""
        return self.get(f"/local/conversation?as={who}" + (f"&channel={channel}" if channel else ""))

    def until(
        self,
        who: str,
        done: Callable[[dict[str, Any]], bool],
        channel: str | None = "general",
        seconds: float = 60,
    ) -> dict[str, Any]:
        deadline = time.monotonic() + seconds
        while True:
            seen = self.conversation(who, channel)
            if done(seen) or time.monotonic() > deadline:
                return seen
            time.sleep(0.2)


@pytest.fixture(scope="module")
def slack() -> Iterator[Slack]:
    output: list[str] = []
    with local_server(args=("--slack", "--slack-port", "0"), output=output) as page:
        [banner] = [line for line in output if "a local Slack workspace at " in line]
        [moto] = [line for line in output if "moto at " in line]
        yield Slack(
            banner.split("a local Slack workspace at ", 1)[1].split()[0],
            moto.split("moto at ", 1)[1].split(")")[0],
            page,
        )


def cards(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in conversation["messages"] if m["bot"] and m["blocks"]]


def action_ids(message: dict[str, Any]) -> dict[str, str]:
    """The message's buttons and selects: action_id by label."""
    found = {}
    for block in message["blocks"]:
        for element in block.get("elements", []) if block["type"] == "actions" else []:
            label = (element.get("text") or element.get("placeholder") or {}).get("text", "")
            found[label] = element["action_id"]
    return found


def text_of(message: dict[str, Any]) -> str:
    return json.dumps(message["blocks"], ensure_ascii=False)


def click(
    slack: Slack, who: str, message: dict[str, Any], label: str, channel: str | None = "general"
) -> None:
    sent = slack.post(
        "click",
        **{"as": who, "channel": channel, "ts": message["ts"], "action_id": action_ids(message)[label]},
    )
    assert sent["delivered"]["status"] == 200


def updated(
    slack: Slack, who: str, message: dict[str, Any], outcome: str, channel: str | None = "general"
) -> dict[str, Any]:
    """``message`` once the app has updated it in place with ``outcome``."""

    def now(conversation: dict[str, Any]) -> dict[str, Any]:
        return next(m for m in conversation["messages"] if m["ts"] == message["ts"])

    seen = now(slack.until(who, lambda c: outcome in text_of(now(c)), channel))
    assert seen["edited"]
    assert outcome in text_of(seen)
    return seen


def test_a_mention_posts_both_cards_and_edit_confirm_discard_work_for_the_asker_only(slack: Slack) -> None:
    said = slack.post("say", **{"as": "priya", "channel": "general", "text": COMBINED})
    # (The first request loads the function: past Slack's three seconds on a busy machine, Slack sends
    # it again, and the second delivery is the one answered in time: ``retry`` may be 1.)
    assert (said["delivered"]["kind"], said["delivered"]["status"]) == ("app_mention", 200)
    asked = said["messages"][-1]["ts"]
    seen = slack.until("priya", lambda c: len(cards(c)) == 2)
    email, meeting = sorted(cards(seen), key=lambda m: "Meeting" in text_of(m))
    assert "Draft email to Kinshuok Sharma" in text_of(email)
    assert "Priya Patel" in text_of(meeting)
    assert {email["thread_ts"], meeting["thread_ts"]} == {asked}  # the answer is in the mention's thread
    assert {"Confirm", "Edit", "Discard"} <= set(action_ids(email)) & set(action_ids(meeting))

    # Another member's click: refused, to them only; the card is unchanged.
    click(slack, "jordan", email, "Confirm")
    refusal = slack.until("jordan", lambda c: bool(c["ephemerals"]))["ephemerals"]
    assert len(refusal) == 1
    assert "only they can" in refusal[0]["text"]
    assert slack.conversation("priya")["ephemerals"] == []

    # Edit opens the card's modal for the asker; submitting it confirms the card with the edits.
    click(slack, "priya", email, "Edit")
    opened = slack.until("priya", lambda c: bool(c["views"]))["views"]
    assert len(opened) == 1
    inputs = {b["block_id"] for b in opened[0]["view"]["blocks"] if b["type"] == "input"}
    subject = next(a for a in inputs if "subject" in a.lower())
    submitted = slack.post(
        "submit",
        **{"as": "priya", "channel": "general", "view_id": opened[0]["id"], "values": {subject: "Doc, v2"}},
    )
    assert submitted["delivered"]["status"] == 200
    sent = updated(slack, "priya", email, ":white_check_mark: Sent")
    assert slack.conversation("priya")["views"] == []
    assert ":white_check_mark: Sent" in text_of(sent)
    assert action_ids(sent) == {}
    [done] = [d for d in slack.drafts() if d["status"] == "done"]  # sent with the modal's edits
    assert "Doc, v2" in json.dumps(done, default=str)
    assert action_ids(sent) == {}

    # Discard drops the meeting; its card says so, with no buttons left.
    click(slack, "priya", meeting, "Discard")
    discarded = updated(slack, "priya", meeting, "Discarded")
    assert "Discarded" in text_of(discarded)
    assert action_ids(discarded) == {}

    # Slack's retry of the mention (its three seconds passed): acknowledged, and no second turn.
    retried = slack.post("redeliver", retry=1, reason="http_timeout")["delivered"]
    assert (retried["kind"], retried["status"], retried["retry"]) == ("app_mention", 200, 1)
    time.sleep(3)  # a second turn would have posted two more cards by now (a turn takes ~1 s here)
    assert len(cards(slack.conversation("priya"))) == 2

    state = slack.get("/local/state")
    assert state["violations"] == []
    assert state["errors"] == []
    methods = {method for method, ok in state["calls"] if ok}
    assert {"users.info", "chat.postMessage", "chat.postEphemeral", "views.open", "chat.update"} <= methods


def test_slack_checks_the_request_url_and_an_unsigned_request_is_refused(slack: Slack) -> None:
    checked = slack.post("url_verification", challenge="3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P")
    assert checked["delivered"]["status"] == 200
    assert json.loads(checked["delivered"]["answer"]) == {
        "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"
    }
    forged = urllib.request.Request(
        f"{slack.page}/slack/events",
        data=b'{"type": "url_verification", "challenge": "x"}',
        headers={
            "Content-Type": "application/json",
            "X-Slack-Request-Timestamp": str(int(time.time())),
            "X-Slack-Signature": "v0=" + "0" * 64,
        },
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(forged, timeout=30)
    assert refused.value.code == 401
    # The function's own refusal (no JWT authorizer on the route: the signature is the authentication).
    assert json.loads(refused.value.read())["error"]["code"] == "unauthenticated"


def test_a_dm_posts_both_cards_confirm_books_the_chosen_slot_and_a_stranger_gets_words(slack: Slack) -> None:
    said = slack.post("say", **{"as": "mei", "text": COMBINED})
    assert said["delivered"]["kind"] == "message"
    email, meeting = sorted(
        cards(slack.until("mei", lambda c: len(cards(c)) == 2, channel=None)),
        key=lambda m: "Meeting" in text_of(m),
    )
    click(slack, "mei", email, "Confirm", channel=None)
    updated(slack, "mei", email, ":white_check_mark: Sent", channel=None)

    slot = next(
        b["elements"][0]
        for b in meeting["blocks"]
        if b["type"] == "actions" and b["elements"][0]["type"] == "static_select"
    )
    second = slot["options"][1]
    chosen = slack.post(
        "click",
        **{"as": "mei", "ts": meeting["ts"], "action_id": slot["action_id"], "value": second["value"]},
    )
    assert chosen["delivered"]["status"] == 200
    click(slack, "mei", meeting, "Confirm", channel=None)  # Slack sends the select's choice with it
    booked = updated(slack, "mei", meeting, ":white_check_mark: Booked", channel=None)
    assert action_ids(booked) == {}
    [draft] = [d for d in slack.drafts() if d["action"] == "show_meeting_scheduler" and d["status"] == "done"]
    start = draft["payload"]["slots"][int(second["value"])]["start"]  # the second slot, as chosen
    assert start in json.dumps({"edits": draft.get("edits"), "result": draft.get("result")}, default=str)

    slack.post("say", **{"as": "sam@partner.example", "text": COMBINED})
    seen = slack.until("sam-guest", lambda c: any(m["bot"] for m in c["messages"]), channel=None)
    replies = [m for m in seen["messages"] if m["bot"]]
    assert len(replies) == 1
    assert cards(seen) == []  # words, no card: the directory does not know the guest
    state = slack.get("/local/state")
    assert state["violations"] == []
    assert state["errors"] == []
