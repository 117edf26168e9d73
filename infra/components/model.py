"""Which model the system may invoke, and the IAM that allows exactly that model."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from constructs import Construct

from infra.context import ModelRef
from infra.nag import acknowledge

INVOKE_ACTION = "bedrock:InvokeModel"  # InvokeModel and Converse
# A Marketplace model's first call subscribes the account, as the calling principal: it needs
# Subscribe (held to the model's product) and ViewSubscriptions, or the subscription fails and every
# later call is AccessDenied ("Request access to models", model-access permissions,
# https://docs.aws.amazon.com/bedrock/latest/userguide/model-access.html). Unsubscribe, which the
# page also lists for managing access, is never this system's to do and is left out.
SUBSCRIBE_ACTION = "aws-marketplace:Subscribe"
VIEW_SUBSCRIPTIONS_ACTION = "aws-marketplace:ViewSubscriptions"
STREAM_ACTION = "bedrock:InvokeModelWithResponseStream"  # InvokeModelWithResponseStream and ConverseStream


class ModelAccess(Construct):
    """A foundation model, or a cross-region inference profile and the model it routes to."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        model: ModelRef,
        marketplace_product_id: str | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.model = model
        self.marketplace_product_id = marketplace_product_id
        stack = cdk.Stack.of(self)
        self._region_pattern = model.destination_region_pattern
        self.profile_arn: str | None = None
        if model.is_inference_profile:
            self.profile_arn = stack.format_arn(
                service="bedrock", resource="inference-profile", resource_name=model.model_id
            )
        if model.is_global_profile:
            # A global profile is authorized on three ARNs: the profile in the source Region, the model
            # in the source Region, and the model with no Region (where the request is routed to);
            # the two model ARNs only through this profile ("IAM policy requirements for global
            # cross-Region inference",
            # https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html).
            regions = [stack.region, ""]
        elif model.is_inference_profile:
            # A geographic profile routes each request to any destination region of its geography.
            regions = [self._region_pattern or "*"]
        else:
            regions = [stack.region]
        self.foundation_model_arns = [
            stack.format_arn(
                service="bedrock",
                region=region,
                account="",
                resource="foundation-model",
                resource_name=model.foundation_model_id,
            )
            for region in regions
        ]

    @property
    def model_id(self) -> str:
        return self.model.model_id

    @property
    def resource_arns(self) -> list[str]:
        return [arn for arn in (self.profile_arn, *self.foundation_model_arns) if arn]

    def grant_invoke(
        self, grantee: iam.IGrantable, *, streaming: bool = True, describe_profile: bool = False
    ) -> None:
        """Invoke this model (through its profile, if any) and nothing else; ``streaming`` adds the
        streaming APIs, for a caller that uses them (a Bedrock agent may stream its model's answer).

        ``describe_profile`` adds ``bedrock:GetInferenceProfile`` on the profile: kept for a Bedrock
        agent's service role, where the service (not this code) resolves the profile ("Create a service
        role for Amazon Bedrock Agents",
        https://docs.aws.amazon.com/bedrock/latest/userguide/agents-permissions.html). The harness
        only invokes its model (AgentCore's own inference policy,
        AmazonBedrockAgentCoreMemoryBedrockModelInferenceExecutionRolePolicy, has the two invoke
        actions alone), and the orchestrator's code never calls GetInferenceProfile."""
        actions = [INVOKE_ACTION, STREAM_ACTION] if streaming else [INVOKE_ACTION]
        if self.model.is_global_profile and self.profile_arn:
            grantee.grant_principal.add_to_principal_policy(
                iam.PolicyStatement(actions=actions, resources=[self.profile_arn])
            )
            regional, regionless = self.foundation_model_arns
            through_profile = {"bedrock:InferenceProfileArn": self.profile_arn}
            for resource, conditions in (
                (regional, through_profile),
                # The regionless model ARN is requested with no region: aws:RequestedRegion is
                # "unspecified" there, as AWS's global profile policy holds it.
                (regionless, {**through_profile, "aws:RequestedRegion": "unspecified"}),
            ):
                grantee.grant_principal.add_to_principal_policy(
                    iam.PolicyStatement(
                        actions=actions, resources=[resource], conditions={"StringEquals": conditions}
                    )
                )
        else:
            iam.Grant.add_to_principal(grantee=grantee, actions=actions, resource_arns=self.resource_arns)
        if self.profile_arn and describe_profile:
            iam.Grant.add_to_principal(
                grantee=grantee, actions=["bedrock:GetInferenceProfile"], resource_arns=[self.profile_arn]
            )
        self._grant_first_use(grantee)
        if self.model.is_inference_profile and not self.model.is_global_profile:
            region = self._region_pattern
            if isinstance(grantee, Construct):
                acknowledge(
                    grantee,
                    f"The cross-region inference profile {self.model.model_id} routes each request to "
                    f"{self.model.foundation_model_id} in any destination region of its geography, so the "
                    f"foundation-model ARN's region is the geography's pattern ({region}); the model "
                    "itself is fixed.",
                    f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:{region}::foundation-model/"
                    f"{self.model.foundation_model_id}]",
                )

    def _grant_first_use(self, grantee: iam.IGrantable) -> None:
        """Let this caller subscribe the account to the model's Marketplace product on its first call.

        Without a known product id nothing is granted: subscribing becomes the explicit one-time step
        docs/deploy.md gives (and synth says so)."""
        product = self.marketplace_product_id
        if product is None:
            if isinstance(grantee, Construct):
                cdk.Annotations.of(grantee).add_warning_v2(
                    "multitool:marketplace-subscription",
                    f"No AWS Marketplace product id is known for {self.model.foundation_model_id}: its "
                    "callers cannot subscribe the account on first use. Subscribe once before the first "
                    "turn (docs/deploy.md, Model access and regions), or pass -c marketplaceProductId= "
                    "with the id from the model's Bedrock model card.",
                )
            return
        principal = grantee.grant_principal
        principal.add_to_principal_policy(
            iam.PolicyStatement(
                sid="SubscribeToTheModelOnFirstUse",
                actions=[SUBSCRIBE_ACTION],
                resources=["*"],
                conditions={"ForAnyValue:StringEquals": {"aws-marketplace:ProductId": [product]}},
            )
        )
        principal.add_to_principal_policy(
            iam.PolicyStatement(sid="ViewSubscriptions", actions=[VIEW_SUBSCRIPTIONS_ACTION], resources=["*"])
        )
        if isinstance(grantee, Construct):
            acknowledge(
                grantee,
                "AWS Marketplace actions have no resource-level permission: Subscribe is held to the "
                f"model's product ({product}) by aws-marketplace:ProductId; ViewSubscriptions only reads "
                "the account's subscriptions, which the first-use subscription checks.",
                "AwsSolutions-IAM5[Resource::*]",
            )


def grant_guardrail(stack: cdk.Stack, grantee: iam.IGrantable, guardrail_id: str) -> None:
    """``bedrock:ApplyGuardrail`` on exactly this guardrail: what a call carrying it needs, whether
    Agents Classic applies it for the agent or Converse's ``guardrailConfig`` for the orchestrator
    ("Include a guardrail with the Converse API",
    https://docs.aws.amazon.com/bedrock/latest/userguide/guardrails-use-converse-api.html)."""
    arn = (
        guardrail_id
        if guardrail_id.startswith("arn:")
        else stack.format_arn(service="bedrock", resource="guardrail", resource_name=guardrail_id)
    )
    iam.Grant.add_to_principal(grantee=grantee, actions=["bedrock:ApplyGuardrail"], resource_arns=[arn])
