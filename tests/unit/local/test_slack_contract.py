"""Slack's published Web API description: the committed subset is what its module builds from the
recorded source file, and requests are read and refused as Slack reads and refuses them."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest
from multitool.local.standins.slack_contract import SlackRefusal, slack_contract
from multitool.local.standins.slack_openapi import (
    COMMIT,
    METHODS,
    SOURCE_BLOB,
    SUBSET,
    build_subset,
    git_blob_id,
    render,
)

SOURCE = Path(__file__).parents[2] / "support" / "slack" / "slack_web_openapi_v2_without_examples.json.xz"
BEARER = {"Authorization": "Bearer xoxb-1", "Content-Type": "application/json"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def test_the_committed_subset_is_what_the_module_builds_from_the_recorded_source() -> None:
    source = lzma.decompress(SOURCE.read_bytes())
    assert git_blob_id(source) == SOURCE_BLOB  # the very file of slackapi/slack-api-specs at COMMIT
    assert SUBSET.read_text(encoding="utf-8") == render(build_subset(source))


def test_a_source_that_is_not_the_recorded_file_is_refused() -> None:
    source = lzma.decompress(SOURCE.read_bytes())
    with pytest.raises(ValueError, match="blob id"):
        build_subset(source.replace(b"Sends a message to a channel.", b"Sends a message."))


def test_the_subset_holds_the_methods_the_app_calls_and_names_its_source() -> None:
    contract = slack_contract()
    assert contract.methods == tuple(f for f in METHODS)
    assert contract.source["commit"] == COMMIT
    assert set(contract.document["definitions"]) >= {"objs_message", "defs_ts", "objs_user"}
    assert "chat:write:bot" in contract.document["securityDefinitions"]["slackAuth"]["scopes"]


def test_arguments_are_read_from_json_form_or_query_as_slack_reads_them() -> None:
    contract = slack_contract()
    blocks = [{"type": "divider"}]
    by_json = contract.read_request(
        "chat.postMessage", BEARER, "", json.dumps({"channel": "D1", "blocks": blocks}).encode()
    )
    by_form = contract.read_request(
        "chat.postMessage",
        FORM,
        "",
        f"token=xoxb-1&channel=D1&blocks={json.dumps(blocks)}&unfurl_links=false".encode(),
    )
    assert by_json.arguments == {"channel": "D1", "blocks": blocks}
    assert by_form.arguments == {"channel": "D1", "blocks": blocks, "unfurl_links": False}
    assert by_form.token == by_json.token == "xoxb-1"
    # The description has views.open as a GET with query arguments; SDKs post JSON, which Slack takes.
    view = {"type": "modal"}
    opened = contract.read_request(
        "views.open", BEARER, "", json.dumps({"trigger_id": "1.2.3", "view": view}).encode()
    )
    assert opened.arguments["view"] == view
    assert contract.read_request("users.info", {}, "token=xoxb-1&user=U1", b"").arguments == {"user": "U1"}


@pytest.mark.parametrize(
    ("method", "headers", "query", "body", "error"),
    [
        ("chat.postMessage", {"Content-Type": "application/json"}, "", b'{"channel": "D1"}', "not_authed"),
        ("chat.postMessage", FORM, "", b"channel=D1&text=hi", "not_authed"),
        ("chat.postMessage", BEARER, "", b'{"channel": "D1", "txt": "hi"}', "invalid_arg_name"),
        ("chat.postMessage", BEARER, "", b'{"text": "hi"}', "invalid_arguments"),
        ("chat.postMessage", BEARER, "", b'{"channel": "D1", "text": 5}', "invalid_arguments"),
        ("chat.postMessage", BEARER, "", b'{"channel": "D1", "unfurl_links": "maybe"}', "invalid_arguments"),
        ("chat.postMessage", FORM, "token=t", b"channel=D1&blocks=%5Bnot-json", "invalid_arguments"),
        ("chat.postMessage", BEARER, "", b"{not json", "invalid_json"),
        ("chat.postMessage", BEARER, "", b"[1]", "json_not_object"),
        (
            "chat.postMessage",
            {"Authorization": "Bearer t", "Content-Type": "text/plain"},
            "",
            b"x",
            "invalid_post_type",
        ),
        ("chat.delete", BEARER, "", b'{"channel": "D1", "ts": "1.2"}', "unknown_method"),
        ("views.open", BEARER, "", b'{"view": {}}', "invalid_arguments"),
    ],
)
def test_a_request_the_description_does_not_allow_is_refused_with_slacks_code(
    method: str, headers: dict[str, str], query: str, body: bytes, error: str
) -> None:
    with pytest.raises(SlackRefusal) as refused:
        slack_contract().read_request(method, headers, query, body)
    assert refused.value.error == error


def test_answers_are_checked_against_the_described_responses() -> None:
    contract = slack_contract()
    contract.check_answer("chat.postEphemeral", {"ok": True, "message_ts": "1700000000.000100"})
    contract.check_answer("chat.postMessage", {"ok": False, "error": "channel_not_found"})
    with pytest.raises(AssertionError, match="message_ts"):
        contract.check_answer("chat.postEphemeral", {"ok": True, "message_ts": "soon"})
    with pytest.raises(AssertionError, match="error"):
        contract.check_answer("chat.postMessage", {"ok": False, "error": "no_such_code"})
