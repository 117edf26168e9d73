"""A call waiting for the user's consent is not a draft: the reply says what to connect, not a count."""

from __future__ import annotations

from typing import Any

from multitool.chat.service import response_from
from multitool.ports.tokens import AccountNotConnected
from multitool.runtimes.offline import OfflineModel
from multitool.runtimes.traces import ToolResults
from multitool.toolkit.connect import connect_card, connect_payload

LINK = "https://login.example.com/authorize?request_uri=urn:s-1"


def waiting() -> AccountNotConnected:
    return AccountNotConnected("microsoft365", authorization_url=LINK)


def offline_reply(*bodies: dict[str, Any]) -> str:
    results = [
        {"toolResult": {"toolUseId": f"t{i}", "content": [{"json": body}], "status": "success"}}
        for i, body in enumerate(bodies)
    ]
    answer = OfflineModel().converse(messages=[{"role": "user", "content": results}])
    (block,) = answer["output"]["message"]["content"]
    return str(block["text"])


def test_the_offline_reply_names_the_account_to_connect_and_counts_no_draft_for_it() -> None:
    payload = connect_payload(waiting())
    assert payload is not None

    alone = offline_reply(payload, payload)
    assert alone == "Connect your Microsoft 365 account to go on: nothing was sent."

    email = {"action": "show_new_email_draft", "draftId": "d-1"}
    both = offline_reply(email, payload)
    assert both.startswith("I prepared an email draft for you to review.")
    assert both.endswith("Connect your Microsoft 365 account to go on: nothing was sent.")
    assert "2" not in both


def test_the_chat_fallback_counts_drafts_only_and_names_the_account() -> None:
    card = connect_card(waiting())
    assert card is not None

    alone = response_from(ToolResults(message="", client_actions=(card,)), "s-1").to_wire()
    assert alone["message"] == "Connect your Microsoft 365 account to go on: nothing was sent."
