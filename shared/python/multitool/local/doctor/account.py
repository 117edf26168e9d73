"""The caller, the region's AgentCore, and Lambda's concurrency in the account."""

from __future__ import annotations

from botocore.exceptions import (
    NoCredentialsError,
)

from multitool.local.doctor.base import Checks, error_code
from multitool.local.doctor.findings import (
    AGENTCORE_REGIONS_URL,
    CONCURRENCY_QUOTA_CODE,
    MIN_UNRESERVED,
    NOT_OFFERED,
    REJECTED_CREDENTIALS,
    Finding,
    Runtime,
    Status,
)


class AccountChecks(Checks):
    """The caller and the region (STS, AgentCore control), and Lambda's concurrency."""

    # -- the caller and the region ------------------------------------------------------------

    def check_caller(self) -> Finding:
        rejected = lambda error: Finding(  # noqa: E731 - one mapping for several codes
            "caller",
            Status.FAIL,
            f"AWS rejected the credentials ({error_code(error)}).",
            "refresh them: `aws sso login`, or new access keys with `aws configure`.",
        )
        try:
            answer = self._ask(
                "caller",
                "sts:GetCallerIdentity",
                lambda: self._client("sts").get_caller_identity(),
                dict.fromkeys(REJECTED_CREDENTIALS, rejected),
                # No STS endpoint: a region name AWS does not have, or no network; nothing else answers.
                unreachable=Finding(
                    "caller",
                    Status.FAIL,
                    f"STS in {self.target.region} could not be reached.",
                    "check the region name (`aws account list-regions`) and the network.",
                ),
            )
        except NoCredentialsError:
            return Finding(
                "caller",
                Status.FAIL,
                "no AWS credentials found.",
                "sign in with `aws configure sso` (then `aws sso login`), or export AWS_PROFILE.",
            )
        if isinstance(answer, Finding):
            return answer
        return Finding("caller", Status.OK, f"account {answer['Account']} as {answer['Arn']}.")

    def check_region(self, runtime: Runtime, *, gateway: bool) -> list[Finding]:
        """Only the harness runtime needs AgentCore in the region (and its Gateway, executor=gateway)."""
        if runtime != "agentcore":
            return []
        findings = [
            self._offered("harness region", "the AgentCore harness", "ListHarnesses", "list_harnesses")
        ]
        if gateway:
            findings.append(
                self._offered("gateway region", "the AgentCore Gateway", "ListGateways", "list_gateways")
            )
        return findings

    def _offered(self, check: str, feature: str, operation: str, method: str) -> Finding:
        region = self.target.region
        fix = f"deploy to a region that offers {feature} ({AGENTCORE_REGIONS_URL}): --region and AWS_REGION."
        answer = self._ask(
            check,
            f"bedrock-agentcore:{operation}",
            lambda: getattr(self._client("bedrock-agentcore-control"), method)(maxResults=1),
            {
                code: Finding(check, Status.FAIL, f"{region} does not offer {feature}.", fix)
                for code in NOT_OFFERED
            },
            unreachable=Finding(check, Status.FAIL, f"{region} has no AgentCore endpoint.", fix),
        )
        if isinstance(answer, Finding):
            return answer
        return Finding(check, Status.OK, f"{region} offers {feature}.")

    # -- Lambda's concurrency -------------------------------------------------------------------

    def check_concurrency(self) -> Finding:
        """What the deploy's reservation needs of the account's Lambda concurrency quota."""
        region, reserved = self.target.region, self.target.reserved_concurrency
        answer = self._ask(
            "concurrency",
            "lambda:GetAccountSettings",
            lambda: self._client("lambda").get_account_settings(),
            {},
        )
        if isinstance(answer, Finding):
            return answer
        limit = answer.get("AccountLimit", {})
        quota = limit.get("ConcurrentExecutions", 0)
        unreserved = limit.get("UnreservedConcurrentExecutions", 0)
        if reserved == 0:
            return Finding(
                "concurrency",
                Status.OK,
                f"the deploy reserves none; its functions share the account's {quota} executions "
                f"({unreserved} unreserved) in {region}.",
            )
        needed = reserved + MIN_UNRESERVED
        fix = (
            "deploy with -c orchestratorConcurrency=0 -c reviewConcurrency=0 (the default), or ask for a "
            "higher quota: `aws service-quotas request-service-quota-increase --service-code lambda "
            f"--quota-code {CONCURRENCY_QUOTA_CODE} --desired-value {max(needed, 1000)} --region {region}`."
        )
        if quota < needed:
            return Finding(
                "concurrency",
                Status.FAIL,
                f"reserving {reserved} executions needs a quota of at least {needed} (Lambda keeps "
                f"{MIN_UNRESERVED} unreserved); this account's is {quota} in {region}.",
                fix,
            )
        if unreserved - reserved < MIN_UNRESERVED:
            return Finding(
                "concurrency",
                Status.WARN,
                f"reserving {reserved} executions would leave {unreserved - reserved} of {quota} unreserved, "
                f"under the {MIN_UNRESERVED} Lambda keeps: the deploy fails unless this stack already "
                "holds that reservation.",
                fix,
            )
        return Finding(
            "concurrency",
            Status.OK,
            f"reserving {reserved} executions leaves {unreserved - reserved} of {quota} unreserved "
            f"in {region}.",
        )
