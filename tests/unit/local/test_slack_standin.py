"""The Slack stand-in: its Web API refuses what Slack refuses (the published description, Block Kit's
rules, the bot token) and records it; what it sends an app is signed as Slack signs it; a member acts
through its page and JSON API. The app here is a tiny HTTP server in the test that checks each
request with slack_sdk's own verifier and answers through slack_sdk's own WebClient."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs

import pytest
from multitool.local.sandbox.embedded import load_seed
from multitool.local.standins.slack_delivery import signature
from multitool.local.standins.slack_server import SlackStandIn, start_slack_standin
from multitool.local.standins.slack_workspace import BOT_USER, GENERAL
from multitool.local.standins.stand_in import ThreadedServer
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.signature import SignatureVerifier


@dataclass
class TinyApp:
    """Records each request Slack's stand-in sends (verified with slack_sdk) and answers with ``answer``."""

    requests: list[tuple[bool, dict[str, str], bytes]] = field(default_factory=list)
    answer: Callable[[dict[str, Any]], tuple[int, bytes]] = lambda payload: (200, b"")
    secret: str = ""

    def payloads(self) -> list[dict[str, Any]]:
        return [_payload(h, b) for _, h, b in self.requests]


def _payload(headers: dict[str, str], body: bytes) -> dict[str, Any]:
    if headers["Content-Type"] == "application/json":
        return json.loads(body)  # type: ignore[no-any-return]
    return json.loads(parse_qs(body.decode())["payload"][0])  # type: ignore[no-any-return]


@pytest.fixture
def app() -> Iterator[TinyApp]:
    tiny = TinyApp()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            headers = dict(self.headers.items())
            verified = SignatureVerifier(tiny.secret).is_valid_request(body, headers)
            tiny.requests.append((verified, headers, body))
            status, answer = tiny.answer(_payload(headers, body))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    with ThreadedServer(("127.0.0.1", 0), Handler, name="tiny-app") as server:
        tiny.url = f"{server.url}/slack/events"  # type: ignore[attr-defined]
        yield tiny


@pytest.fixture
def slack(app: TinyApp) -> Iterator[SlackStandIn]:
    stand_in = start_slack_standin(load_seed().people, request_url=app.url, ack_seconds=1.0)  # type: ignore[attr-defined]
    app.secret = stand_in.workspace.signing_secret
    yield stand_in
    stand_in.stop()


def web(slack: SlackStandIn, token: str | None = None) -> WebClient:
    return WebClient(token=token or slack.workspace.bot_token, base_url=slack.api_url)


def card(value: str = "draft-1", *, options: int = 3) -> list[dict[str, Any]]:
    return [
        {"type": "header", "text": {"type": "plain_text", "text": "Email to Kinshuok"}},
        {"type": "section", "fields": [{"type": "mrkdwn", "text": "*To*\nKinshuok Sharma"}]},
        {
            "type": "actions",
            "block_id": "card",
            "elements": [
                {
                    "type": "button",
                    "action_id": "confirm",
                    "text": {"type": "plain_text", "text": "Confirm"},
                    "value": value,
                    "style": "primary",
                },
                {
                    "type": "button",
                    "action_id": "edit",
                    "text": {"type": "plain_text", "text": "Edit"},
                    "value": value,
                },
                {
                    "type": "static_select",
                    "action_id": "slot",
                    "placeholder": {"type": "plain_text", "text": "Pick a slot"},
                    "options": [
                        {"text": {"type": "plain_text", "text": f"Slot {i}"}, "value": f"slot-{i}"}
                        for i in range(options)
                    ],
                },
            ],
        },
    ]


def modal() -> dict[str, Any]:
    return {
        "type": "modal",
        "callback_id": "edit",
        "private_metadata": "draft-1",
        "title": {"type": "plain_text", "text": "Edit the email"},
        "submit": {"type": "plain_text", "text": "Save"},
        "blocks": [
            {
                "type": "input",
                "block_id": "subject",
                "label": {"type": "plain_text", "text": "Subject"},
                "element": {"type": "plain_text_input", "action_id": "subject", "initial_value": "The doc"},
            }
        ],
    }


def refused(call: Callable[[], Any]) -> str:
    with pytest.raises(SlackApiError) as error:
        call()
    return str(error.value.response["error"])


# -- the Web API's checks ----------------------------------------------------------------------------


def test_a_bad_chat_post_message_is_refused_as_slack_refuses_it_and_recorded(slack: SlackStandIn) -> None:
    client = web(slack)
    assert refused(lambda: client.chat_postMessage(channel="", text="hi")) == "channel_not_found"
    assert (
        refused(lambda: client.api_call("chat.postMessage", json={"text": "no channel"}))
        == "invalid_arguments"
    )
    assert (
        refused(
            lambda: client.api_call(
                "chat.postMessage", json={"channel": GENERAL, "colour": "red", "text": "x"}
            )
        )
        == "invalid_arg_name"
    )
    assert refused(lambda: client.api_call("chat.postMessage", json={"channel": GENERAL})) == "no_text"
    assert [v.error for v in slack.workspace.violations] == [
        "invalid_arguments",
        "invalid_arg_name",
        "no_text",
    ]
    assert [e.error for e in slack.workspace.errors] == ["channel_not_found"]
    assert slack.workspace.messages[GENERAL] == []


@pytest.mark.parametrize(
    ("blocks", "why"),
    [
        ([{"type": "divider"}] * 51, "51 blocks: at most 50"),
        (card(options=101), "options attribute cannot exceed 100"),
        ([{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}], "cannot exceed 3000"),
        ([{"type": "header", "text": {"type": "plain_text", "text": "x" * 151}}], "cannot exceed 150"),
        (
            [
                {
                    "type": "actions",
                    "elements": [
                        {"type": "button", "action_id": "a", "text": {"type": "plain_text", "text": "x" * 76}}
                    ],
                }
            ],
            "cannot exceed 75",
        ),
        ([{"type": "header", "text": "a string, not a text object"}], "a str where Block Kit has dict"),
        (
            [{"type": "section", "text": {"type": "mrkdwn", "text": "x"}, "colour": "red"}],
            "unknown field 'colour'",
        ),
        ([{"type": "carousel-of-doom"}], "not a block type"),
        ({"type": "divider"}, "must be an array"),
    ],
)
def test_blocks_over_block_kits_limits_are_invalid_blocks(slack: SlackStandIn, blocks: Any, why: str) -> None:
    client = web(slack)
    member = slack.workspace.member("priya")
    assert (
        refused(lambda: client.chat_postMessage(channel=member.dm, text="card", blocks=blocks))
        == "invalid_blocks"
    )
    (violation,) = slack.workspace.violations
    assert violation.error == "invalid_blocks"
    assert why in violation.detail
    assert slack.workspace.messages[member.dm] == []


def test_text_over_forty_thousand_characters_is_too_long(slack: SlackStandIn) -> None:
    assert refused(lambda: web(slack).chat_postMessage(channel=GENERAL, text="x" * 40_001)) == "msg_too_long"
    assert [v.error for v in slack.workspace.violations] == ["msg_too_long"]


def test_a_wrong_or_missing_token_is_refused(slack: SlackStandIn) -> None:
    assert refused(lambda: web(slack, "xoxb-not-the-apps").auth_test()) == "invalid_auth"
    request = urllib.request.Request(f"{slack.api_url}auth.test", data=b"", method="POST")
    with urllib.request.urlopen(request) as answer:
        assert json.loads(answer.read()) == {"ok": False, "error": "not_authed"}
    assert [v.error for v in slack.workspace.violations] == ["invalid_auth", "not_authed"]


def test_an_answer_of_the_stand_in_off_slacks_description_is_a_violation(
    slack: SlackStandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(slack.workspace, "_auth_test", lambda args: {"ok": True, "team": "t"})
    web(slack).auth_test()
    (violation,) = slack.workspace.violations
    assert (violation.method, violation.error) == ("auth.test", "answer_not_described")
    assert "required" in violation.detail


def test_a_rate_limit_answers_429_with_retry_after(slack: SlackStandIn) -> None:
    slack.workspace.fail_next("chat.postMessage", "ratelimited", retry_after=7)
    request = urllib.request.Request(
        f"{slack.api_url}chat.postMessage",
        data=json.dumps({"channel": GENERAL, "text": "hi"}).encode(),
        headers={"Authorization": f"Bearer {slack.workspace.bot_token}", "Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as limited:
        urllib.request.urlopen(request)
    assert (limited.value.code, limited.value.headers["Retry-After"]) == (429, "7")
    assert json.loads(limited.value.read()) == {"ok": False, "error": "ratelimited"}
    assert web(slack).chat_postMessage(channel=GENERAL, text="hi")["ok"]


def test_the_local_server_keeps_the_secrets_in_secrets_manager_by_arn(slack: SlackStandIn) -> None:
    import boto3
    from moto import mock_aws
    from multitool.local.sandbox.slack import slack_env

    with mock_aws():
        secrets = boto3.client("secretsmanager", region_name="us-east-1")
        env = slack_env(slack, secrets, "http://127.0.0.1:8000/")
        again = slack_env(slack, secrets, "http://127.0.0.1:8000/")  # kept data: the values replaced
        token = secrets.get_secret_value(SecretId=env["SLACK_BOT_TOKEN_ARN"])["SecretString"]
        signing = secrets.get_secret_value(SecretId=env["SLACK_SIGNING_SECRET_ARN"])["SecretString"]
    assert (token, signing) == (slack.workspace.bot_token, slack.workspace.signing_secret)
    assert again["SLACK_BOT_TOKEN_ARN"] == env["SLACK_BOT_TOKEN_ARN"]
    assert env["SLACK_API_URL"] == slack.api_url
    assert web(slack).auth_test()["user_id"] == BOT_USER


def test_users_info_gives_the_verified_email(slack: SlackStandIn) -> None:
    priya = slack.workspace.member("priya")
    user = web(slack).users_info(user=priya.id)["user"]
    assert (user["profile"]["email"], user["is_email_confirmed"], user["tz"]) == (
        "priya.patel@example.com",
        True,
        "Europe/London",
    )
    assert refused(lambda: web(slack).users_info(user="U0NOBODY")) == "user_not_found"


# -- what the stand-in sends --------------------------------------------------------------------------


def test_events_are_signed_as_slack_signs_them_and_a_tampered_body_fails(
    slack: SlackStandIn, app: TinyApp
) -> None:
    message, delivery = slack.say("priya", "Email Kinshuok about the doc")
    assert delivery.status == 200
    ((verified, headers, body),) = app.requests
    assert verified
    timestamp = headers["X-Slack-Request-Timestamp"]
    assert abs(int(timestamp) - time.time()) < 5
    assert headers["X-Slack-Signature"] == signature(slack.workspace.signing_secret, timestamp, body)
    verifier = SignatureVerifier(slack.workspace.signing_secret)
    assert not verifier.is_valid(
        body.replace(b"Kinshuok", b"Mallory!"), timestamp, headers["X-Slack-Signature"]
    )
    assert not SignatureVerifier("another-secret").is_valid(body, timestamp, headers["X-Slack-Signature"])
    envelope = json.loads(body)
    assert envelope["type"] == "event_callback"
    assert envelope["event_id"].startswith("Ev")
    assert envelope["authorizations"][0]["user_id"] == BOT_USER
    assert envelope["event"] | {"client_msg_id": "-"} == {
        "type": "message",
        "channel_type": "im",
        "user": slack.workspace.member("priya").id,
        "text": "Email Kinshuok about the doc",
        "ts": message.ts,
        "event_ts": message.ts,
        "channel": slack.workspace.member("priya").dm,
        "team": envelope["team_id"],
        "client_msg_id": "-",
    }


def test_the_apps_own_verifier_accepts_what_the_stand_in_signs_and_refuses_it_tampered(
    slack: SlackStandIn, app: TinyApp
) -> None:
    from multitool.slack.verify import NotFromSlack, verified_body

    slack.say("priya", "Email Kinshuok about the doc")
    _, headers, body = app.requests[0]
    event = {
        "headers": {k.lower(): v for k, v in headers.items()},
        "body": body.decode(),
        "isBase64Encoded": False,
    }
    assert verified_body(event, slack.workspace.signing_secret) == body
    with pytest.raises(NotFromSlack):
        verified_body(
            {**event, "body": body.decode().replace("Kinshuok", "Mallory")}, slack.workspace.signing_secret
        )
    with pytest.raises(NotFromSlack):  # replayed ten minutes later: stale
        verified_body(event, slack.workspace.signing_secret, now=lambda: time.time() + 600)


def test_a_channel_message_is_an_app_mention_and_url_verification_is_echoed(
    slack: SlackStandIn, app: TinyApp
) -> None:
    app.answer = lambda p: (200, json.dumps({"challenge": p.get("challenge")}).encode())
    assert slack.sender.url_verification("abc123").json() == {"challenge": "abc123"}
    slack.say("jordan", "book the review", channel="general")
    event = app.payloads()[-1]["event"]
    assert (event["type"], event["text"], event["channel"]) == (
        "app_mention",
        f"<@{BOT_USER}> book the review",
        GENERAL,
    )


def test_an_unanswered_event_is_sent_again_with_the_retry_headers(app: TinyApp) -> None:
    def slow_first(payload: dict[str, Any]) -> tuple[int, bytes]:
        if len(app.requests) == 1:
            time.sleep(0.5)  # past the stand-in's wait: Slack counts it as http_timeout
        return 200, b""

    app.answer = slow_first
    with start_slack_standin(load_seed().people, request_url=app.url, retries=2, ack_seconds=0.2) as slack:  # type: ignore[attr-defined]
        app.secret = slack.workspace.signing_secret
        slack.say("priya", "hello")
        time.sleep(0.6)
    first, second = app.requests[0], app.requests[1]
    assert "X-Slack-Retry-Num" not in first[1]
    assert (second[1]["X-Slack-Retry-Num"], second[1]["X-Slack-Retry-Reason"]) == ("1", "http_timeout")
    assert json.loads(first[2])["event_id"] == json.loads(second[2])["event_id"]
    assert all(verified for verified, _, _ in app.requests)


def test_a_card_is_clicked_edited_in_a_modal_and_updated_in_place_with_no_violation(
    slack: SlackStandIn, app: TinyApp
) -> None:
    client = web(slack)
    priya, jordan = slack.workspace.member("priya"), slack.workspace.member("jordan")
    asked, _ = slack.say("priya", "Email Kinshuok about the doc")
    posted = client.chat_postMessage(
        channel=asked.channel, thread_ts=asked.ts, text="Email to Kinshuok", blocks=card()
    )
    message = slack.workspace.find(asked.channel, posted["ts"])
    assert message is not None
    assert message.thread_ts == asked.ts

    slack.click("priya", message, "edit")
    action = app.payloads()[-1]
    assert action["type"] == "block_actions"
    assert action["user"]["id"] == priya.id
    assert action["container"] == {
        "type": "message",
        "message_ts": message.ts,
        "channel_id": asked.channel,
        "is_ephemeral": False,
    }
    assert action["actions"][0] | {"action_ts": "-"} == {
        "action_id": "edit",
        "block_id": "card",
        "type": "button",
        "text": {"type": "plain_text", "text": "Edit"},
        "value": "draft-1",
        "action_ts": "-",
    }
    view = client.views_open(trigger_id=action["trigger_id"], view=modal())["view"]
    assert (
        refused(lambda: client.views_open(trigger_id=action["trigger_id"], view=modal()))
        == "invalid_trigger_id"
    )

    slack.submit("priya", view["id"], {"subject": "The doc, v2"})
    submission = app.payloads()[-1]
    assert submission["type"] == "view_submission"
    assert submission["view"]["private_metadata"] == "draft-1"
    assert submission["view"]["state"]["values"] == {
        "subject": {"subject": {"type": "plain_text_input", "value": "The doc, v2"}}
    }
    assert slack.workspace.views_of(priya.id) == []

    slack.click("priya", message, "slot", "slot-2")
    assert app.payloads()[-1]["actions"][0]["selected_option"]["value"] == "slot-2"

    slack.click("jordan", message, "confirm")
    assert app.payloads()[-1]["user"]["id"] == jordan.id
    client.chat_postEphemeral(channel=asked.channel, user=priya.id, text="This card is Priya Patel's.")
    client.chat_update(
        channel=asked.channel,
        ts=message.ts,
        text="Sent",
        blocks=[{"type": "section", "text": {"type": "mrkdwn", "text": "Sent"}}],
    )
    assert (message.text, message.edited, len(slack.workspace.messages[asked.channel])) == ("Sent", True, 2)
    assert all(verified for verified, _, _ in app.requests)
    assert slack.workspace.violations == []
    assert [e.error for e in slack.workspace.errors] == ["invalid_trigger_id"]  # the trigger used twice


def test_a_trigger_expires_after_three_seconds(app: TinyApp) -> None:
    with start_slack_standin(load_seed().people, request_url=app.url, trigger_seconds=0.05) as slack:  # type: ignore[attr-defined]
        app.secret = slack.workspace.signing_secret
        client = web(slack)
        member = slack.workspace.member("mei")
        posted = client.chat_postMessage(channel=member.dm, text="card", blocks=card())
        slack.click("mei", slack.workspace.find(member.dm, posted["ts"]), "edit")  # type: ignore[arg-type]
        time.sleep(0.1)
        trigger = app.payloads()[-1]["trigger_id"]
        assert refused(lambda: client.views_open(trigger_id=trigger, view=modal())) == "expired_trigger_id"
        assert [e.error for e in slack.workspace.errors] == ["expired_trigger_id"]


def test_an_invalid_modal_is_refused(slack: SlackStandIn, app: TinyApp) -> None:
    client = web(slack)
    member = slack.workspace.member("mei")
    posted = client.chat_postMessage(channel=member.dm, text="card", blocks=card())
    slack.click("mei", slack.workspace.find(member.dm, posted["ts"]), "edit")  # type: ignore[arg-type]
    long_title = {**modal(), "title": {"type": "plain_text", "text": "A title much longer than Slack's 24"}}
    assert (
        refused(lambda: client.views_open(trigger_id=app.payloads()[-1]["trigger_id"], view=long_title))
        == "invalid_arguments"
    )
    assert "title" in slack.workspace.violations[0].detail


# -- acting as a member: the page and the JSON API ----------------------------------------------------


def _post(url: str, data: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(request) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_the_page_shows_a_card_and_its_buttons_send_block_actions(slack: SlackStandIn, app: TinyApp) -> None:
    priya = slack.workspace.member("priya")
    posted = web(slack).chat_postMessage(channel=priya.dm, text="card", blocks=card())
    with urllib.request.urlopen(f"{slack.url}/") as home:
        assert b"Sam Guest" in home.read()
    with urllib.request.urlopen(f"{slack.url}/c/{priya.dm}?as=priya") as page:
        html = page.read().decode()
    assert "Email to Kinshuok" in html
    assert "Confirm" in html
    assert "Slot 2" in html
    form = f"as=priya&channel={priya.dm}&ts={posted['ts']}&action_id=confirm".encode()
    status, _ = _post(
        f"{slack.url}/ui/click",
        form,
        {"Origin": slack.url, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 303
    assert app.payloads()[-1]["actions"][0]["action_id"] == "confirm"
    status, _ = _post(
        f"{slack.url}/ui/click",
        form,
        {"Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 403
    assert len(app.requests) == 1


def test_the_page_links_only_web_addresses(slack: SlackStandIn) -> None:
    priya = slack.workspace.member("priya")
    buttons = [
        {"type": "button", "action_id": "open", "text": {"type": "plain_text", "text": "Open"}, "url": url}
        for url in ("https://example.com/WEB-12", "javascript:alert(1)")
    ]
    blocks = [{"type": "actions", "elements": buttons}]
    web(slack).chat_postMessage(channel=priya.dm, text="links", blocks=blocks)
    with urllib.request.urlopen(f"{slack.url}/c/{priya.dm}?as=priya") as page:
        html = page.read().decode()
    assert "<a href='https://example.com/WEB-12'>" in html
    assert "javascript:" not in html


def test_the_page_writes_as_a_member_and_submits_an_open_modal(slack: SlackStandIn, app: TinyApp) -> None:
    priya = slack.workspace.member("priya")
    own = {"Origin": slack.url, "Content-Type": "application/x-www-form-urlencoded"}
    status, _ = _post(f"{slack.url}/ui/say", f"as=priya&channel={priya.dm}&text=Email+Kinshuok".encode(), own)
    assert status == 303
    assert app.payloads()[-1]["event"]["text"] == "Email Kinshuok"
    posted = web(slack).chat_postMessage(channel=priya.dm, text="card", blocks=card())
    slack.click("priya", slack.workspace.find(priya.dm, posted["ts"]), "edit")  # type: ignore[arg-type]
    view = web(slack).views_open(trigger_id=app.payloads()[-1]["trigger_id"], view=modal())["view"]
    with urllib.request.urlopen(f"{slack.url}/c/{priya.dm}?as=priya") as page:
        html = page.read().decode()
    assert "Edit the email" in html
    assert "name='f:subject' value='The doc'" in html
    form = f"as=priya&channel={priya.dm}&view_id={view['id']}&f%3Asubject=Doc%2C+v2".encode()
    status, _ = _post(f"{slack.url}/ui/submit", form, own)
    assert status == 303
    submitted = app.payloads()[-1]
    assert submitted["type"] == "view_submission"
    assert submitted["view"]["state"]["values"]["subject"]["subject"]["value"] == "Doc, v2"
    assert slack.workspace.views_of(priya.id) == []


def test_a_response_url_updates_the_message_or_answers_the_member_alone(
    slack: SlackStandIn, app: TinyApp
) -> None:
    priya = slack.workspace.member("priya")
    posted = web(slack).chat_postMessage(channel=priya.dm, text="card", blocks=card())
    message = slack.workspace.find(priya.dm, posted["ts"])
    assert message is not None
    slack.click("priya", message, "confirm")
    url = app.payloads()[-1]["response_url"]
    json_post = {"Content-Type": "application/json"}
    status, body = _post(url, json.dumps({"text": "Only you: done"}).encode(), json_post)
    assert (status, json.loads(body)) == (200, {"ok": True})
    assert [e.text for e in slack.workspace.ephemerals] == ["Only you: done"]
    replaced = {"replace_original": True, "text": "Sent", "blocks": [{"type": "divider"}] * 51}
    status, body = _post(url, json.dumps(replaced).encode(), json_post)
    assert json.loads(body) == {"ok": False, "error": "invalid_blocks"}
    assert message.text == "card"
    status, body = _post(url, json.dumps({**replaced, "blocks": [{"type": "divider"}]}).encode(), json_post)
    assert json.loads(body) == {"ok": True}
    assert (message.text, message.blocks, message.edited) == ("Sent", [{"type": "divider"}], True)
    assert [v.error for v in slack.workspace.violations] == ["invalid_blocks"]


def test_the_json_api_says_and_shows_the_conversation(slack: SlackStandIn, app: TinyApp) -> None:
    status, body = _post(
        f"{slack.url}/local/say",
        json.dumps({"as": "priya", "text": "hello"}).encode(),
        {"Content-Type": "application/json"},
    )
    answer = json.loads(body)
    assert status == 200
    assert answer["delivered"] == {"kind": "message", "status": 200, "retry": 0, "answer": ""}
    assert [m["text"] for m in answer["messages"]] == ["hello"]
    assert app.payloads()[-1]["event"]["text"] == "hello"
    with urllib.request.urlopen(f"{slack.url}/local/state") as state:
        assert json.loads(state.read())["violations"] == []
