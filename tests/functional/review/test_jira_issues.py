"""The Jira port on existing issues, both ways of signing in, against the loopback fake Jira.

The organization's account (basic auth on the site) and each user's own (a bearer token through
Atlassian's gateway, ``/ex/jira/<cloud id>``) make the same requests; the stand-in checks each
request's shape (:mod:`multitool.local.standins.jira_workflow`) and answers as Jira Cloud does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
import urllib3
from multitool.local.standins.jira_server import FakeJira, start_fake_jira
from multitool.ports.atlassian.jira_cloud import JiraCloudClient
from multitool.ports.atlassian.jira_issues import (
    DRAFT_PROPERTY,
    IssueChange,
    IssueLink,
    JiraIssues,
    search_jql,
)
from multitool.ports.atlassian.jira_user import AtlassianJiraClient, CloudIds
from multitool.ports.jira import JiraRejected
from multitool.ports.tokens import Account, Provider


class UserTokens:
    def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
        return f"local-{provider}-{account.user_id}"


@pytest.fixture
def jira() -> Iterator[FakeJira]:
    server = start_fake_jira(seeded=True)
    yield server
    server.stop()
    # Every request the port made is one Atlassian's description allows (the stand-in checks each).
    assert server.violations == []


def organization(jira: FakeJira) -> JiraCloudClient:
    return JiraCloudClient(jira.url, jira.email, jira.api_token, urllib3.PoolManager())


def as_user(jira: FakeJira, user: str = "user-1") -> AtlassianJiraClient:
    return AtlassianJiraClient(
        Account(user_id=user, email=f"{user}@example.com"),
        UserTokens(),  # type: ignore[arg-type]
        site_url=jira.url,
        http=urllib3.PoolManager(),
        cloud_ids=CloudIds(),
        api_base=jira.url,
    )


CLIENTS = [organization, as_user]


@pytest.mark.parametrize("make", CLIENTS)
def test_an_issue_reads_with_its_status_assignee_and_version(jira: FakeJira, make: object) -> None:
    client: JiraIssues = make(jira)  # type: ignore[operator]

    issue = client.issue("WEB-12")

    assert issue is not None
    assert (issue.key, issue.summary, issue.status) == ("WEB-12", "Login crash on Safari", "In Progress")
    assert issue.assignee == "Priya Patel"
    assert issue.priority == "Medium"
    assert issue.labels == ("safari",)
    assert issue.updated
    assert client.issue("WEB-404") is None


@pytest.mark.parametrize("make", CLIENTS)
def test_words_search_the_permitted_projects_newest_first(jira: FakeJira, make: object) -> None:
    client: JiraIssues = make(jira)  # type: ignore[operator]

    assert [i.key for i in client.search(["safari crash"], ["WEB"])] == ["WEB-12"]
    both = client.search(["login"], ["WEB", "OPS"])
    assert {i.key for i in both} == {"WEB-12", "OPS-5"}
    assert client.search(["login"], []) == []
    assert any(path.endswith("/rest/api/3/search/jql") for _, path, _ in jira.requests)


def test_a_user_finds_only_the_projects_they_may_browse(jira: FakeJira) -> None:
    jira.book.browse["user-1"] = {"WEB"}
    client = as_user(jira)

    assert [i.key for i in client.search(["login"], ["WEB", "OPS"])] == ["WEB-12"]
    assert client.issue("OPS-5") is None  # as if it did not exist
    assert organization(jira).issue("OPS-5") is not None


def test_the_jql_quotes_what_the_user_said() -> None:
    assert search_jql(['crash "x" \\ y', "login"], ["WEB", "OPS"]) == (
        'project in ("WEB", "OPS") AND (text ~ "crash x y" OR text ~ "login") ORDER BY updated DESC'
    )


@pytest.mark.parametrize("make", CLIENTS)
def test_a_transition_the_issue_offers_moves_it_and_another_is_refused(jira: FakeJira, make: object) -> None:
    client: JiraIssues = make(jira)  # type: ignore[operator]
    offered = {t.to_status: t for t in client.transitions("WEB-9")}
    assert set(offered) == {"In Progress", "Done"}  # To Do does not go to In Review

    with pytest.raises(JiraRejected, match="not valid for this issue"):
        client.transition("WEB-9", "31")
    client.transition("WEB-9", offered["Done"].id)

    issue = client.issue("WEB-9")
    assert issue is not None
    assert issue.status == "Done"


@pytest.mark.parametrize("make", CLIENTS)
def test_a_comment_carries_its_draft_id_and_is_found_by_it(jira: FakeJira, make: object) -> None:
    client: JiraIssues = make(jira)  # type: ignore[operator]
    assert client.comment_with("WEB-12", "d-1") is None

    comment_id = client.add_comment("WEB-12", "Fixed in build 42", "d-1")

    assert client.comment_with("WEB-12", "d-1") == comment_id
    assert client.comment_with("WEB-12", "d-2") is None
    stored = jira.issue("WEB-12")
    assert stored is not None
    comment = stored["comments"][-1]
    assert comment["properties"] == [{"key": DRAFT_PROPERTY, "value": {"draftId": "d-1"}}]
    assert comment["body"]["content"][0]["content"][0]["text"] == "Fixed in build 42"


@pytest.mark.parametrize("make", CLIENTS)
def test_an_edit_sets_the_fields_and_is_idempotent(jira: FakeJira, make: object) -> None:
    client: JiraIssues = make(jira)  # type: ignore[operator]
    account = client.account_id("priya.patel@example.com")
    change = IssueChange(
        priority="High",
        assignee_account_id=account,
        labels_add=("regression",),
        labels_remove=("safari",),
        due_date="2026-12-18",
    )

    client.edit("WEB-12", change)
    client.edit("WEB-12", change)

    issue = client.issue("WEB-12")
    assert issue is not None
    assert (issue.priority, issue.labels, issue.due_date) == ("High", ("regression",), "2026-12-18")
    assert change.applied(issue)
    with pytest.raises(JiraRejected, match="priority"):
        client.edit("WEB-12", IssueChange(priority="Urgent"))


@pytest.mark.parametrize("make", CLIENTS)
def test_a_link_uses_the_sites_types_and_direction(jira: FakeJira, make: object) -> None:
    client: JiraIssues = make(jira)  # type: ignore[operator]
    assert "Blocks" in {t.name for t in client.link_types()}

    client.link("Blocks", "WEB-12", "OPS-3")
    client.link("Blocks", "WEB-12", "OPS-3")  # Jira keeps one

    web, ops = client.issue("WEB-12"), client.issue("OPS-3")
    assert web is not None
    assert ops is not None
    assert web.links == (IssueLink(type="Blocks", other="OPS-3", outward=True),)
    assert ops.links == (IssueLink(type="Blocks", other="WEB-12", outward=False),)


def test_bad_requests_are_refused_with_jiras_words(jira: FakeJira) -> None:
    http = urllib3.PoolManager()
    auth = organization(jira)._headers
    answer = http.request(
        "POST",
        f"{jira.url}/rest/api/3/issue/WEB-12/comment",
        body=b'{"body": "plain text", "notify": true}',
        headers=auth,
    )
    assert answer.status == 400
    # a member the Comment schema does not name: refused as Atlassian's description says
    [violation] = jira.violations
    assert violation.startswith(
        "POST /rest/api/3/issue/{issueIdOrKey}/comment request body at (root): 'notify'"
    )
    jira.violations.clear()
    answer = http.request(
        "POST", f"{jira.url}/rest/api/3/search/jql", body=b'{"jql": "order by key"}', headers=auth
    )
    assert answer.status == 400
    answer = http.request(
        "PUT", f"{jira.url}/rest/api/3/issue/WEB-12", body=b'{"fields": {"reporter": {}}}', headers=auth
    )
    assert answer.status == 400
    assert b"reporter" in answer.data
