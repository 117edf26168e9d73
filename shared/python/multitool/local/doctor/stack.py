"""The deployed stack: its status and outputs, the harness, the Gateway, the agent alias, the Jira secret."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from multitool.local.doctor.base import Checks
from multitool.local.doctor.findings import DEFAULT_STACK, STACK_READY, Finding, Status, expected_outputs
from multitool.ports.jira import PLACEHOLDER_CREDENTIALS


@dataclass
class _Deployed:
    """What DescribeStacks said: the stack's findings and its outputs (None: not deployed)."""

    findings: list[Finding]
    outputs: dict[str, str] | None


class StackChecks(Checks):
    """The stack (CloudFormation) and what it made: harness, Gateway, agent alias, Jira secret."""

    # -- the deployed stack ----------------------------------------------------------------------

    def check_stack(self) -> _Deployed:
        stack, region = self.target.stack, self.target.region
        deploy = "npx cdk deploy -c senderEmail=you@example.com"
        if stack != DEFAULT_STACK:  # a named copy (stackName): the deploy must name it too
            deploy += f" -c stackName={stack}"
        answer = self._ask(
            "stack",
            "cloudformation:DescribeStacks",
            lambda: self._client("cloudformation").describe_stacks(StackName=stack),
            {
                "ValidationError": Finding(
                    "stack",
                    Status.WARN,
                    f"{stack} is not deployed in {region} (the checks above hold before it).",
                    f"`{deploy}`; then run `multitool doctor` again.",
                )
            },
        )
        if isinstance(answer, Finding):
            return _Deployed([answer], None)
        found = answer["Stacks"][0]
        status, reason = found["StackStatus"], found.get("StackStatusReason")
        outputs = {
            o["OutputKey"]: o.get("OutputValue", "") for o in found.get("Outputs", []) if "OutputKey" in o
        }
        events = f"`aws cloudformation describe-stack-events --stack-name {stack} --region {region}`"
        why = f" ({reason})" if reason else ""
        if status in STACK_READY:
            stack_finding = Finding("stack", Status.OK, f"{stack} is {status} in {region}.")
        elif status.endswith("_IN_PROGRESS"):
            return _Deployed(
                [
                    Finding(
                        "stack",
                        Status.WARN,
                        f"{stack} is {status}.",
                        "wait for it to end, then run `multitool doctor` again.",
                    )
                ],
                None,
            )
        elif status in ("ROLLBACK_COMPLETE", "ROLLBACK_FAILED", "DELETE_FAILED", "DELETE_COMPLETE"):
            return _Deployed(
                [
                    Finding(
                        "stack",
                        Status.FAIL,
                        f"{stack} is {status}{why}: it cannot be updated.",
                        f"read why in {events}, then `aws cloudformation delete-stack --stack-name {stack} "
                        f"--region {region}` and `{deploy}`.",
                    )
                ],
                None,
            )
        else:
            stack_finding = Finding(
                "stack", Status.FAIL, f"{stack} is {status}{why}.", f"read why in {events} and deploy again."
            )
        return _Deployed([stack_finding, self._outputs(outputs)], outputs)

    def _outputs(self, outputs: Mapping[str, str]) -> Finding:
        runtime = self._runtime(outputs)
        wanted = expected_outputs(
            runtime,
            gateway=self.target.executor == "gateway",
            jira_as_user=bool(outputs.get("JiraCallbackUrl")),
        )
        missing = [key for key in wanted if not outputs.get(key)]
        if missing:
            return Finding(
                "outputs",
                Status.FAIL,
                f"the stack has no {', '.join(missing)} output (runtime {runtime}).",
                "deploy this checkout again (`npx cdk deploy`), or pass the --runtime it was deployed with.",
            )
        return Finding("outputs", Status.OK, f"{', '.join(wanted)} are set (runtime {runtime}).")

    def check_deployed(self, outputs: Mapping[str, str]) -> list[Finding]:
        findings = []
        if outputs.get("HarnessArn"):
            findings.append(self.check_harness(outputs["HarnessArn"]))
        if outputs.get("GatewayArn"):
            findings.append(self.check_gateway(outputs["GatewayArn"]))
        if outputs.get("AgentId") and outputs.get("AgentAliasId"):
            findings.append(self.check_agent_alias(outputs["AgentId"], outputs["AgentAliasId"]))
        if outputs.get("JiraSecretArn"):
            findings.append(self.check_jira_secret(outputs["JiraSecretArn"]))
        if outputs.get("JiraReaderSecretArn"):
            findings.append(
                self.check_jira_secret(
                    outputs["JiraReaderSecretArn"],
                    name="jira reader secret",
                    fails="cards that name an existing issue fail",
                )
            )
        return findings

    def check_harness(self, harness_arn: str) -> Finding:
        harness_id = harness_arn.rpartition("/")[2]
        redeploy = "`npx cdk deploy` again (the stack recreates it)."
        answer = self._ask(
            "harness",
            "bedrock-agentcore:GetHarness",
            lambda: self._client("bedrock-agentcore-control").get_harness(harnessId=harness_id),
            {
                code: Finding(
                    "harness", Status.FAIL, f"no harness {harness_id} in {self.target.region}.", redeploy
                )
                for code in ("ResourceNotFoundException", "ValidationException")
            },
        )
        if isinstance(answer, Finding):
            return answer
        harness = answer["harness"]
        status = harness["status"]
        if status in ("CREATING", "UPDATING"):
            return Finding(
                "harness",
                Status.WARN,
                f"{harness_id} is {status}.",
                "wait a minute and run `multitool doctor` again.",
            )
        if status != "READY":
            why = f" ({harness['failureReason']})" if harness.get("failureReason") else ""
            return Finding("harness", Status.FAIL, f"{harness_id} is {status}{why}.", redeploy)
        runs = (harness.get("model") or {}).get("bedrockModelConfig", {}).get("modelId")
        if runs and runs != self.target.model_id:
            return Finding(
                "harness",
                Status.WARN,
                f"{harness_id} is READY but runs {runs}; the checks above were for {self.target.model_id}.",
                f"check the deployed model: `multitool doctor --model-id {runs}`.",
            )
        return Finding("harness", Status.OK, f"{harness_id} is READY.")

    def check_gateway(self, gateway_arn: str) -> Finding:
        gateway_id = gateway_arn.rpartition("/")[2]
        redeploy = "`npx cdk deploy -c executor=gateway` again."
        answer = self._ask(
            "gateway",
            "bedrock-agentcore:GetGateway",
            lambda: self._client("bedrock-agentcore-control").get_gateway(gatewayIdentifier=gateway_id),
            {
                code: Finding(
                    "gateway", Status.FAIL, f"no gateway {gateway_id} in {self.target.region}.", redeploy
                )
                for code in ("ResourceNotFoundException", "ValidationException")
            },
        )
        if isinstance(answer, Finding):
            return answer
        status = answer["status"]
        if status == "READY":
            return Finding("gateway", Status.OK, f"{gateway_id} is READY.")
        if status in ("CREATING", "UPDATING"):
            return Finding(
                "gateway",
                Status.WARN,
                f"{gateway_id} is {status}.",
                "wait a minute and run `multitool doctor` again.",
            )
        reasons = "; ".join(answer.get("statusReasons") or [])
        return Finding(
            "gateway",
            Status.FAIL,
            f"{gateway_id} is {status}" + (f" ({reasons})." if reasons else "."),
            redeploy,
        )

    def check_agent_alias(self, agent_id: str, alias_id: str) -> Finding:
        """runtime=agent: the alias the orchestrator invokes is prepared and accepts invocations."""
        redeploy = "`npx cdk deploy -c runtime=agent` again."
        answer = self._ask(
            "agent",
            "bedrock:GetAgentAlias",
            lambda: self._client("bedrock-agent").get_agent_alias(agentId=agent_id, agentAliasId=alias_id),
            {
                code: Finding("agent", Status.FAIL, f"no alias {alias_id} of agent {agent_id}.", redeploy)
                for code in ("ResourceNotFoundException", "ValidationException")
            },
        )
        if isinstance(answer, Finding):
            return answer
        alias = answer["agentAlias"]
        status, name = alias["agentAliasStatus"], f"{agent_id}/{alias_id}"
        if status in ("CREATING", "UPDATING"):
            return Finding(
                "agent",
                Status.WARN,
                f"{name} is {status}.",
                "wait a minute and run `multitool doctor` again.",
            )
        if status != "PREPARED":
            reasons = "; ".join(alias.get("failureReasons") or [])
            return Finding(
                "agent", Status.FAIL, f"{name} is {status}" + (f" ({reasons})." if reasons else "."), redeploy
            )
        if alias.get("aliasInvocationState") == "REJECT_INVOCATIONS":
            return Finding(
                "agent",
                Status.FAIL,
                f"{name} rejects invocations.",
                f"`aws bedrock-agent update-agent-alias --agent-id {agent_id} --agent-alias-id {alias_id} "
                f"--agent-alias-name {alias['agentAliasName']} --alias-invocation-state ACCEPT_INVOCATIONS`.",
            )
        return Finding("agent", Status.OK, f"{name} is PREPARED.")

    def check_jira_secret(
        self, secret_arn: str, *, name: str = "jira secret", fails: str = "Jira confirms fail"
    ) -> Finding:
        """The Jira secret (or the reading account's, ``name``) holds real credentials."""
        region = self.target.region
        fill = (
            f"`aws secretsmanager put-secret-value --region {region} --secret-id {secret_arn} "
            '--secret-string \'{"baseUrl": "https://<site>.atlassian.net", "email": "<account email>", '
            '"apiToken": "<token>"}\'`.'
        )
        answer = self._ask(
            name,
            "secretsmanager:GetSecretValue",
            lambda: self._client("secretsmanager").get_secret_value(SecretId=secret_arn),
            {
                "ResourceNotFoundException": Finding(
                    name, Status.FAIL, f"no secret {secret_arn}.", "`npx cdk deploy` again."
                )
            },
        )
        if isinstance(answer, Finding):
            return answer
        # The value is read to tell the deploy's placeholder from real credentials; it is never printed.
        try:
            value = json.loads(answer.get("SecretString") or "")
            base_url, email = str(value["baseUrl"]), str(value["email"])
            str(value["apiToken"])
        except (ValueError, KeyError, TypeError):
            return Finding(
                name,
                Status.WARN,
                f'the secret is not JSON with "baseUrl", "email" and "apiToken": {fails}.',
                fill,
            )
        if base_url == PLACEHOLDER_CREDENTIALS["baseUrl"] or email == PLACEHOLDER_CREDENTIALS["email"]:
            return Finding(name, Status.WARN, f"still the deploy's placeholder: {fails}.", fill)
        return Finding(name, Status.OK, f"filled for {base_url}.")
