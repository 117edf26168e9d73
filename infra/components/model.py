"""Which model the system may invoke, and the IAM that allows exactly that model."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from constructs import Construct

from infra.context import ModelRef
from infra.nag import acknowledge

INVOKE_ACTION = "bedrock:InvokeModel"  # InvokeModel and Converse
STREAM_ACTION = "bedrock:InvokeModelWithResponseStream"  # InvokeModelWithResponseStream and ConverseStream


class ModelAccess(Construct):
    """A foundation model, or a cross-region inference profile and the model it routes to."""

    def __init__(self, scope: Construct, construct_id: str, *, model: ModelRef) -> None:
        super().__init__(scope, construct_id)
        self.model = model
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

    def grant_invoke(self, grantee: iam.IGrantable, *, streaming: bool = True) -> None:
        """Invoke this model (through its profile, if any) and nothing else; ``streaming`` adds the
        streaming APIs, for a caller that uses them (a Bedrock agent may stream its model's answer)."""
        actions = [INVOKE_ACTION, STREAM_ACTION] if streaming else [INVOKE_ACTION]
        if self.model.is_global_profile and self.profile_arn:
            grantee.grant_principal.add_to_principal_policy(
                iam.PolicyStatement(actions=actions, resources=[self.profile_arn])
            )
            grantee.grant_principal.add_to_principal_policy(
                iam.PolicyStatement(
                    actions=actions,
                    resources=self.foundation_model_arns,
                    conditions={"StringEquals": {"bedrock:InferenceProfileArn": self.profile_arn}},
                )
            )
        else:
            iam.Grant.add_to_principal(grantee=grantee, actions=actions, resource_arns=self.resource_arns)
        if self.profile_arn:
            iam.Grant.add_to_principal(
                grantee=grantee, actions=["bedrock:GetInferenceProfile"], resource_arns=[self.profile_arn]
            )
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
