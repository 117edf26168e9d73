"""The doctor: every check, in order."""

from __future__ import annotations

from multitool.local.doctor.account import AccountChecks
from multitool.local.doctor.findings import Finding, Status
from multitool.local.doctor.mail import MailChecks
from multitool.local.doctor.model import ModelChecks
from multitool.local.doctor.stack import StackChecks


class Doctor(AccountChecks, ModelChecks, MailChecks, StackChecks):
    """Runs every check in order against clients from ``client_for(service_name)``."""

    def run(self) -> list[Finding]:
        caller = self.check_caller()
        if caller.status is Status.FAIL:
            return [caller]  # every later call would fail the same way
        deployed = self.check_stack()
        runtime = self._runtime(deployed.outputs)
        gateway = self.target.executor == "gateway" or bool((deployed.outputs or {}).get("GatewayArn"))
        findings = [
            caller,
            *self.check_region(runtime, gateway=gateway),
            *self.check_model(),
            self.check_concurrency(),
        ]
        agent = self.check_agent_tools(runtime)
        if agent is not None:
            findings.append(agent)
        sender = self.target.sender_email
        if sender is None and deployed.outputs is not None:
            sender = self.deployed_sender()
        findings += [self.check_sender(sender), self.check_ses_account(), *deployed.findings]
        if deployed.outputs is not None:
            findings += self.check_deployed(deployed.outputs)
        return findings
