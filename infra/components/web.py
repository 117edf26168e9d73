"""The chat page, deployed: a private bucket behind CloudFront, and its config.json made from the stack.

The bucket blocks all public access and is readable only by this distribution (origin access control).
The distribution answers HTTPS only, adds security headers and a strict CSP to every response, and
routes any path without a file extension to ``index.html`` (SPA routing, in a CloudFront Function, so a
real missing file is still a 404). ``config.json`` is written at deploy time by the BucketDeployment
custom resource from the stack's values (``Source.json_data``), and the deployment invalidates the
distribution's cache, so a redeploy is seen at once. The page's ES modules (``*.js``, in subfolders too)
are uploaded first by a deployment of their own, with their content type set. BucketDeployment needs
no Docker: its handler and the AWS CLI layer ship as prebuilt assets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_deployment as s3deploy
from constructs import Construct

from infra.components.roles import NarrowedRole
from infra.nag import acknowledge
from infra.paths import ROOT

WEB_DIR = ROOT / "web"
# What BucketDeployment grants its handler to invalidate the cache, on '*' (aws-cdk-lib's
# aws-s3-deployment, bucket-deployment.ts); both actions take a distribution ARN
# (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudfront.html).
INVALIDATION_ACTIONS = frozenset({"cloudfront:GetInvalidation", "cloudfront:CreateInvalidation"})
JS_CONTENT_TYPE = "text/javascript; charset=utf-8"
# Any path whose last segment has no dot is a page route: serve the app shell.
SPA_ROUTING = """function handler(event) {
  var request = event.request;
  var last = request.uri.split('/').pop();
  if (last.indexOf('.') === -1) { request.uri = '/index.html'; }
  return request;
}"""


CHARSET_TAG = '<meta charset="utf-8">'


def page_connect_policy(connect_sources: Sequence[str]) -> str:
    """The CSP the page carries itself: fetches to itself and exactly ``connect_sources``."""
    return "connect-src " + " ".join(["'self'", *connect_sources])


def page_with_connect_policy(html: str, connect_sources: Sequence[str]) -> str:
    """``index.html`` with its own CSP ``<meta>`` right after the charset, before any script or style.

    A browser enforces every CSP a page has, the header's and a ``<meta http-equiv>`` one: a fetch must
    pass both (https://www.w3.org/TR/CSP3/#multiple-policies), and a ``<meta>`` policy may hold
    ``connect-src`` (https://www.w3.org/TR/CSP3/#meta-element). So this one narrows the header's
    region-wide API host to the API's own.
    """
    if html.count(CHARSET_TAG) != 1:
        raise ValueError(f"index.html must hold {CHARSET_TAG} once: the page's own CSP follows it")
    tag = f'<meta http-equiv="Content-Security-Policy" content="{page_connect_policy(connect_sources)}">'
    return html.replace(CHARSET_TAG, f"{CHARSET_TAG}\n  {tag}")


def content_security_policy(connect_sources: Sequence[str]) -> str:
    """The page's CSP: only its own scripts and styles; fetches to itself, the API and sign-in only."""
    connect = " ".join(["'self'", *connect_sources])
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"connect-src {connect}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; "
        "object-src 'none'; manifest-src 'self'; upgrade-insecure-requests"
    )


# CloudFront response headers policies and origin access controls are global: their names are unique
# in the account across every region (CloudFront answers an existing name with a conflict). A name
# is the construct's unique path (which holds the stack's name) and the stack's region, so one stack
# per region, or two stacks in one region, never meet. Limits: 128 characters for a response headers
# policy name, 64 for an origin access control's.
HEADERS_POLICY_NAME_MAX = 128
OAC_NAME_MAX = 64
_REGION_ROOM = 16  # "-" and the longest region name (e.g. ap-southeast-7, us-isob-east-1) and a margin


def global_name(construct: Construct, max_length: int) -> str:
    """A name for an account-global CloudFront resource: the construct's unique name and the region."""
    region = cdk.Stack.of(construct).region
    unique = cdk.Names.unique_resource_name(construct, max_length=max_length - _REGION_ROOM, separator="-")
    return f"{unique}-{region}"


class ChatWebsite(Construct):
    """Bucket + distribution; :meth:`publish` uploads ``web/`` and the generated ``config.json``."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        connect_sources: Sequence[str],
        log_retention: logs.RetentionDays,
    ) -> None:
        super().__init__(scope, construct_id)
        self._log_retention = log_retention
        self.bucket = s3.Bucket(
            self,
            "Bucket",
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            versioned=False,
            # `cdk destroy` leaves the bucket rather than failing on its files; a first create that rolls
            # back deletes it (RetainExceptOnCreate), so a failed first deploy leaves no bucket behind.
            removal_policy=cdk.RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        headers = cloudfront.ResponseHeadersPolicy(
            self,
            "SecurityHeaders",
            response_headers_policy_name=global_name(self, HEADERS_POLICY_NAME_MAX),
            comment="multitool page: HSTS, nosniff, no framing, no referrer, strict CSP",
            security_headers_behavior=cloudfront.ResponseSecurityHeadersBehavior(
                content_security_policy=cloudfront.ResponseHeadersContentSecurityPolicy(
                    content_security_policy=content_security_policy(connect_sources), override=True
                ),
                content_type_options=cloudfront.ResponseHeadersContentTypeOptions(override=True),
                frame_options=cloudfront.ResponseHeadersFrameOptions(
                    frame_option=cloudfront.HeadersFrameOption.DENY, override=True
                ),
                referrer_policy=cloudfront.ResponseHeadersReferrerPolicy(
                    referrer_policy=cloudfront.HeadersReferrerPolicy.NO_REFERRER, override=True
                ),
                strict_transport_security=cloudfront.ResponseHeadersStrictTransportSecurity(
                    access_control_max_age=cdk.Duration.days(365),
                    include_subdomains=True,
                    override=True,
                ),
            ),
        )
        access = cloudfront.S3OriginAccessControl(
            self,
            "OriginAccessControl",
            origin_access_control_name=global_name(self, OAC_NAME_MAX),
            signing=cloudfront.Signing.SIGV4_ALWAYS,
        )
        routing = cloudfront.Function(
            self,
            "SpaRouting",
            code=cloudfront.FunctionCode.from_inline(SPA_ROUTING),
            runtime=cloudfront.FunctionRuntime.JS_2_0,
            comment="Paths without a file extension are the page",
        )
        self.distribution = cloudfront.Distribution(
            self,
            "Distribution",
            comment="multitool chat page",
            default_root_object="index.html",
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
            price_class=cloudfront.PriceClass.PRICE_CLASS_100,
            # No minimumProtocolVersion: with the default *.cloudfront.net certificate CloudFront sets the
            # security policy to TLSv1 whatever is asked (ViewerCertificate, MinimumProtocolVersion:
            # https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_ViewerCertificate.html).
            default_behavior=cloudfront.BehaviorOptions(
                origin=origins.S3BucketOrigin.with_origin_access_control(
                    self.bucket, origin_access_control=access
                ),
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
                allowed_methods=cloudfront.AllowedMethods.ALLOW_GET_HEAD,
                cache_policy=cloudfront.CachePolicy.CACHING_OPTIMIZED,
                response_headers_policy=headers,
                compress=True,
                function_associations=[
                    cloudfront.FunctionAssociation(
                        function=routing, event_type=cloudfront.FunctionEventType.VIEWER_REQUEST
                    )
                ],
            ),
        )
        acknowledge(
            self.bucket,
            "The bucket holds only the page's public static files, served through CloudFront; "
            "CloudFront's own request logs are the record of who read them.",
            "AwsSolutions-S1",
        )
        acknowledge(
            self.distribution,
            "The page is for people anywhere the API is offered; the API, not the static page, "
            "decides who may act (Cognito JWT on every route).",
            "AwsSolutions-CFR1",
        )
        acknowledge(
            self.distribution,
            "The distribution serves static files only (GET/HEAD, cached); a WAF web ACL is a per-account "
            "cost decision and belongs in front of the API, which is throttled per stage.",
            "AwsSolutions-CFR2",
        )
        acknowledge(
            self.distribution,
            "Standard logs need a log bucket with ACLs enabled; the static page's reads carry no user data "
            "and every API call is access-logged on the HTTP API stage.",
            "AwsSolutions-CFR3",
        )
        acknowledge(
            self.distribution,
            "The default *.cloudfront.net certificate: CloudFront negotiates TLS 1.2+ with modern "
            "browsers; a custom domain and certificate (TLSv1.2_2021) is the operator's choice.",
            "AwsSolutions-CFR4",
        )

    @property
    def origin(self) -> str:
        return f"https://{self.distribution.distribution_domain_name}"

    @property
    def url(self) -> str:
        """The page's URL, exactly as the sign-in redirect comes back to it."""
        return f"{self.origin}/"

    def publish(self, config: Mapping[str, Any], connect_sources: Sequence[str]) -> s3deploy.BucketDeployment:
        """Upload ``web/``, ``config.json`` and ``index.html`` with its own CSP naming ``connect_sources``
        (values resolved at deploy time), and invalidate the cache.

        The header's CSP cannot name the API: the distribution would wait for the API, whose CORS
        origins wait for the distribution (a cycle). The page's files are written once both exist, so
        the page's own policy names the API's host (see :func:`page_with_connect_policy`).
        """
        log_group = logs.LogGroup(
            self, "DeploymentLogs", retention=self._log_retention, removal_policy=cdk.RemovalPolicy.DESTROY
        )
        # Its own role, no managed policy: write its logs, and what BucketDeployment grants below (its
        # invalidation on this distribution only).
        role = NarrowedRole(
            self,
            "DeploymentRole",
            narrowed={INVALIDATION_ACTIONS: [self.distribution.distribution_arn]},
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description="Uploads the page and config.json, invalidates the distribution",
        )
        log_group.grant_write(role)
        page = s3deploy.Source.asset(str(WEB_DIR), exclude=["config.json", "index.html", "*.map", ".*"])
        index = page_with_connect_policy(
            (WEB_DIR / "index.html").read_text(encoding="utf-8"), connect_sources
        )
        # The page's scripts are ES modules: a browser runs one only when it is served with a JavaScript
        # MIME type, and text/javascript is the one the HTML standard names
        # (https://html.spec.whatwg.org/multipage/scripting.html#scriptingLanguages). They are uploaded
        # with it set, not left to the AWS CLI's guess from the file name. A sync's filters (--exclude "*"
        # --include "*.js" match in subfolders too) leave other files alone, pruned or not:
        # https://docs.aws.amazon.com/cli/latest/reference/s3/index.html#use-of-exclude-and-include-filters
        # and aws-cdk-lib's s3-deployment README ("Exclude and Include Filters"):
        # https://docs.aws.amazon.com/cdk/api/v2/python/aws_cdk.aws_s3_deployment/README.html
        modules = s3deploy.BucketDeployment(
            self,
            "ModuleDeployment",
            destination_bucket=self.bucket,
            sources=[page],
            exclude=["*"],
            include=["*.js"],
            content_type=JS_CONTENT_TYPE,
            cache_control=[s3deploy.CacheControl.no_cache()],
            memory_limit=256,
            log_group=log_group,
            role=role,
        )
        deployment = s3deploy.BucketDeployment(
            self,
            "Deployment",
            destination_bucket=self.bucket,
            sources=[
                page,
                s3deploy.Source.json_data("config.json", dict(config)),
                s3deploy.Source.data("index.html", index),
            ],
            # The scripts are the module deployment's; this one's invalidation runs once they are up.
            exclude=["*.js"],
            distribution=self.distribution,
            distribution_paths=["/*"],
            cache_control=[s3deploy.CacheControl.no_cache()],
            memory_limit=256,
            log_group=log_group,
            role=role,
        )
        deployment.node.add_dependency(modules)
        self.deployment_role = role
        self.module_deployment = modules
        self._acknowledge_deployment_handler()
        return deployment

    def _acknowledge_deployment_handler(self) -> None:
        """BucketDeployment's handler is a stack-level singleton (aws-cdk-lib's code, run only while
        deploying): acknowledge on its function and on the policy of the role given to it."""
        stack = cdk.Stack.of(self)
        bucket = self.bucket.node.default_child
        assert isinstance(bucket, cdk.CfnElement)
        bucket_id = stack.get_logical_id(bucket)
        policy = self.deployment_role.node.try_find_child("DefaultPolicy")
        assert policy is not None
        assert isinstance(policy.node.default_child, cdk.CfnResource)
        policy_id = stack.get_logical_id(policy.node.default_child)
        for child in stack.node.children:
            function = child.node.default_child
            if not child.node.id.startswith("Custom::CDKBucketDeployment"):
                continue
            assert isinstance(function, cdk.CfnResource)
            # Lambda adds DependsOn its role, which its Role GetAtt already implies (cfn-lint W3005);
            # the dependency on the role's policy is the one that matters.
            function.add_override("DependsOn", [policy_id])
            acknowledge(
                function,
                "CDK's BucketDeployment handler: its runtime is chosen and updated by aws-cdk-lib, "
                "not by this project; it runs only during a deploy.",
                "AwsSolutions-L1",
            )
        account = "<AWS::AccountId>" if cdk.Token.is_unresolved(stack.account) else stack.account
        region = "<AWS::Region>" if cdk.Token.is_unresolved(stack.region) else stack.region
        acknowledge(
            policy.node.default_child,
            "BucketDeployment's grants: object wildcards limited to the CDK assets bucket (it reads the "
            "page's zip) and this page's bucket (it syncs and prunes every file).",
            "AwsSolutions-IAM5[Action::s3:GetBucket*]",
            "AwsSolutions-IAM5[Action::s3:GetObject*]",
            "AwsSolutions-IAM5[Action::s3:List*]",
            "AwsSolutions-IAM5[Action::s3:DeleteObject*]",
            "AwsSolutions-IAM5[Action::s3:Abort*]",
            f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-{account}-{region}/*]",
            f"AwsSolutions-IAM5[Resource::<{bucket_id}.Arn>/*]",
        )
