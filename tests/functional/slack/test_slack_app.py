"""The Slack function's handler on Slack-signed requests in Slack's wire shapes, on moto, with the Web
API on loopback (tests.support.slack_wire): the signature, url_verification, a DM and a mention that
run one turn each (started, run asynchronously, posted), retries, the bot's own posts, unknown events."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.support.slack_env import (
    ALEX,
    COMBINED,
    STRANGER,
    assert_valid_blocks,
    handle,
    run_launched,
    slack,
)
from tests.support.slack_wire import (
    BOT_TOKEN,
    BOT_USER,
    dm,
    envelope,
    event_request,
    mention,
    signed_event,
    slack_user,
    url_verification,
)

__all__ = ["slack"]  # the fixture


# -- the signature ---------------------------------------------------------------------


def test_url_verification_answers_the_challenge(slack: dict[str, Any]) -> None:
    response = handle(event_request(url_verification("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P")))
    assert response["statusCode"] == 200
    assert json.loads(response["body"]) == {
        "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"
    }


@pytest.mark.parametrize(
    "request_of",
    [
        pytest.param(lambda body: event_request(body, secret="another-apps-secret"), id="wrong-secret"),
        pytest.param(lambda body: event_request(body, timestamp=int(time.time()) - 6 * 60), id="stale"),
        pytest.param(lambda body: event_request(body, sign=lambda _b, _t: ""), id="unsigned"),
        pytest.param(
            lambda body: {**event_request(body), "body": json.dumps({**body, "challenge": "swapped"})},
            id="body-changed",
        ),
        pytest.param(
            lambda body: {
                **event_request(body),
                "headers": {**event_request(body)["headers"], "x-slack-request-timestamp": "soon"},
            },
            id="timestamp-not-a-number",
        ),
    ],
)
def test_a_request_slack_did_not_sign_now_is_401_and_nothing_runs(
    slack: dict[str, Any], request_of: Any
) -> None:
    response = handle(request_of(url_verification("c")))
    assert response["statusCode"] == 401
    assert "challenge" not in response["body"]
    response = handle(request_of(envelope(dm(ALEX, COMBINED))))
    assert response["statusCode"] == 401
    assert slack["api"].calls == []
    assert slack["launches"].sent == []


def test_a_body_that_is_not_json_but_signed_is_answered_not_crashed(slack: dict[str, Any]) -> None:
    response = handle(signed_event(b"{not json", "application/json"))
    assert response["statusCode"] == 500
    assert slack["launches"].sent == []


# -- events -----------------------------------------------------------------------------


def test_a_direct_message_starts_one_turn_and_its_run_posts_the_reply_and_one_message_per_card(
    slack: dict[str, Any],
) -> None:
    slack["launches"].expect()
    response = handle(event_request(envelope(dm(ALEX, COMBINED))))
    assert response["statusCode"] == 200
    assert len(slack["launches"].sent) == 1
    [info] = slack["api"].of("users.info")
    assert info.params == {"user": ALEX}
    assert slack["api"].of("chat.postMessage") == []  # nothing posted before the turn runs

    assert run_launched(slack) == {"status": "done"}
    posts = slack["api"].of("chat.postMessage")
    assert len(posts) == 3
    assert all(post.params["channel"] == "D0DM00001" and "thread_ts" not in post.params for post in posts)
    assert all(post["authorization"] == f"Bearer {BOT_TOKEN}" for post in posts)
    reply, *cards = posts
    assert "blocks" not in reply.params
    assert reply.params["text"]
    for card in cards:
        assert_valid_blocks(card.params["blocks"])
        buttons = card.params["blocks"][-1]
        assert [e["action_id"] for e in buttons["elements"]] == ["mt:confirm", "mt:edit", "mt:discard"]
    email, meeting = cards
    assert "Kinshuok Sharma" in json.dumps(email.params["blocks"])
    selects = [
        e
        for b in meeting.params["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e["type"] == "static_select"
    ]
    assert [s["action_id"] for s in selects] == ["mt:slot"]
    assert 1 <= len(selects[0]["options"]) <= 100


def test_a_mention_in_a_channel_is_answered_in_its_thread(slack: dict[str, Any]) -> None:
    slack["launches"].expect()
    handle(event_request(envelope(mention(ALEX, "Email Kinshuok about the doc"), event_id="Ev0MENTION1")))
    run_launched(slack)
    posts = slack["api"].of("chat.postMessage")
    assert len(posts) == 2
    assert {(p.params["channel"], p.params["thread_ts"]) for p in posts} == {
        ("C0CHAN001", "1765000002.000300")
    }


def test_a_retry_of_an_event_never_runs_a_second_turn(slack: dict[str, Any]) -> None:
    slack["launches"].expect()
    first = envelope(dm(ALEX, COMBINED), event_id="Ev0RETRY01")
    assert handle(event_request(first))["statusCode"] == 200
    assert handle(event_request(first, retry=1))["statusCode"] == 200
    assert handle(event_request(first, retry=2))["statusCode"] == 200
    assert len(slack["launches"].sent) == 1
    assert len(slack["api"].of("users.info")) == 1


@pytest.mark.parametrize(
    "event",
    [
        pytest.param({**dm(BOT_USER, "I prepared 2 drafts"), "bot_id": "B0BOT0001"}, id="the-bots-own-post"),
        pytest.param({**dm(ALEX, "edited"), "subtype": "message_changed"}, id="an-edit"),
        pytest.param(
            {**dm(ALEX, COMBINED), "channel_type": "channel"}, id="a-channel-message-without-mention"
        ),
        pytest.param(
            {"type": "reaction_added", "user": ALEX, "reaction": "thumbsup", "event_ts": "1.2"},
            id="unknown-type",
        ),
    ],
)
def test_events_that_ask_nothing_are_acknowledged_and_ignored(
    slack: dict[str, Any], event: dict[str, Any]
) -> None:
    response = handle(event_request(envelope(event)))
    assert response["statusCode"] == 200
    assert slack["api"].calls == []
    assert slack["launches"].sent == []


def test_a_slack_user_outside_the_directory_is_told_how_to_get_access_and_nothing_is_drafted(
    slack: dict[str, Any],
) -> None:
    response = handle(event_request(envelope(dm(STRANGER, COMBINED))))
    assert response["statusCode"] == 200
    assert slack["launches"].sent == []
    [post] = slack["api"].of("chat.postMessage")
    assert "directory" in post.params["text"]
    assert "Nothing was drafted" in post.params["text"]
    drafts = slack["client"].scan(TableName=slack["tables"]["DRAFTS_TABLE_NAME"])["Items"]
    assert drafts == []


def test_an_unconfirmed_slack_email_is_nobody(slack: dict[str, Any]) -> None:
    slack["api"].users[ALEX] = slack_user(ALEX, "alex@example.com", confirmed=False)
    handle(event_request(envelope(dm(ALEX, COMBINED))))
    assert slack["launches"].sent == []
    assert "Nothing was drafted" in slack["api"].of("chat.postMessage")[0].params["text"]


# -- Slack's refusals ------------------------------------------------------------------


def test_a_rate_limited_post_is_sent_again_after_retry_after(slack: dict[str, Any]) -> None:
    slack["launches"].expect()
    handle(event_request(envelope(dm(ALEX, "Email Kinshuok about the doc"))))
    slack["api"].refuse("chat.postMessage", "ratelimited", status=429, retry_after=1)
    started = time.monotonic()
    assert run_launched(slack) == {"status": "done"}
    assert time.monotonic() - started >= 1  # waited as Slack asked
    posts = slack["api"].of("chat.postMessage")
    assert len(posts) == 3  # the limited reply, its retry, the card
    assert posts[0].params == posts[1].params


def test_a_conversation_the_bot_cannot_post_in_loses_no_draft(slack: dict[str, Any]) -> None:
    slack["launches"].expect()
    handle(event_request(envelope(dm(ALEX, COMBINED))))
    for _ in range(4):
        slack["api"].refuse("chat.postMessage", "channel_not_found")
    assert run_launched(slack) == {"status": "done"}
    drafts = slack["client"].scan(TableName=slack["tables"]["DRAFTS_TABLE_NAME"])["Items"]
    assert len(drafts) == 2
    assert {d["status"]["S"] for d in drafts} == {"proposed"}


def test_a_card_slack_refuses_is_posted_as_words_pointing_to_the_page(slack: dict[str, Any]) -> None:
    slack["launches"].expect()
    handle(event_request(envelope(dm(ALEX, "Email Kinshuok about the doc"))))
    run = slack["api"]
    run.fail["chat.postMessage"] = []
    original = run.answer

    def refuse_blocks(method: str, params: dict[str, Any]) -> Any:
        if method == "chat.postMessage" and "blocks" in params:
            return 200, {"ok": False, "error": "invalid_blocks"}, {}
        return original(method, params)

    run.answer = refuse_blocks  # type: ignore[method-assign]
    run_launched(slack)
    _reply, refused, words = run.of("chat.postMessage")
    assert "blocks" in refused.params
    assert "blocks" not in words.params
    assert "https://chat.example.com/" in words.params["text"]


def test_the_signing_secret_is_read_from_secrets_manager_and_an_empty_one_refuses_everything(
    slack: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import boto3
    from multitool.wiring.slack import aws_slack_app

    from tests.support.slack_wire import SIGNING_SECRET

    secrets = boto3.client("secretsmanager")
    arn = secrets.create_secret(Name="multitool/slack/signing-secret")["ARN"]
    monkeypatch.delenv("SLACK_SIGNING_SECRET")
    monkeypatch.setenv("SLACK_SIGNING_SECRET_ARN", arn)
    aws_slack_app.cache_clear()
    assert handle(event_request(url_verification("c")))["statusCode"] == 503  # created empty, not pasted yet
    secrets.put_secret_value(SecretId=arn, SecretString=SIGNING_SECRET)
    aws_slack_app.cache_clear()
    assert json.loads(handle(event_request(url_verification("c")))["body"]) == {"challenge": "c"}
    assert handle(event_request(url_verification("c"), secret="old"))["statusCode"] == 401


def test_the_web_api_fake_holds_calls_to_slacks_published_description(slack: dict[str, Any]) -> None:
    """The check every test ends with is live: a call the description does not allow is refused."""
    from multitool.slack.web import SlackCallFailed, SlackWeb, web_client

    web = SlackWeb(web_client(BOT_TOKEN, slack["api"].url))
    with pytest.raises(SlackCallFailed) as refused:
        web.call("chat.postMessage", channel="D0DM00001", text="hi", colour="red")
    assert refused.value.error == "invalid_arg_name"
    assert slack["api"].refused == [
        "chat.postMessage: invalid_arg_name: chat.postMessage describes no argument 'colour'"
    ]
    slack["api"].refused.clear()
