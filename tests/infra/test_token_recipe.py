"""docs/deploy.md's command-line token recipe works against the template as synthesized.

The recipe is read from the document, not restated here: every ``--auth-flow`` it uses must be one
the named client allows, and every ``multitool login`` it runs (parsed by the CLI's own parser) must
find a client with the code grant, no secret and login's callback URL, whose tokens the API accepts.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest
from multitool.local.cli import build_parser
from multitool.local.deployed.login import CALLBACK_URL, SCOPES

from infra.paths import ROOT
from tests.infra.synth import Synthesized

pytestmark = pytest.mark.infra

SECTION = "## Calling the API with a token from the command line"


def recipe() -> list[list[str]]:
    """The section's shell commands, one argv per command (continuations joined, ``$(...)`` opened)."""
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    section = section[: section.find("\n## ", len(SECTION)) if "\n## " in section[len(SECTION) :] else None]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)
    assert blocks, f"{SECTION!r} has no bash block"
    commands: list[list[str]] = []
    for line in "\n".join(blocks).replace("\\\n", " ").splitlines():
        line = line.split("  #", 1)[0]
        for inner in re.findall(r"\$\(([^()]*(?:\([^()]*\)[^()]*)*)\)", line) or [line]:
            if inner.strip():
                commands.append(shlex.split(inner))
    return commands


def outputs_read() -> dict[str, str]:
    """The recipe's shell variables set from stack outputs (``CLIENT=$(output UserPoolClientId)``)."""
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    return dict(re.findall(r"(\w+)=\$\(output (\w+)\)", text[text.index(SECTION) :]))


def _client(synth: Synthesized, output: str) -> tuple[str, dict[str, Any]]:
    value = synth.data["Outputs"][output]["Value"]
    assert set(value) == {"Ref"}, f"{output} is not a client of this stack"
    logical_id = value["Ref"]
    assert synth.resources[logical_id]["Type"] == "AWS::Cognito::UserPoolClient"
    return logical_id, synth.props(logical_id)


def _audience(synth: Synthesized) -> list[Any]:
    [authorizer] = synth.of_type("AWS::ApiGatewayV2::Authorizer").values()
    audience: list[Any] = authorizer["Properties"]["JwtConfiguration"]["Audience"]
    return audience


def test_the_recipe_gets_its_token_with_a_flow_the_template_allows(harness_stack: Synthesized) -> None:
    commands = recipe()
    signs_in = [c for c in commands if c[:2] == ["multitool", "login"] or "initiate-auth" in c]
    assert signs_in, "the recipe gets no token"
    for command in signs_in:
        if "initiate-auth" in command:
            flow = command[command.index("--auth-flow") + 1]
            named = command[command.index("--client-id") + 1].strip('"$')
            _, client = _client(harness_stack, outputs_read().get(named, named))
            assert f"ALLOW_{flow}" in client.get("ExplicitAuthFlows", []), (
                f"the recipe's {flow} is not among {client.get('ExplicitAuthFlows')}"
            )
            continue
        args = build_parser().parse_args(command[1:])
        assert args.command == "login"
        assert not args.client_id, "the recipe signs in with the stack's own client"
        # What `multitool login` reads from the stack's outputs, and what it sends
        assert "SignInDomain" in harness_stack.data["Outputs"]
        logical_id, client = _client(harness_stack, "CliClientId")
        assert client["AllowedOAuthFlows"] == ["code"]
        assert client["AllowedOAuthFlowsUserPoolClient"] is True
        assert client["GenerateSecret"] is False  # public: PKCE stands in for a secret
        assert client["CallbackURLs"] == [CALLBACK_URL]
        assert set(SCOPES) <= set(client["AllowedOAuthScopes"])
        assert client["SupportedIdentityProviders"] == ["COGNITO"]
        assert {"Ref": logical_id} in _audience(harness_stack)  # the API takes its tokens


def test_the_command_line_client_is_not_the_pages_and_allows_no_password_flow(
    harness_stack: Synthesized,
) -> None:
    cli_id, cli = _client(harness_stack, "CliClientId")
    web_id, web = _client(harness_stack, "UserPoolClientId")

    assert cli_id != web_id
    assert CALLBACK_URL not in web["CallbackURLs"]
    for client in (cli, web):
        assert client["ExplicitAuthFlows"] == ["ALLOW_REFRESH_TOKEN_AUTH"]
    assert sorted(_audience(harness_stack), key=str) == sorted([{"Ref": cli_id}, {"Ref": web_id}], key=str)
    # Managed login needs a style for each client it serves
    styles = harness_stack.of_type("AWS::Cognito::ManagedLoginBranding").values()
    styled = [b["Properties"]["ClientId"] for b in styles]
    assert {"Ref": cli_id} in styled


def test_an_existing_pool_gets_no_client_and_the_recipe_says_what_to_register(
    return_control_stack: Synthesized,
) -> None:
    assert "CliClientId" not in return_control_stack.data["Outputs"]
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    assert CALLBACK_URL in text[text.index(SECTION) :]


def test_the_pages_and_the_command_lines_clients_differ_only_in_where_they_return(
    harness_stack: Synthesized,
) -> None:
    _, cli = _client(harness_stack, "CliClientId")
    _, web = _client(harness_stack, "UserPoolClientId")
    where = ("CallbackURLs", "LogoutURLs")

    def besides_where(client: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in client.items() if k not in where}

    assert besides_where(cli) == besides_where(web)
    assert cli["LogoutURLs"] == cli["CallbackURLs"] == [CALLBACK_URL]
    assert web["LogoutURLs"] == web["CallbackURLs"]
    assert (cli["AccessTokenValidity"], cli["IdTokenValidity"], cli["RefreshTokenValidity"]) == (60, 60, 720)
    assert cli["EnableTokenRevocation"] is True
    assert cli["PreventUserExistenceErrors"] == "ENABLED"
