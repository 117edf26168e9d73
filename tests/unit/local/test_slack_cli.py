"""``multitool slack``: a member's message, click and form, sent through the Slack stand-in to an app
(here a tiny one in the test that answers a DM with a card, a click with an update or a modal)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import pytest
from multitool.local.cli import main
from multitool.local.sandbox.embedded import load_seed
from multitool.local.standins.slack_server import SlackStandIn, start_slack_standin
from slack_sdk import WebClient
from slack_sdk.signature import SignatureVerifier

CARD: list[dict[str, Any]] = [
    {"type": "section", "text": {"type": "mrkdwn", "text": "*Draft email to Kinshuok*"}},
    {
        "type": "actions",
        "block_id": "buttons",
        "elements": [
            {"type": "button", "action_id": "mt:confirm", "text": {"type": "plain_text", "text": "Confirm"}},
            {"type": "button", "action_id": "mt:edit", "text": {"type": "plain_text", "text": "Edit"}},
        ],
    },
]
MODAL = {
    "type": "modal",
    "callback_id": "edit",
    "title": {"type": "plain_text", "text": "Edit the card"},
    "submit": {"type": "plain_text", "text": "Save"},
    "blocks": [
        {
            "type": "input",
            "block_id": "e:subject",
            "label": {"type": "plain_text", "text": "Subject"},
            "element": {"type": "plain_text_input", "action_id": "value", "initial_value": "The doc"},
        }
    ],
}


@pytest.fixture
def slack() -> Iterator[tuple[SlackStandIn, list[dict[str, Any]]]]:
    received: list[dict[str, Any]] = []
    holder: dict[str, SlackStandIn] = {}

    def act(payload: dict[str, Any]) -> None:
        stand_in = holder["slack"]
        web = WebClient(token=stand_in.workspace.bot_token, base_url=stand_in.api_url)
        if payload.get("type") == "event_callback":
            web.chat_postMessage(channel=payload["event"]["channel"], text="Draft email", blocks=CARD)
        elif payload.get("type") == "block_actions" and payload["actions"][0]["action_id"] == "mt:edit":
            web.views_open(trigger_id=payload["trigger_id"], view=MODAL)
        elif payload.get("type") == "block_actions":
            container = payload["container"]
            done = [{"type": "section", "text": {"type": "mrkdwn", "text": ":white_check_mark: Sent"}}]
            web.chat_update(
                channel=container["channel_id"], ts=container["message_ts"], text="Sent", blocks=done
            )

    class App(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            assert SignatureVerifier(holder["slack"].workspace.signing_secret).is_valid_request(
                body, dict(self.headers.items())
            )
            if self.headers["Content-Type"] == "application/json":
                payload = json.loads(body)
            else:
                payload = json.loads(parse_qs(body.decode())["payload"][0])
            received.append(payload)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            threading.Thread(target=act, args=(payload,), daemon=True).start()  # answer first, as apps must

    app = ThreadingHTTPServer(("127.0.0.1", 0), App)
    threading.Thread(target=app.serve_forever, daemon=True).start()
    holder["slack"] = start_slack_standin(
        load_seed().people, request_url=f"http://127.0.0.1:{app.server_address[1]}/slack/events"
    )
    yield holder["slack"], received
    holder["slack"].stop()
    app.shutdown()
    app.server_close()


def run(capsys: pytest.CaptureFixture[str], slack: SlackStandIn, *argv: str) -> tuple[int, str, str]:
    code = main(["slack", *argv, "--url", slack.url, *(["--wait", "5"] if argv[0] != "state" else [])])
    out, err = capsys.readouterr()
    return code, out, err


def test_say_click_and_submit_as_a_member(
    slack: tuple[SlackStandIn, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    stand_in, received = slack
    code, out, _ = run(capsys, stand_in, "say", "--as", "priya", "Email Kinshuok about the doc")
    assert code == 0
    assert "Email Kinshuok about the doc" in out
    assert "*Draft email to Kinshuok*" in out
    assert "[Confirm] [Edit]" in out
    assert received[-1]["event"]["text"] == "Email Kinshuok about the doc"

    code, out, _ = run(capsys, stand_in, "click", "--as", "priya", "Edit")
    assert code == 0
    assert "(modal " in out
    assert "e:subject='The doc'" in out

    code, out, _ = run(capsys, stand_in, "submit", "--as", "priya", "--field", "e:subject=Doc, v2")
    assert code == 0
    values = received[-1]["view"]["state"]["values"]
    assert values == {"e:subject": {"value": {"type": "plain_text_input", "value": "Doc, v2"}}}

    code, out, _ = run(capsys, stand_in, "click", "--as", "priya", "confirm")
    assert code == 0
    assert ":white_check_mark: Sent" in out
    assert "edited" in out

    code, out, _ = run(capsys, stand_in, "state")
    assert code == 0
    assert json.loads(out)["violations"] == []


def test_a_button_no_message_has_or_an_unknown_member_is_a_usage_error(
    slack: tuple[SlackStandIn, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    stand_in, received = slack
    code, _, err = run(capsys, stand_in, "click", "--as", "priya", "Confirm")
    assert code == 2
    assert "0 messages have 'Confirm'" in err
    code, _, err = run(capsys, stand_in, "say", "--as", "nobody", "hello")
    assert code == 2
    assert "no workspace member 'nobody'" in err
    assert received == []
