"""The caller, the region's AgentCore, and Lambda's concurrency in the account."""

from __future__ import annotations

from botocore.exceptions import (
    NoCredentialsError,
)

from multitool.deployment import Runtime
from multitool.local.doctor.base import Checks, error_code
from multitool.local.doctor.findings import (
    AGENTCORE_REGIONS_URL,
    CONCURRENCY_QUOTA_CODE,
    MIN_UNRESERVED,
    NOT_OFFERED,
    REJECTED_CREDENTIALS,
    Finding,
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

    # -- Agents Classic's quotas -----------------------------------------------------------------

    def check_agent_tools(self, runtime: Runtime) -> Finding | None:
        """Agents Classic takes each tool as an action group with one API: the account's quotas
        "Action groups per Agent" and "APIs per Agent" must hold every tool, or the agent's deploy
        fails. The quotas are read by name from Service Quotas (their codes are not published
        beside them); a default "APIs per Agent" of 11 is below this project's tool count."""
        if runtime != "agent":
            return None
        from multitool.tools import REGISTRY  # the tools the stack makes action groups of

        tools = len(REGISTRY)
        answer = self._ask(
            "agent quotas",
            "servicequotas:ListServiceQuotas",
            lambda: _all_quotas(self._client("service-quotas"), "bedrock"),
            {"NoSuchResourceException": None},
        )
        if isinstance(answer, Finding):
            return answer
        found = {name: value for name, value in (answer or {}).items() if name in AGENT_QUOTAS}
        if len(found) < len(AGENT_QUOTAS):
            return Finding(
                "agent quotas",
                Status.WARN,
                f"not checked: Service Quotas lists no {' or '.join(sorted(AGENT_QUOTAS - set(found)))} "
                f"for Bedrock in {self.target.region}; the agent needs {tools} of each.",
                "check them in the Service Quotas console (Amazon Bedrock), or deploy with "
                "-c runtime=agentcore.",
            )
        short = {name: value for name, value in found.items() if value < tools}
        if short:
            words = ", ".join(f"{name} is {value:g}" for name, value in sorted(short.items()))
            return Finding(
                "agent quotas",
                Status.FAIL,
                f"the agent has {tools} tools, one action group and one API each; in "
                f"{self.target.region} {words}.",
                "deploy with -c runtime=agentcore (the default), or ask for more in the Service Quotas "
                "console (Amazon Bedrock: " + " and ".join(f'"{name}"' for name in sorted(short)) + ").",
            )
        return Finding(
            "agent quotas",
            Status.OK,
            f"the agent's {tools} action groups and APIs fit the account's quotas in {self.target.region}.",
        )


AGENT_QUOTAS = frozenset({"APIs per Agent", "Action groups per Agent"})
"""Bedrock's quotas on an Agents Classic agent's action groups and their APIs, by their names."""


def _all_quotas(client: object, service: str) -> dict[str, float]:
    """Every quota of ``service`` by name (ListServiceQuotas, every page)."""
    quotas: dict[str, float] = {}
    token: str | None = None
    while True:
        page = client.list_service_quotas(ServiceCode=service, **({"NextToken": token} if token else {}))  # type: ignore[attr-defined]
        for quota in page.get("Quotas", []):
            quotas[str(quota.get("QuotaName", ""))] = float(quota.get("Value", 0))
        token = page.get("NextToken")
        if not token:
            return quotas
