"""The model: its lifecycle, its availability and agreement, the inference profile and the use case."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from multitool.local.doctor.base import Checks, day_of, error_message
from multitool.local.doctor.findings import Finding, Status


class ModelChecks(Checks):
    """The model's lifecycle, access, agreement, inference profile and use case (Bedrock)."""

    # -- the model -------------------------------------------------------------------------------

    def check_model(self) -> list[Finding]:
        findings = [self.check_lifecycle(), *self.check_availability()]
        if self.target.profile_geo is not None:
            findings.append(self.check_profile())
        if self.target.foundation_model_id.startswith("anthropic."):
            findings.append(self.check_use_case())
        return findings

    def check_lifecycle(self) -> Finding:
        model, region = self.target.foundation_model_id, self.target.region
        fix = (
            f"pick an ACTIVE model (`aws bedrock list-foundation-models --region {region} "
            "--query \"modelSummaries[?modelLifecycle.status=='ACTIVE'].modelId\"`) and deploy with "
            "-c modelId=<it>; check it here with --model-id."
        )
        answer = self._ask(
            "model",
            "bedrock:GetFoundationModel",
            lambda: self._client("bedrock").get_foundation_model(modelIdentifier=model),
            {
                "ResourceNotFoundException": lambda e: Finding(
                    "model",
                    Status.FAIL,
                    f"Bedrock in {region} has no model {model} ({error_message(e)}).",
                    fix,
                ),
                "ValidationException": lambda e: Finding(
                    "model",
                    Status.FAIL,
                    f"{model} is not a model id Bedrock accepts ({error_message(e)}).",
                    fix,
                ),
            },
        )
        if isinstance(answer, Finding):
            return answer
        lifecycle = answer.get("modelDetails", {}).get("modelLifecycle", {})
        status = lifecycle.get("status", "unknown")
        if status == "ACTIVE":
            return Finding("model", Status.OK, f"{model} is ACTIVE in {region}.")
        end = lifecycle.get("endOfLifeTime")
        if isinstance(end, datetime) and end <= self._now:
            return Finding("model", Status.FAIL, f"{model} reached its end of life on {day_of(end)}.", fix)
        if status == "LEGACY":
            # Bedrock's lifecycle policy for models launched before 2026-09-07: new customers cannot
            # use a Legacy model and existing ones may lose it when idle
            # (https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle-legacy.html; later
            # models: https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle.html).
            when = f", end of life {day_of(end)}" if end else ""
            return Finding(
                "model",
                Status.FAIL,
                f"{model} is LEGACY{when}: accounts new to it cannot call it.",
                fix,
            )
        return Finding("model", Status.FAIL, f"{model} is {status} in {region}.", fix)

    def check_availability(self) -> list[Finding]:
        model, region = self.target.foundation_model_id, self.target.region
        answer = self._ask(
            "model access",
            "bedrock:GetFoundationModelAvailability",
            lambda: self._client("bedrock").get_foundation_model_availability(modelId=model),
            {
                "ResourceNotFoundException": lambda e: Finding(
                    "model access",
                    Status.FAIL,
                    f"Bedrock in {region} knows no availability for {model} ({error_message(e)}).",
                    f"check the id: `aws bedrock list-foundation-models --region {region}`.",
                )
            },
        )
        if isinstance(answer, Finding):
            return [answer]
        console = f"the Bedrock console in {region}, Model catalog, {model}"
        findings = []
        if answer.get("regionAvailability") == "NOT_AVAILABLE":
            findings.append(
                Finding(
                    "model region",
                    Status.FAIL,
                    f"{model} is not offered in {region}.",
                    "deploy to a region that serves it, or use its cross-region inference profile "
                    f"(`aws bedrock list-inference-profiles --region {region}`).",
                )
            )
        if answer.get("authorizationStatus") == "NOT_AUTHORIZED":
            findings.append(
                Finding(
                    "model authorization",
                    Status.FAIL,
                    f"Bedrock reports this account NOT_AUTHORIZED for {model}.",
                    "an administrator allows the model for the account (IAM and organization policies "
                    f"that deny bedrock:InvokeModel on it), then see {console}.",
                )
            )
        if answer.get("entitlementAvailability") == "NOT_AVAILABLE":
            findings.append(
                Finding(
                    "model entitlement",
                    Status.FAIL,
                    f"this account has no entitlement to {model}.",
                    f"open {console} and request access as an administrator.",
                )
            )
        findings.extend(self._agreement(answer.get("agreementAvailability") or {}))
        if not findings:
            return [Finding("model access", Status.OK, f"{model} is available to this account in {region}.")]
        return findings

    def _agreement(self, agreement: Mapping[str, Any]) -> list[Finding]:
        model = self.target.foundation_model_id
        status = agreement.get("status")
        # The first call subscribes only when the calling role may subscribe (Bedrock user guide,
        # "Request access to models": https://docs.aws.amazon.com/bedrock/latest/userguide/model-access.html).
        subscribe = (
            f"subscribe once as an administrator: `aws bedrock list-foundation-model-agreement-offers "
            f"--model-id {model}`, then `aws bedrock create-foundation-model-agreement --model-id {model} "
            "--offer-token <its offerToken>` (or the model's page in the Bedrock console)."
        )
        if status == "PENDING":
            return [
                Finding(
                    "model agreement",
                    Status.WARN,
                    f"the Marketplace subscription to {model} is still being set up.",
                    "wait a few minutes and run `multitool doctor` again.",
                )
            ]
        if status == "NOT_AVAILABLE":
            return [
                Finding(
                    "model agreement",
                    Status.FAIL,
                    f"this account has no Marketplace agreement for {model}; the first call subscribes only "
                    "if the calling role may aws-marketplace:Subscribe and ViewSubscriptions.",
                    subscribe,
                )
            ]
        if status == "ERROR":
            reason = agreement.get("errorMessage") or "no reason given"
            return [
                Finding(
                    "model agreement",
                    Status.FAIL,
                    f"the Marketplace agreement for {model} failed: {reason}.",
                    subscribe,
                )
            ]
        return []

    def check_profile(self) -> Finding:
        profile, region = self.target.model_id, self.target.region
        fix = (
            f"use a profile that exists in {region} (`aws bedrock list-inference-profiles --region {region} "
            "--type-equals SYSTEM_DEFINED`) and deploy with -c modelId=<its id>."
        )
        answer = self._ask(
            "inference profile",
            "bedrock:GetInferenceProfile",
            lambda: self._client("bedrock").get_inference_profile(inferenceProfileIdentifier=profile),
            {
                code: Finding(
                    "inference profile", Status.FAIL, f"{region} has no inference profile {profile}.", fix
                )
                for code in ("ResourceNotFoundException", "ValidationException")
            },
        )
        if isinstance(answer, Finding):
            return answer
        if answer.get("status") != "ACTIVE":
            return Finding("inference profile", Status.FAIL, f"{profile} is {answer.get('status')}.", fix)
        routes = len(answer.get("models", []))
        return Finding("inference profile", Status.OK, f"{profile} is ACTIVE and routes to {routes} regions.")

    def check_use_case(self) -> Finding:
        # Anthropic's one-time form: GetUseCaseForModelAccess answers ResourceNotFoundException
        # until it is submitted (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_GetUseCaseForModelAccess.html).
        fix = (
            f"submit Anthropic's use-case details once per account: the Bedrock console in "
            f"{self.target.region}, Model catalog, an Anthropic model (or "
            "`aws bedrock put-use-case-for-model-access --form-data fileb://form.json`)."
        )
        missing = Finding("use-case form", Status.FAIL, "Anthropic's use-case form is not on file.", fix)
        answer = self._ask(
            "use-case form",
            "bedrock:GetUseCaseForModelAccess",
            lambda: self._client("bedrock").get_use_case_for_model_access(),
            {"ResourceNotFoundException": missing},
        )
        if isinstance(answer, Finding):
            return answer
        if not answer.get("formData"):
            return missing
        return Finding("use-case form", Status.OK, "Anthropic's use-case form is on file.")
