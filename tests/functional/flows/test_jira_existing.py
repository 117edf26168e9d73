"""Comment on, move, update and link existing Jira issues: a card from a tool call, then a confirm.

The calls run through :func:`multitool.tools.run_calls` with the Jira reader the proposing
functions hold; the confirms through the review app on wire-shaped HTTP API events. Jira is the
loopback fake (its demo issues seeded), which checks every request's shape, reached with the
organization's account (basic auth) or as each user (a bearer token through Atlassian's gateway,
the user's own browse permissions).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
import urllib3
from multitool.api.review_app import review_app
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory
from multitool.local.standins.jira_server import FakeJira, start_fake_jira
from multitool.ports.atlassian.jira_cloud import JiraCloudClient
from multitool.ports.atlassian.jira_user import AtlassianJiraClient, CloudIds
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.tokens import Account, Provider
from multitool.review import ReviewConfig
from multitool.review.reviewer import Reviewer
from multitool.tools import ToolContext, ToolPorts, run_calls

from tests.support.bedrock_events import sample_people
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import Tables
from tests.support.review_support import OWNER, SENDER

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
PRIYA = "priya@example.com"


class UserTokens:
    def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
        return f"local-{provider}-{account.user_id}"


def organization(jira: FakeJira) -> Callable[[Account], Any]:
    client = JiraCloudClient(jira.url, jira.email, jira.api_token, urllib3.PoolManager())
    return lambda _account: client


def as_user(jira: FakeJira) -> Callable[[Account], Any]:
    cloud_ids = CloudIds()

    def for_account(account: Account) -> AtlassianJiraClient:
        return AtlassianJiraClient(
            account,
            UserTokens(),  # type: ignore[arg-type]
            site_url=jira.url,
            http=urllib3.PoolManager(),
            cloud_ids=cloud_ids,
            api_base=jira.url,
        )

    return for_account


@dataclass
class Desk:
    jira: FakeJira
    ports: ToolPorts
    app: Any
    drafts: DynamoDraftStore

    def ask(self, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
        ctx = ToolContext(owner=OWNER, session_id="s-1", now=NOW, timezone="UTC")
        return run_calls(list(calls), ctx, self.ports)

    def confirm(self, draft_id: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        event = http_api_event(
            "POST",
            f"/actions/{draft_id}/confirm",
            body or {},
            sub=OWNER,
            path_parameters={"id": draft_id},
            route_key="POST /actions/{id}/confirm",
        )
        response: dict[str, Any] = self.app.resolve(event, FakeLambdaContext())
        return response


@pytest.fixture
def jira() -> Iterator[FakeJira]:
    server = start_fake_jira(seeded=True)
    yield server
    server.stop()


def desk_for(moto_tables: Tables, jira: FakeJira, mode: str) -> Desk:
    clients = organization(jira) if mode == "organization" else as_user(jira)
    drafts = DynamoDraftStore(moto_tables.names["DRAFTS_TABLE_NAME"], moto_tables.client)
    directory = MemoryDirectory(sample_people())
    if mode == "organization":
        ports = ToolPorts(directory, MemoryCalendar(), drafts, jira=clients(Account(user_id="bot")))
        reviewer = Reviewer(
            drafts,
            mailer=None,  # type: ignore[arg-type]  # a Jira confirm mails nobody
            calendar=None,  # type: ignore[arg-type]
            jira=clients(Account(user_id="bot")),
            config=ReviewConfig(sender_email=SENDER),
            clock=lambda: NOW,
            directory=directory,
        )
    else:
        ports = ToolPorts(directory, MemoryCalendar(), drafts, jiras=clients)
        reviewer = Reviewer(
            drafts,
            mailer=None,  # type: ignore[arg-type]
            calendar=None,  # type: ignore[arg-type]
            jira=None,
            config=ReviewConfig(sender_email=SENDER),
            clock=lambda: NOW,
            directory=directory,
            caller_jira=lambda caller: clients(Account(user_id=caller.user_id, email=caller.email)),
        )
    app = review_app(lambda: reviewer, lambda: None, lambda: None)
    return Desk(jira, ports, app, drafts)


@pytest.fixture(params=["organization", "user"])
def desk(request: pytest.FixtureRequest, moto_tables: Tables, jira: FakeJira) -> Desk:
    return desk_for(moto_tables, jira, request.param)


# -- comment ------------------------------------------------------------------------------


def test_a_comment_by_key_shows_the_issue_and_posts_once(desk: Desk) -> None:
    [outcome] = desk.ask(
        (
            "comment_on_jira_issue",
            {"issue": {"said": "WEB-12", "key": "WEB-12"}, "comment": "Fixed in build 42"},
        )
    )

    assert outcome.status == 200, outcome.body
    card = outcome.body
    assert card["action"] == "show_jira_comment"
    assert card["issue"]["status"] == "found"
    shown = card["issue"]["item"]["fields"]
    assert (shown["key"], shown["summary"], shown["status"], shown["assignee"]) == (
        "WEB-12",
        "Login crash on Safari",
        "In Progress",
        "Priya Patel",
    )
    assert desk.jira.issue("WEB-12").get("comments") is None  # nothing posted before the confirm

    done = desk.confirm(card["draftId"])

    assert done["statusCode"] == 200, json_body(done)
    result = json_body(done)["result"]
    comments = desk.jira.issue("WEB-12")["comments"]
    assert [c["id"] for c in comments] == [result["commentId"]]
    assert comments[0]["properties"][0]["value"] == {"draftId": card["draftId"]}


def test_a_retried_comment_finds_its_own_and_posts_nothing_more(desk: Desk) -> None:
    [outcome] = desk.ask(
        ("comment_on_jira_issue", {"issue": {"said": "WEB-12"}, "comment": "Fixed in build 42"})
    )
    draft_id = outcome.body["draftId"]
    # The first confirm posted the comment but its answer was lost: the draft is failed, retryable.
    desk.jira.book.add_comment(
        "WEB-12",
        {
            "body": {"type": "doc", "version": 1, "content": []},
            "properties": [{"key": "multitool.draft", "value": {"draftId": draft_id}}],
        },
        None,
        "bot",
    )

    done = desk.confirm(draft_id)

    assert done["statusCode"] == 200, json_body(done)
    assert json_body(done)["result"]["alreadyDone"] is True
    assert len(desk.jira.issue("WEB-12")["comments"]) == 1


def test_words_find_the_issue_with_one_search(desk: Desk) -> None:
    before = len(desk.jira.requests)

    [outcome] = desk.ask(
        (
            "comment_on_jira_issue",
            {
                "issue": {"said": "the login crash ticket", "words": ["login", "crash"]},
                "comment": "Seen on iOS 17",
            },
        )
    )

    assert outcome.body["issue"]["item"]["id"] == "WEB-12", outcome.body
    searches = [path for _, path, _ in desk.jira.requests[before:] if path.endswith("/search/jql")]
    assert len(searches) == 1


def test_several_matches_offer_a_choice_and_the_confirm_takes_only_one_offered(desk: Desk) -> None:
    [outcome] = desk.ask(
        ("comment_on_jira_issue", {"issue": {"said": "the login one", "words": ["login"]}, "comment": "x"})
    )

    issue = outcome.body["issue"]
    assert issue["status"] == "ambiguous"
    assert {c["id"] for c in issue["candidates"]} == {"WEB-12", "OPS-5"}
    assert "choose one on the card" in outcome.body["notes"][0]
    refused = desk.confirm(outcome.body["draftId"], {"issue": "WEB-9"})
    assert refused["statusCode"] == 422
    assert desk.confirm(outcome.body["draftId"], {"issue": "OPS-5"})["statusCode"] == 200
    assert len(desk.jira.issue("OPS-5")["comments"]) == 1


def test_a_project_the_caller_may_not_see_looks_like_no_issue(moto_tables: Tables, jira: FakeJira) -> None:
    jira.book.browse[OWNER] = {"WEB"}
    desk = desk_for(moto_tables, jira, "user")

    by_key, by_words, unknown = desk.ask(
        ("comment_on_jira_issue", {"issue": {"said": "OPS-3"}, "comment": "x"}),
        (
            "comment_on_jira_issue",
            {"issue": {"said": "the database credentials", "words": ["database"]}, "comment": "x"},
        ),
        ("comment_on_jira_issue", {"issue": {"said": "OPS-99"}, "comment": "x"}),
    )

    assert by_key.body["issue"]["status"] == "none"
    assert by_key.body["notes"] == [
        "No Jira issue of yours matches 'OPS-3': say which one, or check the day and the names."
    ]
    assert unknown.body["notes"] == [
        "No Jira issue of yours matches 'OPS-99': say which one, or check the day and the names."
    ]
    assert "Rotate" not in str(by_key.body)  # the summary of OPS-3, which the user may not see
    assert "Rotate" not in str(by_words.body)
    assert by_words.body["issue"]["status"] == "none"
    assert desk.confirm(by_key.body["draftId"])["statusCode"] == 404


def test_a_key_outside_the_configured_projects_is_not_even_read(desk: Desk) -> None:
    before = len(desk.jira.requests)

    [outcome] = desk.ask(("comment_on_jira_issue", {"issue": {"said": "HR-4"}, "comment": "x"}))

    assert outcome.body["issue"]["status"] == "none"
    assert not [p for _, p, _ in desk.jira.requests[before:] if "/issue/" in p]


# -- transition ----------------------------------------------------------------------------


def test_close_moves_the_issue_to_done_once(desk: Desk) -> None:
    [outcome] = desk.ask(("transition_jira_issue", {"issue": {"said": "WEB-12"}, "status": "close"}))

    card = outcome.body
    assert card["transition"] == "41", card
    offered = {t["toStatus"] for t in card["issue"]["item"]["fields"]["transitions"]}
    assert offered == {"In Review", "To Do", "Done"}

    done = desk.confirm(card["draftId"])

    assert done["statusCode"] == 200, json_body(done)
    assert json_body(done)["result"]["status"] == "Done"
    assert desk.jira.issue("WEB-12")["fields"]["status"] == {"name": "Done"}


def test_a_status_the_workflow_does_not_offer_asks_for_a_choice_and_writes_nothing(desk: Desk) -> None:
    [outcome] = desk.ask(("transition_jira_issue", {"issue": {"said": "WEB-9"}, "status": "In Review"}))

    card = outcome.body
    assert card["transition"] is None
    assert "cannot go to 'In Review' from To Do" in card["notes"][0]
    refused = desk.confirm(card["draftId"])
    assert refused["statusCode"] == 422
    assert json_body(refused)["error"]["field"] == "transition"
    assert desk.jira.issue("WEB-9")["fields"]["status"] == {"name": "To Do"}
    assert desk.confirm(card["draftId"], {"transition": "21"})["statusCode"] == 200
    assert desk.jira.issue("WEB-9")["fields"]["status"] == {"name": "In Progress"}


def test_a_transition_already_made_answers_done(desk: Desk) -> None:
    [outcome] = desk.ask(("transition_jira_issue", {"issue": {"said": "WEB-12"}, "status": "In Review"}))
    desk.jira.book.transition("WEB-12", {"transition": {"id": "31"}}, None)  # someone did it meanwhile

    done = desk.confirm(outcome.body["draftId"])

    assert done["statusCode"] == 200, json_body(done)
    assert json_body(done)["result"]["alreadyDone"] is True


def test_a_transition_no_longer_offered_is_item_changed(desk: Desk) -> None:
    [outcome] = desk.ask(("transition_jira_issue", {"issue": {"said": "WEB-12"}, "status": "In Review"}))
    desk.jira.book.transition("WEB-12", {"transition": {"id": "11"}}, None)  # back to To Do meanwhile

    refused = desk.confirm(outcome.body["draftId"])

    assert refused["statusCode"] == 409, json_body(refused)
    assert json_body(refused)["error"]["code"] == "item_changed"
    assert desk.jira.issue("WEB-12")["fields"]["status"] == {"name": "To Do"}


# -- update and link -----------------------------------------------------------------------


def test_an_update_sets_priority_and_the_assignee_resolved_from_the_directory(desk: Desk) -> None:
    [outcome] = desk.ask(
        (
            "update_jira_issue",
            {
                "issue": {"said": "WEB-12"},
                "priority": "high",
                "assignee": "Priya",
                "labelsAdd": ["regression"],
            },
        )
    )

    card = outcome.body
    assert card["assignee"]["person"]["email"] == PRIYA, card
    done = desk.confirm(card["draftId"])

    assert done["statusCode"] == 200, json_body(done)
    fields = desk.jira.issue("WEB-12")["fields"]
    assert fields["priority"] == {"name": "High"}
    assert fields["assignee"]["accountId"] == FakeJira.account_id(PRIYA)
    assert fields["labels"] == ["safari", "regression"]


def test_a_link_as_blocks_links_in_the_sites_direction_once(desk: Desk) -> None:
    [outcome] = desk.ask(
        ("link_jira_issues", {"issue": {"said": "WEB-12"}, "other": {"said": "OPS-3"}, "link": "blocks"})
    )

    card = outcome.body
    assert (card["linkType"], card["outward"]) == ("Blocks", True), card
    assert desk.confirm(card["draftId"])["statusCode"] == 200
    web = desk.jira.issue("WEB-12")
    assert web["links"] == [
        {
            "type": {"id": "10000", "name": "Blocks", "inward": "is blocked by", "outward": "blocks"},
            "outwardIssue": {"key": "OPS-3"},
        }
    ]
    [again] = desk.ask(
        (
            "link_jira_issues",
            {"issue": {"said": "OPS-3"}, "other": {"said": "WEB-12"}, "link": "is blocked by"},
        )
    )
    assert (again.body["linkType"], again.body["outward"]) == ("Blocks", False)
    done = desk.confirm(again.body["draftId"])
    assert json_body(done)["result"]["alreadyDone"] is True
    assert len(desk.jira.issue("WEB-12")["links"]) == 1


def test_an_update_of_a_field_someone_else_changed_since_the_card_is_item_changed(desk: Desk) -> None:
    [outcome] = desk.ask(("update_jira_issue", {"issue": {"said": "WEB-12"}, "priority": "High"}))
    # Someone sets another priority in Jira meanwhile
    desk.jira.book.edit("WEB-12", {"fields": {"priority": {"name": "Lowest"}}}, None)

    refused = desk.confirm(outcome.body["draftId"])

    assert refused["statusCode"] == 409, json_body(refused)
    assert json_body(refused)["error"]["code"] == "item_changed"
    assert desk.jira.issue("WEB-12")["fields"]["priority"] == {"name": "Lowest"}  # nothing written over it
    # A change elsewhere on the issue (a comment) is no conflict for an update of its labels
    [labels] = desk.ask(("update_jira_issue", {"issue": {"said": "WEB-12"}, "labelsAdd": ["ios"]}))
    desk.jira.book.add_comment(
        "WEB-12", {"body": {"type": "doc", "version": 1, "content": []}}, None, "someone"
    )
    assert desk.confirm(labels.body["draftId"])["statusCode"] == 200
    assert "ios" in desk.jira.issue("WEB-12")["fields"]["labels"]


def test_a_confirm_for_an_issue_gone_since_the_card_writes_nothing(desk: Desk) -> None:
    [outcome] = desk.ask(("comment_on_jira_issue", {"issue": {"said": "OPS-5"}, "comment": "Still noisy"}))
    desk.jira.book.browse[OWNER] = set()  # the user may no longer browse any project
    desk.jira.issues[:] = [i for i in desk.jira.issues if i["key"] != "OPS-5"]

    refused = desk.confirm(outcome.body["draftId"])

    assert refused["statusCode"] == 409, json_body(refused)
    assert json_body(refused)["error"]["code"] == "item_changed"
    assert "OPS-5 is gone or you may no longer see it" in json_body(refused)["error"]["message"]
