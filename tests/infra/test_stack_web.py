"""The page, deployed: a private bucket behind CloudFront, managed sign-in, config.json from the stack."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from infra.components.web import WEB_DIR
from infra.context import ContextError, DeployContext
from tests.infra.conftest import DOMAIN_PREFIX, EXISTING_CLIENT, EXISTING_POOL, LOCAL_ORIGIN
from tests.infra.iam_queries import actions_for_role
from tests.infra.synth import Synthesized

pytestmark = pytest.mark.infra


def _one(synth: Synthesized, resource_type: str) -> tuple[str, dict[str, Any]]:
    (found,) = synth.of_type(resource_type).items()
    return found[0], found[1].get("Properties", {})


def _web_client(synth: Synthesized) -> tuple[str, dict[str, Any]]:
    """The page's app client (the command line's ``multitool login`` has its own)."""
    logical_id = synth.logical_id(synth.stack.users.client)
    return logical_id, synth.props(logical_id)


def _distribution_id(synth: Synthesized) -> str:
    return _one(synth, "AWS::CloudFront::Distribution")[0]


def _page_url(synth: Synthesized) -> dict[str, Any]:
    return {"Fn::Join": ["", ["https://", {"Fn::GetAtt": [_distribution_id(synth), "DomainName"]}, "/"]]}


def _page_origin(synth: Synthesized) -> dict[str, Any]:
    return {"Fn::Join": ["", ["https://", {"Fn::GetAtt": [_distribution_id(synth), "DomainName"]}]]}


def _deployments(synth: Synthesized) -> list[dict[str, Any]]:
    return [r.get("Properties", {}) for r in synth.of_type("Custom::CDKBucketDeployment").values()]


def _deployment(synth: Synthesized) -> dict[str, Any]:
    """The page's deployment: the one that writes config.json and invalidates the distribution."""
    (found,) = [props for props in _deployments(synth) if "DistributionId" in props]
    return found


def _module_deployment(synth: Synthesized) -> tuple[str, dict[str, Any]]:
    (found,) = [
        (logical_id, resource)
        for logical_id, resource in synth.of_type("Custom::CDKBucketDeployment").items()
        if "DistributionId" not in resource.get("Properties", {})
    ]
    return found


def _published(synth: Synthesized) -> list[tuple[Path, dict[str, Any]]]:
    """Each source of the page's deployment: its asset directory and the markers filled at deploy time."""
    props = _deployment(synth)
    return [
        (synth.assembly_dir / f"asset.{key.removesuffix('.zip')}", markers)
        for key, markers in zip(props["SourceObjectKeys"], props["SourceMarkers"], strict=True)
    ]


def _config_json(synth: Synthesized) -> dict[str, Any]:
    """config.json as the deploy writes it: each marker replaced by the CloudFormation value it stands for."""
    (found,) = [(d / "config.json", m) for d, m in _published(synth) if (d / "config.json").is_file()]
    path, markers = found
    text = path.read_text()
    values: dict[str, Any] = {}
    for marker, value in markers.items():
        # A marker stands in the file unquoted: its value is the JSON text (quotes included).
        text = text.replace(marker, json.dumps(marker))
        values[marker] = value
    config: dict[str, Any] = json.loads(text)
    return {
        key: values.get(value, value) if isinstance(value, str) else value for key, value in config.items()
    }


def _quoted(value: Any) -> dict[str, Any]:
    """What a marker for ``value`` holds: the JSON string of it (Fn::Join of a quote, the value, a quote)."""
    return {"Fn::Join": ["", ['"', value, '"']]}


# --- the bucket and the distribution ---------------------------------------------------------------


def test_the_bucket_is_private_and_readable_only_by_the_distribution(harness_stack: Synthesized) -> None:
    bucket_id, bucket = _one(harness_stack, "AWS::S3::Bucket")
    assert bucket["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert "WebsiteConfiguration" not in bucket
    assert bucket["OwnershipControls"] == {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]}
    _, policy = _one(harness_stack, "AWS::S3::BucketPolicy")
    assert policy["Bucket"] == {"Ref": bucket_id}
    allows = [s for s in policy["PolicyDocument"]["Statement"] if s["Effect"] == "Allow"]
    (read,) = allows
    assert read["Principal"] == {"Service": "cloudfront.amazonaws.com"}
    assert read["Action"] == "s3:GetObject"
    source = read["Condition"]["StringEquals"]["AWS:SourceArn"]["Fn::Join"][1]
    assert source[-1] == {"Ref": _distribution_id(harness_stack)}
    (deny,) = [s for s in policy["PolicyDocument"]["Statement"] if s["Effect"] == "Deny"]
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_the_distribution_reads_the_bucket_through_origin_access_control(harness_stack: Synthesized) -> None:
    oac_id, oac = _one(harness_stack, "AWS::CloudFront::OriginAccessControl")
    assert oac["OriginAccessControlConfig"] | {"Name": None} == {
        "Name": None,
        "OriginAccessControlOriginType": "s3",
        "SigningBehavior": "always",
        "SigningProtocol": "sigv4",
    }
    assert harness_stack.of_type("AWS::CloudFront::CloudFrontOriginAccessIdentity") == {}
    _, distribution = _one(harness_stack, "AWS::CloudFront::Distribution")
    (origin,) = distribution["DistributionConfig"]["Origins"]
    assert origin["OriginAccessControlId"] == {"Fn::GetAtt": [oac_id, "Id"]}
    assert origin["S3OriginConfig"] == {"OriginAccessIdentity": ""}


def test_the_page_is_https_only_with_spa_routing(harness_stack: Synthesized) -> None:
    _, distribution = _one(harness_stack, "AWS::CloudFront::Distribution")
    config = distribution["DistributionConfig"]
    behavior = config["DefaultCacheBehavior"]
    assert behavior["ViewerProtocolPolicy"] == "https-only"
    assert behavior["AllowedMethods"] == ["GET", "HEAD"]
    assert config["DefaultRootObject"] == "index.html"
    assert "CacheBehaviors" not in config
    # SPA routing rewrites extension-less paths at the edge; a missing file stays a 404.
    assert "CustomErrorResponses" not in config
    (association,) = behavior["FunctionAssociations"]
    assert association["EventType"] == "viewer-request"
    function_id, function = _one(harness_stack, "AWS::CloudFront::Function")
    assert association["FunctionARN"] == {"Fn::GetAtt": [function_id, "FunctionARN"]}
    assert "request.uri = '/index.html'" in function["FunctionCode"]
    assert function["FunctionConfig"]["Runtime"] == "cloudfront-js-2.0"


def test_every_response_carries_security_headers_and_a_strict_csp(harness_stack: Synthesized) -> None:
    policy_id, policy = _one(harness_stack, "AWS::CloudFront::ResponseHeadersPolicy")
    _, distribution = _one(harness_stack, "AWS::CloudFront::Distribution")
    behavior = distribution["DistributionConfig"]["DefaultCacheBehavior"]
    assert behavior["ResponseHeadersPolicyId"] == {"Ref": policy_id}
    headers = policy["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]
    assert headers["StrictTransportSecurity"]["AccessControlMaxAgeSec"] >= 31536000
    assert headers["ContentTypeOptions"] == {"Override": True}
    assert headers["FrameOptions"] == {"FrameOption": "DENY", "Override": True}
    assert headers["ReferrerPolicy"]["ReferrerPolicy"] == "no-referrer"
    csp_parts = headers["ContentSecurityPolicy"]["ContentSecurityPolicy"]["Fn::Join"][1]
    csp = "".join(p if isinstance(p, str) else f"<{next(iter(p.values()))}>" for p in csp_parts)
    directives = {d.split()[0]: d.split()[1:] for d in csp.split("; ")}
    assert directives["default-src"] == ["'none'"]
    assert directives["script-src"] == ["'self'"]
    assert directives["style-src"] == ["'self'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["base-uri"] == ["'none'"]
    assert directives["object-src"] == ["'none'"]
    assert "'unsafe-inline'" not in csp
    assert "'unsafe-eval'" not in csp
    # Fetches go to the page itself, this region's HTTP APIs and the sign-in domain, nowhere else.
    users = harness_stack.stack.users
    assert users.domain is not None
    domain = harness_stack.logical_id(users.domain)
    assert directives["connect-src"] == [
        "'self'",
        "https://*.execute-api.us-east-1.<AWS::URLSuffix>",
        f"https://<{domain}>.auth.us-east-1.amazoncognito.com",
    ]


def test_the_page_and_its_config_are_published_with_an_invalidation(harness_stack: Synthesized) -> None:
    props = _deployment(harness_stack)
    bucket_id, _ = _one(harness_stack, "AWS::S3::Bucket")
    assert props["DestinationBucketName"] == {"Ref": bucket_id}
    assert props["DistributionId"] == {"Ref": _distribution_id(harness_stack)}
    assert props["DistributionPaths"] == ["/*"]
    assert props["WaitForDistributionInvalidation"] is True
    assert props["Prune"] is True
    page = [d for d, _ in _published(harness_stack) if (d / "app.js").is_file()]
    (page_dir,) = page
    shipped = {p.relative_to(page_dir).as_posix() for p in page_dir.rglob("*") if p.is_file()}
    assert {"app.js", "auth.js", "styles.css"} <= shipped
    # only the generated config.json and index.html (the page's own CSP written in: test_stack_hardening)
    assert not {"config.json", "index.html"} & shipped
    generated = {"config.json", "index.html"}
    assert [d for d, _ in _published(harness_stack) if (d / "index.html").is_file()]
    expected = {p.relative_to(WEB_DIR).as_posix() for p in WEB_DIR.rglob("*") if p.is_file()}
    assert shipped == {name for name in expected if not name.startswith(".") and name not in generated}
    assert {"cards/card.js", "cards/jira.js"} <= shipped  # the page's modules in their folders ship too
    assert props["Exclude"] == ["*.js"]  # the scripts are the module deployment's (below)


def test_the_pages_modules_are_uploaded_as_javascript_before_the_page(harness_stack: Synthesized) -> None:
    # ES modules run only when served with a JavaScript MIME type (and nosniff is on)
    module_id, module = _module_deployment(harness_stack)
    props = module["Properties"]
    assert props["SystemMetadata"]["content-type"] == "text/javascript; charset=utf-8"
    assert props["Exclude"] == ["*"]
    assert props["Include"] == ["*.js"]
    assert props["Prune"] is True  # its own files only: the filters keep the others out of its sync
    page = _deployment(harness_stack)
    assert props["SourceObjectKeys"] == page["SourceObjectKeys"][:1]  # the same asset: web/
    (page_id,) = [
        logical_id
        for logical_id, resource in harness_stack.of_type("Custom::CDKBucketDeployment").items()
        if logical_id != module_id
    ]
    # The invalidation comes once the modules are up
    assert module_id in harness_stack.of_type("Custom::CDKBucketDeployment")[page_id]["DependsOn"]


def test_config_json_holds_the_stacks_values_and_nothing_typed_by_hand(harness_stack: Synthesized) -> None:
    synth = harness_stack
    users = synth.stack.users
    assert users.domain is not None
    config = _config_json(synth)
    api = synth.logical_id(synth.stack.api.http_api)
    domain = synth.logical_id(users.domain)
    assert config == {
        "apiBase": _quoted({"Fn::GetAtt": [api, "ApiEndpoint"]}),
        "auth": "oidc",
        "region": "us-east-1",
        "userPoolId": _quoted({"Ref": synth.logical_id(users.user_pool)}),
        "clientId": _quoted({"Ref": synth.logical_id(users.client)}),
        "signInDomain": {
            "Fn::Join": ["", ['"https://', {"Ref": domain}, '.auth.us-east-1.amazoncognito.com"']]
        },
        "scope": "openid email profile",
        # No jiraProjects in the context: the tools' default projects, each with its issue types.
        "jiraProjects": {
            "OPS": {"name": "Operations", "issueTypes": ["Bug", "Task", "Story"]},
            "WEB": {"name": "Website", "issueTypes": ["Bug", "Task", "Story"]},
        },
    }


def test_the_deployment_handler_has_its_own_role_without_managed_policies(harness_stack: Synthesized) -> None:
    role = harness_stack.logical_id(harness_stack.stack.web.deployment_role)
    assert not harness_stack.props(role).get("ManagedPolicyArns")
    actions = actions_for_role(harness_stack, role)
    assert {"cloudfront:CreateInvalidation", "s3:PutObject", "logs:PutLogEvents"} <= actions
    assert not {a for a in actions if a.startswith(("ses:", "secretsmanager:", "dynamodb:", "bedrock"))}


# --- managed sign-in ---------------------------------------------------------------------------------


def test_the_client_uses_the_code_flow_with_pkce_and_the_pages_url(harness_stack: Synthesized) -> None:
    _, client = _web_client(harness_stack)
    assert client["AllowedOAuthFlows"] == ["code"]
    assert client["AllowedOAuthFlowsUserPoolClient"] is True
    assert client["GenerateSecret"] is False  # a public client: PKCE, no secret in the page
    assert client["ExplicitAuthFlows"] == ["ALLOW_REFRESH_TOKEN_AUTH"]
    assert set(client["AllowedOAuthScopes"]) == {"openid", "email", "profile"}
    assert client["SupportedIdentityProviders"] == ["COGNITO"]
    assert client["CallbackURLs"] == [_page_url(harness_stack)]
    assert client["LogoutURLs"] == [_page_url(harness_stack)]
    assert client["EnableTokenRevocation"] is True


def test_the_pool_has_a_managed_login_domain_and_style(harness_stack: Synthesized) -> None:
    pool_id, pool = _one(harness_stack, "AWS::Cognito::UserPool")
    assert pool["AdminCreateUserConfig"]["AllowAdminCreateUserOnly"] is True  # sign-up off by default
    _, domain = _one(harness_stack, "AWS::Cognito::UserPoolDomain")
    assert domain["UserPoolId"] == {"Ref": pool_id}
    assert domain["ManagedLoginVersion"] == 2
    # Unique per stack: the UUID part of the stack id, so two deploys never claim the same prefix.
    assert domain["Domain"] == {
        "Fn::Join": ["-", ["multitool", {"Fn::Select": [2, {"Fn::Split": ["/", {"Ref": "AWS::StackId"}]}]}]]
    }
    client_id, _ = _web_client(harness_stack)
    styles = harness_stack.of_type("AWS::Cognito::ManagedLoginBranding").values()
    brandings = [b["Properties"] for b in styles]
    [branding] = [b for b in brandings if b["ClientId"] == {"Ref": client_id}]
    assert branding["UseCognitoProvidedValues"] is True


def test_the_api_accepts_the_pages_origin_and_its_clients_tokens(harness_stack: Synthesized) -> None:
    _, api = _one(harness_stack, "AWS::ApiGatewayV2::Api")
    assert api["CorsConfiguration"]["AllowOrigins"] == [
        _page_origin(harness_stack)
    ]  # localhost only when asked
    client_id, _ = _web_client(harness_stack)
    _, authorizer = _one(harness_stack, "AWS::ApiGatewayV2::Authorizer")
    assert {"Ref": client_id} in authorizer["JwtConfiguration"]["Audience"]


def test_outputs_print_the_page_url_and_the_sign_in_domain(harness_stack: Synthesized) -> None:
    outputs = harness_stack.data["Outputs"]
    assert outputs["WebUrl"]["Value"] == _page_url(harness_stack)
    users = harness_stack.stack.users
    assert users.domain is not None
    assert outputs["SignInDomain"]["Value"] == {
        "Fn::Join": [
            "",
            [
                "https://",
                {"Ref": harness_stack.logical_id(users.domain)},
                ".auth.us-east-1.amazoncognito.com",
            ],
        ]
    }


# --- context switches --------------------------------------------------------------------------------


def test_self_sign_up_a_local_page_and_a_named_domain_by_context(web_stack: Synthesized) -> None:
    _, pool = _one(web_stack, "AWS::Cognito::UserPool")
    assert pool["AdminCreateUserConfig"]["AllowAdminCreateUserOnly"] is False
    _, domain = _one(web_stack, "AWS::Cognito::UserPoolDomain")
    assert domain["Domain"] == DOMAIN_PREFIX
    _, client = _web_client(web_stack)
    assert client["CallbackURLs"] == [_page_url(web_stack), f"{LOCAL_ORIGIN}/"]
    assert client["LogoutURLs"] == [_page_url(web_stack), f"{LOCAL_ORIGIN}/"]
    _, api = _one(web_stack, "AWS::ApiGatewayV2::Api")
    assert api["CorsConfiguration"]["AllowOrigins"] == [_page_origin(web_stack), LOCAL_ORIGIN]
    config = _config_json(web_stack)
    assert config["jiraProjects"] == {"WEB": {"name": "Website", "issueTypes": ["Bug"]}}
    domain_id = web_stack.logical_id(web_stack.stack.users.domain)
    assert config["signInDomain"] == {
        "Fn::Join": ["", ['"https://', {"Ref": domain_id}, '.auth.us-east-1.amazoncognito.com"']]
    }


def test_an_existing_pool_keeps_its_client_and_the_page_takes_a_token(
    return_control_stack: Synthesized,
) -> None:
    synth = return_control_stack
    assert synth.of_type("AWS::Cognito::UserPoolClient") == {}
    assert synth.of_type("AWS::Cognito::UserPoolDomain") == {}
    assert "SignInDomain" not in synth.data["Outputs"]
    assert "WebUrl" in synth.data["Outputs"]
    config = _config_json(synth)
    assert config["auth"] == "bearer"
    assert config["userPoolId"] == EXISTING_POOL
    assert config["clientId"] == EXISTING_CLIENT
    _, api = _one(synth, "AWS::ApiGatewayV2::Api")
    assert api["CorsConfiguration"]["AllowOrigins"] == [_page_origin(synth), "https://chat.example.com"]


VALID = {"modelId": "anthropic.claude-3-5-sonnet-20241022-v2:0", "senderEmail": "me@example.com"}


def test_an_existing_pools_domain_signs_in_with_managed_login() -> None:
    settings = DeployContext.from_context(
        {
            **VALID,
            "userPoolId": EXISTING_POOL,
            "userPoolClientId": EXISTING_CLIENT,
            "userPoolDomain": "https://auth.example.com/",
        }
    )
    assert settings.user_pool_domain == "https://auth.example.com"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"selfSignUp": "maybe"}, "Invalid context 'selfSignUp': 'maybe'. Allowed: true (anyone"),
        (
            {"localSignInOrigin": "http://example.com"},
            "Invalid context 'localSignInOrigin': 'http://example.com'",
        ),
        (
            {"localSignInOrigin": "https://localhost:8000"},
            "Allowed: http://localhost:PORT or http://127.0.0.1:PORT",
        ),
        (
            {"authDomainPrefix": "My_Prefix"},
            "Invalid context 'authDomainPrefix': 'My_Prefix'. Allowed: a Cognito",
        ),
        ({"authDomainPrefix": "team-aws-chat"}, "Invalid context 'authDomainPrefix': 'team-aws-chat'"),
        ({"authDomainPrefix": "-chat"}, "Invalid context 'authDomainPrefix': '-chat'"),
        ({"userPoolDomain": "https://auth.example.com"}, "give userPoolId and userPoolClientId with it"),
        (
            {
                "userPoolId": EXISTING_POOL,
                "userPoolClientId": EXISTING_CLIENT,
                "userPoolDomain": "http://a.b",
            },
            "Invalid context 'userPoolDomain': 'http://a.b'. Allowed: the existing pool's",
        ),
        (
            {"userPoolId": EXISTING_POOL, "userPoolClientId": EXISTING_CLIENT, "authDomainPrefix": "chat"},
            "an existing pool (userPoolId) keeps its own domain",
        ),
    ],
)
def test_bad_sign_in_context_is_one_clear_line(overrides: dict[str, str], message: str) -> None:
    with pytest.raises(ContextError) as caught:
        DeployContext.from_context({**VALID, **overrides})
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
