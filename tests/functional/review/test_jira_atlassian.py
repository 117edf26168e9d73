"""Jira as the signed-in user against the loopback fake Jira playing Atlassian's API gateway.

The client sends the user's own token (``local-atlassian-<sub>``, what the local AgentCore Identity
stand-in issues) as ``Authorization: Bearer``, finds the site's cloud id in accessible-resources
(once per user per warm function), and creates the issue under ``/ex/jira/<cloud id>``.
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Callable, Iterator, Sequence

import boto3
import pytest
import urllib3
from botocore.stub import Stubber
from multitool.local.standins.jira_server import CLOUD_ID, FakeJira, start_fake_jira
from multitool.ports.agentcore.tokens import AgentCoreTokens
from multitool.ports.atlassian.jira_user import JIRA_SCOPES, RESOURCES_PATH, AtlassianJiraClient, CloudIds
from multitool.ports.connections import DynamoConnections
from multitool.ports.jira import (
    IssueRequest,
    JiraNotConfigured,
    JiraOutcomeUnknown,
    JiraRateLimited,
    JiraUnauthorized,
    JiraUnavailable,
)
from multitool.ports.tokens import Account, AccountNotConnected, Provider

from tests.support.moto_tables import Tables

USER = Account(user_id="user-1", email="alex.mueller@example.com", user_token="eyJ.user-1.jwt")
ISSUE = IssueRequest(project="WEB", issue_type="Bug", summary="Checkout button does nothing", priority="High")


class UserTokens:
    """The token a vault holds for each user: the local identity stand-in's ``local-<provider>-<sub>``."""

    def __init__(self) -> None:
        self.asked: list[tuple[Provider, str, tuple[str, ...]]] = []

    def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
        self.asked.append((provider, account.user_id, tuple(scopes)))
        return f"local-{provider}-{account.user_id}"


class NotConnected:
    def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
        raise AccountNotConnected(provider, authorization_url="https://identity.local/consent?request_uri=x")


@pytest.fixture(scope="module")
def jira() -> Iterator[FakeJira]:
    server = start_fake_jira()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def http() -> urllib3.PoolManager:
    return urllib3.PoolManager()


def client_for(
    jira: FakeJira,
    http: urllib3.PoolManager,
    tokens: object | None = None,
    *,
    account: Account = USER,
    site_url: str | None = None,
    cloud_ids: CloudIds | None = None,
    deadline: Callable[[], float] | None = None,
) -> AtlassianJiraClient:
    return AtlassianJiraClient(
        account,
        tokens or UserTokens(),  # type: ignore[arg-type]
        site_url=site_url or jira.url,
        http=http,
        cloud_ids=cloud_ids or CloudIds(),
        api_base=jira.url,
        deadline=deadline,
    )


def test_the_issue_is_created_as_the_user_through_the_sites_cloud_id(
    jira: FakeJira, http: urllib3.PoolManager
) -> None:
    tokens = UserTokens()
    cloud_ids = CloudIds()
    client = client_for(jira, http, tokens, cloud_ids=cloud_ids)
    before = len(jira.requests)

    created = client.create_issue(ISSUE)

    stored = jira.issue(created.key)
    assert stored is not None
    assert stored["fields"]["reporter"] == {"accountId": "local-user-1"}  # the user, not a bot account
    assert created.url == f"{jira.url}/browse/{created.key}"  # the site's own link, not the gateway's
    assert tokens.asked == [("atlassian", "user-1", JIRA_SCOPES)]
    assert jira.requests[before:] == [
        ("GET", RESOURCES_PATH, 200),
        ("POST", f"/ex/jira/{CLOUD_ID}/rest/api/3/issue", 201),
    ]
    assert cloud_ids.get("user-1") == CLOUD_ID

    # The cloud id is kept for the warm function: the next create goes straight to the site.
    client_for(jira, http, cloud_ids=cloud_ids).create_issue(ISSUE)
    assert [path for _, path, _ in jira.requests[before + 2 :]] == [f"/ex/jira/{CLOUD_ID}/rest/api/3/issue"]


def test_the_assignee_is_found_through_the_users_token(jira: FakeJira, http: urllib3.PoolManager) -> None:
    created = client_for(jira, http).create_issue(
        IssueRequest(
            project="OPS", issue_type="Task", summary="Rotate keys", assignee_email="kin@example.com"
        )
    )

    stored = jira.issue(created.key)
    assert stored is not None
    assert stored["fields"]["assignee"] == {"accountId": FakeJira.account_id("kin@example.com")}
    assert any(
        path.startswith(f"/ex/jira/{CLOUD_ID}/rest/api/3/user/search?") for _, path, _ in jira.requests
    )


def test_a_user_without_a_connection_gets_the_link_and_nothing_reaches_jira(
    jira: FakeJira, http: urllib3.PoolManager
) -> None:
    before = len(jira.requests)

    with pytest.raises(AccountNotConnected) as caught:
        client_for(jira, http, NotConnected()).create_issue(ISSUE)

    assert caught.value.provider == "atlassian"
    assert caught.value.authorization_url == "https://identity.local/consent?request_uri=x"
    assert jira.requests[before:] == []


def test_a_token_jira_no_longer_accepts_is_account_not_connected(
    jira: FakeJira, http: urllib3.PoolManager
) -> None:
    cloud_ids = CloudIds()
    cloud_ids.put("user-1", CLOUD_ID)
    jira.fail_next(401)

    with pytest.raises(AccountNotConnected) as caught:
        client_for(jira, http, cloud_ids=cloud_ids).create_issue(ISSUE)

    assert caught.value.provider == "atlassian"
    assert caught.value.detail()["providerName"] == "Atlassian (Jira)"
    assert "local-atlassian" not in str(caught.value)  # the token is never in a message
    assert cloud_ids.get("user-1") is None  # looked up again after the user reconnects


def test_a_token_atlassian_refuses_for_accessible_resources_is_account_not_connected(
    jira: FakeJira, http: urllib3.PoolManager
) -> None:
    class WrongToken(UserTokens):
        def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
            return "revoked"

    with pytest.raises(AccountNotConnected):
        client_for(jira, http, WrongToken()).create_issue(ISSUE)


def test_403_is_the_users_own_jira_permission(jira: FakeJira, http: urllib3.PoolManager) -> None:
    jira.fail_next(403)

    with pytest.raises(JiraUnauthorized, match="you may not create issues in this project"):
        client_for(jira, http).create_issue(ISSUE)


def test_a_site_the_consent_does_not_include_is_refused_with_the_fix(
    jira: FakeJira, http: urllib3.PoolManager
) -> None:
    before = len(jira.requests)

    with pytest.raises(
        JiraUnauthorized, match=re.escape("does not include https://other.atlassian.net")
    ) as caught:
        client_for(jira, http, site_url="https://other.atlassian.net").create_issue(ISSUE)

    assert "connect it again and choose that site" in caught.value.reason
    assert [method for method, _, _ in jira.requests[before:]] == ["GET"]  # nothing was created


def test_a_stale_cloud_id_is_404_and_forgotten(jira: FakeJira, http: urllib3.PoolManager) -> None:
    cloud_ids = CloudIds()
    cloud_ids.put("user-1", "0000-no-such-site")

    with pytest.raises(JiraNotConfigured, match="404"):
        client_for(jira, http, cloud_ids=cloud_ids).create_issue(ISSUE)

    assert cloud_ids.get("user-1") is None


def test_429_keeps_retry_after(jira: FakeJira, http: urllib3.PoolManager) -> None:
    jira.fail_next(429, retry_after=11)

    client = client_for(jira, http, deadline=lambda: 10.0)  # no time to wait 11 s for another try

    with pytest.raises(JiraRateLimited) as caught:
        client.create_issue(ISSUE)

    assert caught.value.retry_after == 11


def test_5xx_is_unavailable_and_the_create_is_sent_once(jira: FakeJira, http: urllib3.PoolManager) -> None:
    cloud_ids = CloudIds()
    cloud_ids.put("user-1", CLOUD_ID)
    before = len(jira.requests)
    jira.fail_next(503)

    with pytest.raises(JiraUnavailable, match="503"):
        client_for(jira, http, cloud_ids=cloud_ids).create_issue(ISSUE)

    assert len(jira.requests) == before + 1


def test_a_create_sent_without_an_answer_is_outcome_unknown(http: urllib3.PoolManager) -> None:
    # Given: a gateway that reads the request and drops the connection without answering.
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def drop() -> None:
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.close()

    thread = threading.Thread(target=drop, daemon=True)
    thread.start()
    cloud_ids = CloudIds()
    cloud_ids.put("user-1", CLOUD_ID)
    client = AtlassianJiraClient(
        USER,
        UserTokens(),
        site_url="https://example.atlassian.net",
        http=http,
        cloud_ids=cloud_ids,
        api_base=f"http://127.0.0.1:{port}",
    )

    with pytest.raises(JiraOutcomeUnknown, match="Check Jira before confirming again"):
        client.create_issue(ISSUE)
    thread.join(timeout=5)
    listener.close()


def test_a_site_url_in_clear_is_refused() -> None:
    with pytest.raises(JiraNotConfigured, match="https"):
        AtlassianJiraClient(
            USER,
            UserTokens(),
            site_url="http://example.atlassian.net",
            http=urllib3.PoolManager(),
            cloud_ids=CloudIds(),
        )


def test_the_cloud_id_cache_is_bounded() -> None:
    ids = CloudIds(kept=2)
    for user in ("a", "b", "c"):
        ids.put(user, f"cloud-{user}")
    assert (ids.get("a"), ids.get("b"), ids.get("c")) == (None, "cloud-b", "cloud-c")


def test_the_token_request_for_jira_is_valid_for_bedrock_agentcore(
    jira: FakeJira, http: urllib3.PoolManager, moto_tables: Tables
) -> None:
    # Given: the real token source on a real bedrock-agentcore client under botocore's Stubber, which
    # checks each request against the service model.
    client = boto3.client("bedrock-agentcore", region_name="us-east-1")
    tokens = AgentCoreTokens(
        client,
        workload_name="multitool-identity-a1b2c3",
        credential_providers={"atlassian": "multitool-identity-a1b2c3-jira-oauth"},
        return_url="https://chat.example.com/",
        connections=DynamoConnections(moto_tables.names["LIMITS_TABLE_NAME"], moto_tables.client),
    )
    with Stubber(client) as stubber:
        stubber.add_response(
            "get_workload_access_token_for_jwt",
            {"workloadAccessToken": "workload-token"},
            {"workloadName": "multitool-identity-a1b2c3", "userToken": "eyJ.user-1.jwt"},
        )
        stubber.add_response(
            "get_resource_oauth2_token",
            {"accessToken": "local-atlassian-user-1"},
            {
                "workloadIdentityToken": "workload-token",
                "resourceCredentialProviderName": "multitool-identity-a1b2c3-jira-oauth",
                "scopes": list(JIRA_SCOPES),
                "oauth2Flow": "USER_FEDERATION",
                "resourceOauth2ReturnUrl": "https://chat.example.com/",
            },
        )

        # When
        created = client_for(jira, http, tokens).create_issue(ISSUE)

        # Then: the vault's token reached Jira as the user.
        stubber.assert_no_pending_responses()
    stored = jira.issue(created.key)
    assert stored is not None
    assert stored["fields"]["reporter"] == {"accountId": "local-user-1"}
