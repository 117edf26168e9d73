"""A Slack user's own accounts: the token source asks AgentCore Identity by the vault user id of the
directory person the Slack user matched (``GetWorkloadAccessTokenForUserId``), and the page completes a
consent started from Slack only for a signed-in user who is that same directory person.

AgentCore Identity is the local stand-in, which validates every request against botocore's
``bedrock-agentcore`` model as the service would; the consents and the directory are in moto's DynamoDB."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import botocore.session
import pytest
from multitool.local.standins.identity import LocalIdentity
from multitool.ports.agentcore.tokens import AgentCoreTokens, slack_vault_user
from multitool.ports.connections import DynamoConnections
from multitool.ports.directory import DynamoDirectory
from multitool.ports.tokens import Account, AccountNotConnected
from multitool.review.accounts import Accounts, ConsentRefused, DirectoryPeople

from tests.support.moto_tables import Tables, moto_tables

__all__ = ["moto_tables"]

WORKLOAD = "multitool-identity-a1b2c3"
RETURN_URL = "https://chat.example.com/"
SCOPES = ["Mail.Send"]
ZOE = "zoe.park@example.com"
SLACK_ZOE = Account("slack:T0TEAM001:U0ZOE0001", ZOE)
# The page's sign-ins: a JWT whose sub the stand-in reads (the API's authorizer verified it).
ZOE_PAGE_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwYWdlLXpvZSJ9.c2ln"
KIN_PAGE_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwYWdlLWtpbiJ9.c2ln"


class Recorded(LocalIdentity):
    """The stand-in, with the operations it was asked, in order."""

    def __init__(self) -> None:
        super().__init__(workloads={WORKLOAD: (RETURN_URL,)}, consent_base="https://consent.local/consent")
        self.asked: list[tuple[str, dict[str, Any]]] = []

    def get_workload_access_token_for_jwt(self, **params: Any) -> dict[str, Any]:
        self.asked.append(("GetWorkloadAccessTokenForJWT", params))
        return super().get_workload_access_token_for_jwt(**params)

    def get_workload_access_token_for_user_id(self, **params: Any) -> dict[str, Any]:
        self.asked.append(("GetWorkloadAccessTokenForUserId", params))
        return super().get_workload_access_token_for_user_id(**params)

    def complete_resource_token_auth(self, **params: Any) -> dict[str, Any]:
        self.asked.append(("CompleteResourceTokenAuth", params))
        return super().complete_resource_token_auth(**params)


@pytest.fixture
def setup(moto_tables: Tables) -> dict[str, Any]:
    identity = Recorded()
    connections = DynamoConnections(moto_tables.names["LIMITS_TABLE_NAME"], moto_tables.client)

    def tokens(*, slack_users: bool) -> AgentCoreTokens:
        return AgentCoreTokens(
            identity,  # type: ignore[arg-type]
            workload_name=WORKLOAD,
            credential_providers={"microsoft365": "microsoft365"},
            return_url=RETURN_URL,
            connections=connections,
            slack_users=slack_users,
        )

    directory = DynamoDirectory(moto_tables.names["DIRECTORY_TABLE_NAME"], moto_tables.client)
    accounts = Accounts(identity, connections, ("microsoft365",), DirectoryPeople(directory))  # type: ignore[arg-type]
    return {"identity": identity, "tokens": tokens, "accounts": accounts, "connections": connections}


def consent_link(tokens: AgentCoreTokens, account: Account) -> str:
    with pytest.raises(AccountNotConnected) as missing:
        tokens.access_token("microsoft365", account, SCOPES)
    assert missing.value.authorization_url is not None
    return missing.value.authorization_url


def consented(identity: LocalIdentity, link: str) -> str:
    """The person agreed at the provider: the session the page comes back with."""
    uri = parse_qs(urlsplit(link).query)["request_uri"][0]
    back = identity.consent(uri)
    return parse_qs(urlsplit(back).query)["session_id"][0]


def test_the_vault_user_id_is_one_per_person_and_fits_the_models_user_id() -> None:
    shape = botocore.session.get_session().get_service_model("bedrock-agentcore")
    user_id = shape.operation_model("GetWorkloadAccessTokenForUserId").input_shape.members["userId"]
    vault = slack_vault_user(ZOE)
    assert vault == slack_vault_user(" Zoe.Park@Example.com")
    assert vault != slack_vault_user("zoe.mueller@example.com")
    assert vault.startswith("slack-")
    assert ZOE not in vault
    assert user_id.metadata["min"] <= len(vault) <= user_id.metadata["max"]


def test_a_slack_user_gets_a_link_for_their_person_and_after_the_page_completes_it_the_token(
    setup: dict[str, Any],
) -> None:
    identity, tokens, accounts = setup["identity"], setup["tokens"](slack_users=True), setup["accounts"]
    link = consent_link(tokens, SLACK_ZOE)
    vault = slack_vault_user(ZOE)
    assert identity.asked[0] == (
        "GetWorkloadAccessTokenForUserId",
        {"workloadName": WORKLOAD, "userId": vault},
    )
    pending = setup["connections"].get(vault, "microsoft365")
    assert pending is not None
    assert pending.status == "pending"
    assert setup["connections"].get(SLACK_ZOE.user_id, "microsoft365") is None  # kept by person, not Slack id

    session = consented(identity, link)
    # Zoe signs in to the page (her own sub, her verified email): the consent is her person's
    view = accounts.complete("page-zoe", ZOE_PAGE_JWT, {"sessionUri": session}, ZOE)
    assert view.status == "connected"
    assert identity.asked[-1] == (
        "CompleteResourceTokenAuth",
        {"sessionUri": session, "userIdentifier": {"userId": vault}},
    )
    token = tokens.access_token("microsoft365", SLACK_ZOE, SCOPES)
    assert token == f"local-microsoft365-{vault}"
    # No JWT was ever asked for: a Slack turn has none
    assert "GetWorkloadAccessTokenForJWT" not in {name for name, _ in identity.asked}


@pytest.mark.parametrize(
    ("user", "jwt", "email"),
    [
        pytest.param("page-kin", KIN_PAGE_JWT, "kinshuok@example.com", id="another-person"),
        pytest.param("page-zoe", ZOE_PAGE_JWT, None, id="email-not-verified"),
        pytest.param("page-x", KIN_PAGE_JWT, "zoe.park@elsewhere.example", id="not-in-the-directory"),
    ],
)
def test_a_forwarded_link_finished_by_anyone_else_binds_nothing(
    setup: dict[str, Any], user: str, jwt: str, email: str | None
) -> None:
    identity, tokens, accounts = setup["identity"], setup["tokens"](slack_users=True), setup["accounts"]
    session = consented(identity, consent_link(tokens, SLACK_ZOE))
    with pytest.raises(ConsentRefused):
        accounts.complete(user, jwt, {"sessionUri": session}, email)
    assert "CompleteResourceTokenAuth" not in {name for name, _ in identity.asked}
    # Zoe herself can still finish it
    assert accounts.complete("page-zoe", ZOE_PAGE_JWT, {"sessionUri": session}, ZOE).status == "connected"


def test_without_slack_users_a_slack_account_gets_no_token_and_asks_nothing(setup: dict[str, Any]) -> None:
    identity, tokens = setup["identity"], setup["tokens"](slack_users=False)
    with pytest.raises(AccountNotConnected) as missing:
        tokens.access_token("microsoft365", SLACK_ZOE, SCOPES)
    assert missing.value.authorization_url is None
    assert identity.asked == []


@pytest.mark.parametrize(
    "account",
    [
        pytest.param(Account("page-zoe", ZOE), id="a-page-user-without-a-jwt"),
        pytest.param(Account("slack:T0TEAM001:U0ZOE0001", None), id="a-slack-user-without-a-person"),
    ],
)
def test_only_a_slack_account_with_its_person_gets_a_token_by_user_id(
    setup: dict[str, Any], account: Account
) -> None:
    identity, tokens = setup["identity"], setup["tokens"](slack_users=True)
    with pytest.raises(AccountNotConnected):
        tokens.access_token("microsoft365", account, SCOPES)
    assert identity.asked == []


def test_the_pages_own_consent_still_completes_with_the_users_token(setup: dict[str, Any]) -> None:
    identity, tokens, accounts = setup["identity"], setup["tokens"](slack_users=True), setup["accounts"]
    page_zoe = Account("page-zoe", ZOE, ZOE_PAGE_JWT)
    session = consented(identity, consent_link(tokens, page_zoe))
    assert accounts.complete("page-zoe", ZOE_PAGE_JWT, {"sessionUri": session}, ZOE).status == "connected"
    assert identity.asked[-1][1]["userIdentifier"] == {"userToken": ZOE_PAGE_JWT}
    # Connected per surface: the page's consent is not the Slack person's
    assert consent_link(tokens, SLACK_ZOE)


def test_the_token_source_knows_a_slack_owner_as_the_slack_app_names_one() -> None:
    from multitool.ports.agentcore.tokens import SLACK_OWNER_PREFIX
    from multitool.slack.identity import OWNER_PREFIX, owner_id

    assert SLACK_OWNER_PREFIX == OWNER_PREFIX
    assert owner_id("T0TEAM001", "U0ZOE0001") == SLACK_ZOE.user_id
