"""The local sandbox (``multitool serve``, the offline model): comment on, close, update and link the
demo's Jira issues, a card each, changed only when confirmed."""

from __future__ import annotations

from tests.functional.local.test_local_data import ok
from tests.support.local_server import local_server


def test_the_demo_comments_on_closes_updates_and_links_its_seeded_issues() -> None:
    with local_server() as url:
        first = ok(
            url,
            "POST",
            "/chat",
            {"message": "add a comment to WEB-12: fixed in build 42 and email Priya about it"},
        )
        comment, email = first["clientActions"]
        assert comment["type"] == "show_jira_comment", first
        assert comment["issue"]["item"]["fields"]["summary"] == "Login crash on Safari"
        assert email["type"] == "show_new_email_draft"
        done = ok(url, "POST", f"/actions/{comment['id']}/confirm", {})
        assert done["status"] == "done"
        assert done["result"]["issueKey"] == "WEB-12"
        assert ok(url, "POST", f"/actions/{comment['id']}/confirm", {})["result"] == done["result"]

        moved = ok(url, "POST", "/chat", {"message": "move the login crash ticket to In Review"})
        [card] = moved["clientActions"]
        assert (card["type"], card["issue"]["item"]["id"], card["transition"]) == (
            "show_jira_transition",
            "WEB-12",
            "31",
        )
        assert ok(url, "POST", f"/actions/{card['id']}/confirm", {})["result"]["status"] == "In Review"

        updated = ok(url, "POST", "/chat", {"message": "make WEB-12 high priority and assign it to Priya"})
        [card] = updated["clientActions"]
        assert card["type"] == "show_jira_update"
        assert card["assignee"]["status"] == "resolved", card
        assert ok(url, "POST", f"/actions/{card['id']}/confirm", {})["status"] == "done"

        linked = ok(url, "POST", "/chat", {"message": "link WEB-12 to OPS-3 as blocks"})
        [card] = linked["clientActions"]
        assert (card["linkType"], card["outward"]) == ("Blocks", True)
        assert ok(url, "POST", f"/actions/{card['id']}/confirm", {})["status"] == "done"
