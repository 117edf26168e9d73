"""Jira as the user (JIRA_AUTH=user): a confirm before consent, the consent, and the confirm after it.

The review app on wire-shaped HTTP API events with the caller's JWT in the Authorization header; the
real AgentCore Identity token source whose ``bedrock-agentcore`` client is the local identity
stand-in (every request validated against botocore's model); Atlassian's gateway and the Jira site
the loopback fake Jira; drafts and consents in moto.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import urllib3
from multitool.api.review_app import review_app
from multitool.drafts import DraftStatus
from multitool.local.standins.identity import LocalIdentity
from multitool.local.standins.jira_server import FakeJira, start_fake_jira
from multitool.ports.agentcore.tokens import AgentCoreTokens
from multitool.ports.connections import DynamoConnections
from multitool.ports.drafts import DynamoDraftStore
from multitool.review import ReviewConfig
from multitool.review.accounts import Accounts
from multitool.review.reviewer import Reviewer
from multitool.settings.review import ReviewSettings
from multitool.wiring.review import caller_jira

from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import Tables
from tests.support.review_support import NOW, OWNER, SENDER, jira_draft

WORKLOAD = "multitool-identity-a1b2c3"
# The identity stand-in names its tokens after the credential provider (local-<provider>-<sub>):
# locally the Atlassian credential provider is called "atlassian", which the fake Jira accepts.
ATLASSIAN_PROVIDER = "atlassian"
RETURN_URL = "https://chat.example.com/"
CONSENT_PAGE = "http://127.0.0.1:9/consent"


def jwt(sub: str) -> str:
    claims = base64.urlsafe_b64encode(json.dumps({"sub": sub}).encode()).decode().rstrip("=")
    return f"eyJhbGciOiJSUzI1NiJ9.{claims}.c2lnbmVk"


@dataclass
class Review:
    app: Any
    identity: LocalIdentity
    jira: FakeJira
    drafts: DynamoDraftStore

    def call(self, method: str, path: str, body: Any, *, sub: str = OWNER, **event: Any) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {jwt(sub)}"}
        response: dict[str, Any] = self.app.resolve(
            http_api_event(method, path, body, sub=sub, headers=headers, **event), FakeLambdaContext()
        )
        return response

    def confirm(self, draft_id: str) -> dict[str, Any]:
        return self.call(
            "POST",
            f"/actions/{draft_id}/confirm",
            {},
            path_parameters={"id": draft_id},
            route_key="POST /actions/{id}/confirm",
        )


@pytest.fixture(scope="module")
def fake_jira() -> Iterator[FakeJira]:
    server = start_fake_jira()
    yield server
    server.stop()


@pytest.fixture
def review(moto_tables: Tables, fake_jira: FakeJira) -> Review:
    identity = LocalIdentity(workloads={WORKLOAD: (RETURN_URL,)}, consent_base=CONSENT_PAGE)
    connections = DynamoConnections(moto_tables.names["LIMITS_TABLE_NAME"], moto_tables.client)
    tokens = AgentCoreTokens(
        identity,  # type: ignore[arg-type]  # the stand-in answers as a bedrock-agentcore client
        workload_name=WORKLOAD,
        credential_providers={"atlassian": ATLASSIAN_PROVIDER},
        return_url=RETURN_URL,
        connections=connections,
    )
    drafts = DynamoDraftStore(moto_tables.names["DRAFTS_TABLE_NAME"], moto_tables.client)
    reviewer = Reviewer(
        drafts,
        mailer=None,  # type: ignore[arg-type]  # a Jira confirm mails nobody
        calendar=None,  # type: ignore[arg-type]
        jira=None,
        config=ReviewConfig(sender_email=SENDER),
        clock=lambda: NOW,
        caller_jira=caller_jira(tokens, fake_jira.url, urllib3.PoolManager(), fake_jira.url),
    )
    accounts = Accounts(identity, connections, ("atlassian",))  # type: ignore[arg-type]
    app = review_app(lambda: reviewer, lambda: None, lambda: accounts)
    return Review(app, identity, fake_jira, drafts)


def test_a_jira_confirm_asks_for_consent_then_creates_the_issue_as_the_user(review: Review) -> None:
    # Given: a Jira card, and no consent of this user for Atlassian yet.
    [draft] = review.drafts.create_many([jira_draft()])
    issues_before = len(review.jira.issues)

    # When
    refused = review.confirm(draft.id)

    # Then: the consent link for Atlassian, nothing created, and the draft still confirmable.
    assert refused["statusCode"] == 403, json_body(refused)
    body = json_body(refused)
    error = body["error"]
    assert (error["code"], error["provider"], error["providerName"]) == (
        "account_not_connected",
        "atlassian",
        "Atlassian (Jira)",
    )
    assert error["authorizationUrl"].startswith(f"{CONSENT_PAGE}?request_uri=")
    assert body["action"]["status"] == "proposed"
    assert len(review.jira.issues) == issues_before

    # When: the user consents at Atlassian and comes back to the page, which finishes the consent.
    session_uri = parse_qs(urlsplit(error["authorizationUrl"]).query)["request_uri"][0]
    back = review.identity.consent(session_uri)
    assert parse_qs(urlsplit(back).query)["session_id"] == [session_uri]
    completed = review.call(
        "POST", "/connections/complete", {"sessionUri": session_uri, "provider": "atlassian"}
    )
    assert completed["statusCode"] == 200, json_body(completed)
    assert json_body(completed)["providerName"] == "Atlassian (Jira)"

    # And confirms the same card again
    done = review.confirm(draft.id)

    # Then the issue is created with the user's own token, the user its reporter.
    assert done["statusCode"] == 200, json_body(done)
    result = json_body(done)["result"]
    stored = review.jira.issue(result["issueKey"])
    assert stored is not None
    assert stored["fields"]["reporter"] == {"accountId": f"local-{OWNER}"}
    assert result["issueUrl"] == f"{review.jira.url}/browse/{result['issueKey']}"
    assert review.drafts.get(draft.id).status is DraftStatus.DONE  # type: ignore[union-attr]


def test_a_consent_link_finished_by_another_user_is_refused(review: Review) -> None:
    [draft] = review.drafts.create_many([jira_draft()])
    error = json_body(review.confirm(draft.id))["error"]
    session_uri = parse_qs(urlsplit(error["authorizationUrl"]).query)["request_uri"][0]
    review.identity.consent(session_uri)

    stolen = review.call(
        "POST", "/connections/complete", {"sessionUri": session_uri, "provider": "atlassian"}, sub="mallory"
    )

    assert stolen["statusCode"] == 403
    assert json_body(stolen)["error"]["code"] == "consent_not_yours"
    assert review.confirm(draft.id)["statusCode"] == 403  # the owner is still not connected


def test_the_review_settings_refuse_jira_as_the_user_without_its_identity_settings() -> None:
    with pytest.raises(ValueError, match="JIRA_AUTH=user needs JIRA_SITE_URL"):
        ReviewSettings.from_env(
            {
                "SENDER_EMAIL": SENDER,
                "DRAFTS_TABLE_NAME": "drafts",
                "DIRECTORY_TABLE_NAME": "directory",
                "BOOKINGS_TABLE_NAME": "bookings",
                "JIRA_AUTH": "user",
            }
        )


def test_the_review_settings_take_jira_as_the_user_without_a_calendar_provider() -> None:
    settings = ReviewSettings.from_env(
        {
            "SENDER_EMAIL": SENDER,
            "DRAFTS_TABLE_NAME": "drafts",
            "DIRECTORY_TABLE_NAME": "directory",
            "BOOKINGS_TABLE_NAME": "bookings",
            "JIRA_AUTH": "user",
            "JIRA_SITE_URL": "https://example.atlassian.net",
            "IDENTITY_WORKLOAD_NAME": WORKLOAD,
            "IDENTITY_RETURN_URL": RETURN_URL,
            "CONNECTIONS_TABLE_NAME": "limits",
            "IDENTITY_JIRA_CREDENTIAL_PROVIDER": ATLASSIAN_PROVIDER,
        }
    )

    identity = settings.identity()
    assert identity is not None
    assert identity.credential_providers() == {"atlassian": ATLASSIAN_PROVIDER}


def test_the_settings_name_the_same_providers_as_the_token_port() -> None:
    from typing import get_args

    from multitool.ports.tokens import PROVIDER_NAMES, Provider
    from multitool.settings import ConnectedProvider

    assert get_args(ConnectedProvider) == get_args(Provider) == tuple(PROVIDER_NAMES)


def test_the_deployed_handler_creates_the_issue_as_the_user_from_its_environment(
    review_aws: Tables, fake_jira: FakeJira, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given: the review Lambda's environment as jiraAuth=user sets it, and AgentCore Identity the
    # local stand-in in place of the bedrock-agentcore client the handler would make.
    from multitool.ports import provider_suites
    from multitool.wiring import review as review_module

    from functions.review.handler import handler

    identity = LocalIdentity(workloads={WORKLOAD: (RETURN_URL,)}, consent_base=CONSENT_PAGE)
    for key, value in {
        "JIRA_AUTH": "user",
        "JIRA_SITE_URL": fake_jira.url,
        "ATLASSIAN_API_URL": fake_jira.url,
        "IDENTITY_WORKLOAD_NAME": WORKLOAD,
        "IDENTITY_RETURN_URL": RETURN_URL,
        "CONNECTIONS_TABLE_NAME": review_aws.names["LIMITS_TABLE_NAME"],
        "IDENTITY_JIRA_CREDENTIAL_PROVIDER": ATLASSIAN_PROVIDER,
    }.items():
        monkeypatch.setenv(key, value)

    def local_tokens(settings: Any) -> AgentCoreTokens:
        return AgentCoreTokens(
            identity,  # type: ignore[arg-type]
            workload_name=settings.identity_workload_name,
            credential_providers=settings.credential_providers(),
            return_url=settings.identity_return_url,
            connections=DynamoConnections(settings.connections_table_name, review_aws.client),
        )

    monkeypatch.setattr(provider_suites, "agentcore_tokens", local_tokens)
    review_module.aws_reviewer.cache_clear()
    [draft] = DynamoDraftStore(review_aws.names["DRAFTS_TABLE_NAME"], review_aws.client).create_many(
        [jira_draft()]
    )

    def confirm() -> dict[str, Any]:
        event = http_api_event(
            "POST",
            f"/actions/{draft.id}/confirm",
            {},
            sub=OWNER,
            path_parameters={"id": draft.id},
            route_key="POST /actions/{id}/confirm",
            headers={"Authorization": f"Bearer {jwt(OWNER)}"},
        )
        response: dict[str, Any] = handler(event, FakeLambdaContext())
        return response

    # When: a confirm before consent, the consent, and the confirm again
    refused = confirm()
    assert refused["statusCode"] == 403
    url = json_body(refused)["error"]["authorizationUrl"]
    session_uri = parse_qs(urlsplit(url).query)["request_uri"][0]
    identity.consent(session_uri)
    identity.complete_resource_token_auth(sessionUri=session_uri, userIdentifier={"userToken": jwt(OWNER)})
    DynamoConnections(review_aws.names["LIMITS_TABLE_NAME"], review_aws.client).complete(
        OWNER, "atlassian", session_uri
    )
    done = confirm()

    # Then
    assert done["statusCode"] == 200, json_body(done)
    stored = fake_jira.issue(json_body(done)["result"]["issueKey"])
    assert stored is not None
    assert stored["fields"]["reporter"] == {"accountId": f"local-{OWNER}"}


@pytest.mark.parametrize(
    ("given", "named"),
    [
        (
            {"IDENTITY_WORKLOAD_NAME": WORKLOAD},
            "IDENTITY_RETURN_URL, CONNECTIONS_TABLE_NAME, IDENTITY_CREDENTIAL_",
        ),
        (
            {
                "IDENTITY_WORKLOAD_NAME": WORKLOAD,
                "IDENTITY_RETURN_URL": RETURN_URL,
                "CONNECTIONS_TABLE_NAME": "limits",
                "IDENTITY_PROVIDER": "microsoft365",
                "IDENTITY_JIRA_CREDENTIAL_PROVIDER": ATLASSIAN_PROVIDER,
            },
            "IDENTITY_CREDENTIAL_PROVIDER must be set too",
        ),
        ({"IDENTITY_JIRA_CREDENTIAL_PROVIDER": ATLASSIAN_PROVIDER}, "IDENTITY_WORKLOAD_NAME"),
    ],
)
def test_incomplete_identity_settings_name_what_is_missing(given: dict[str, str], named: str) -> None:
    with pytest.raises(ValueError, match="identity settings are incomplete") as raised:
        ReviewSettings.from_env(
            {
                "SENDER_EMAIL": SENDER,
                "DRAFTS_TABLE_NAME": "drafts",
                "DIRECTORY_TABLE_NAME": "directory",
                "BOOKINGS_TABLE_NAME": "bookings",
                "CALENDAR": "microsoft365",
                **given,
            }
        )
    assert named in str(raised.value)
