"""slack/manifest.yaml: the request URL is the stack's route, the events are the ones the app starts a
turn for, and the bot scopes are exactly the smallest set docs/slack.md lists and explains."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from infra.components.slack import ROUTE

ROOT = Path(__file__).resolve().parents[3]
SCOPES = {"app_mentions:read", "chat:write", "im:history", "users:read", "users:read.email"}


def manifest() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "slack" / "manifest.yaml").read_text(encoding="utf-8"))
    return loaded


def test_events_and_interactions_go_to_the_one_route_of_the_stack() -> None:
    settings = manifest()["settings"]
    assert settings["event_subscriptions"]["request_url"] == f"https://API_ENDPOINT{ROUTE}"
    assert settings["interactivity"] == {"is_enabled": True, "request_url": f"https://API_ENDPOINT{ROUTE}"}
    assert settings["socket_mode_enabled"] is False


def test_the_bot_listens_to_the_events_that_start_a_turn_and_nothing_more() -> None:
    assert set(manifest()["settings"]["event_subscriptions"]["bot_events"]) == {"app_mention", "message.im"}
    assert manifest()["features"]["app_home"]["messages_tab_enabled"] is True


def test_the_bot_scopes_are_the_smallest_set_and_the_docs_explain_each() -> None:
    oauth = manifest()["oauth_config"]["scopes"]
    assert set(oauth) == {"bot"}  # no user token
    assert set(oauth["bot"]) == SCOPES
    docs = (ROOT / "docs" / "slack.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Scopes and why") :]
    explained = set(re.findall(r"^\| `([a-z_.:]+)` \|", section, re.MULTILINE))
    assert explained == SCOPES
