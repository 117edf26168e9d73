"""Mail: the sender identity and the SES account (sandbox or production)."""

from __future__ import annotations

from typing import Any

from multitool.local.doctor.base import Checks
from multitool.local.doctor.findings import Finding, Status


class MailChecks(Checks):
    """The sender's identity (the address, then its domain) and the SES account (SESv2)."""

    # -- mail ------------------------------------------------------------------------------------

    def deployed_sender(self) -> str | None:
        """The address of the SES identity the stack made (createSenderIdentity=true): the physical
        id of an ``AWS::SES::EmailIdentity`` is the identity itself. None when it made none or the
        caller may not list the stack's resources (the sender line then asks for --sender-email)."""

        def find() -> dict[str, Any]:
            pages = self._client("cloudformation").get_paginator("list_stack_resources")
            for page in pages.paginate(StackName=self.target.stack):
                for resource in page.get("StackResourceSummaries", []):
                    if resource["ResourceType"] == "AWS::SES::EmailIdentity" and resource.get(
                        "PhysicalResourceId"
                    ):
                        return {"identity": resource["PhysicalResourceId"]}
            return {}

        answer = self._ask("sender", "cloudformation:ListStackResources", find, {})
        return None if isinstance(answer, Finding) else answer.get("identity")

    def check_sender(self, sender: str | None = None) -> Finding:
        sender, region = sender or self.target.sender_email, self.target.region
        if sender is None:
            return Finding(
                "sender",
                Status.WARN,
                "no sender address to check.",
                "pass --sender-email (the deploy's -c senderEmail).",
            )
        domain = sender.rpartition("@")[2]
        identity = self._identity(sender)
        if identity is None:  # not an identity: a verified domain covers every address in it
            identity = self._identity(domain)
        if isinstance(identity, Finding):
            return identity
        if identity is None:
            return Finding(
                "sender",
                Status.WARN,
                f"{sender} is not an SES identity in {region}.",
                "`cdk deploy -c senderEmail=...` creates it and SES mails a link to click "
                f"(or `aws sesv2 create-email-identity --email-identity {sender} --region {region}`).",
            )
        name, answer = identity
        if answer.get("VerifiedForSendingStatus"):
            return Finding("sender", Status.OK, f"{name} is verified for sending in {region}.")
        status = answer.get("VerificationStatus", "NOT_STARTED")
        return Finding(
            "sender",
            Status.WARN,
            f"{name} is not verified for sending (verification {status}): confirmed mail cannot be sent.",
            f"click the link SES mailed to {sender}; to mail it again: "
            f"`aws ses verify-email-identity --email-address {sender} --region {region}`."
            if name == sender
            else f"publish the DKIM records of {name} (SES console, Identities, {name}).",
        )

    def _identity(self, name: str) -> tuple[str, dict[str, Any]] | Finding | None:
        answer = self._ask(
            "sender",
            "ses:GetEmailIdentity",
            lambda: self._client("sesv2").get_email_identity(EmailIdentity=name),
            {"NotFoundException": None},
        )
        if answer is None or isinstance(answer, Finding):
            return answer
        return name, answer

    def check_ses_account(self) -> Finding:
        region = self.target.region
        answer = self._ask("ses account", "ses:GetAccount", lambda: self._client("sesv2").get_account(), {})
        if isinstance(answer, Finding):
            return answer
        if not answer.get("SendingEnabled", True):
            return Finding(
                "ses account",
                Status.WARN,
                f"sending is paused for this account in {region}: confirmed mail cannot be sent.",
                f"`aws sesv2 put-account-sending-attributes --sending-enabled --region {region}` "
                "(or see the SES console's Account dashboard for why it was paused).",
            )
        quota = answer.get("SendQuota", {}).get("Max24HourSend")
        per_day = f", at most {quota:.0f} messages a day" if quota is not None else ""
        if not answer.get("ProductionAccessEnabled"):
            review = answer.get("Details", {}).get("ReviewDetails", {}).get("Status")
            asked = f" (production access request {review})" if review else ""
            return Finding(
                "ses account",
                Status.WARN,
                f"in the SES sandbox in {region}{asked}: mail goes only to verified addresses{per_day}.",
                "request production access: the SES console, Account dashboard, Request production access "
                "(or verify each recipient: "
                f"`aws sesv2 create-email-identity --email-identity <address> --region {region}`).",
            )
        return Finding("ses account", Status.OK, f"production access in {region}{per_day}.")
