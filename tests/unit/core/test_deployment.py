"""One vocabulary of the deployment: every place that spells a runtime, an executor, a calendar, an identity
provider, a Jira sign-in, a profile prefix, an output or a shared range spells it as multitool.deployment.

A value added in one place only fails here: the deploy context, the functions' settings, the ports, the
doctor's options and its outputs each read it from multitool.deployment or are held equal to it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args, get_type_hints

import msgspec
import pytest
from annotated_types import Ge, Le
from multitool.deployment import (
    ALWAYS_OUTPUTS,
    AUDIT_RETENTION_DAYS,
    CALENDARS,
    DEFAULT_EXECUTOR,
    IDENTITY_PROVIDERS,
    OUTSIDE_RECIPIENTS_PER_DAY,
    PROFILE_PREFIXES,
    RECIPIENTS_PER_DAY,
    RUNNING_TURNS_PER_USER,
    RUNTIME_EXECUTORS,
    RUNTIME_OUTPUTS,
    UNDO_SECONDS,
    Executor,
    Identity,
    JiraAuth,
    OutsideRecipients,
    Range,
    Runtime,
)
from multitool.local.cli import build_parser
from multitool.local.doctor.findings import Target, expected_outputs, runtime_of_outputs
from multitool.models import foundation_model_id
from multitool.ports.suites import SUITE_NAMES
from multitool.ports.tokens import Provider
from multitool.settings import ConnectedProvider, IdentitySettings, ModelBackend, ToolSettings
from multitool.settings.chat import ChatSettings
from multitool.settings.review import ReviewSettings
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from infra.context import DeployContext
from infra.geography import GEOGRAPHIES


def _values(model: type[BaseModel] | type[msgspec.Struct], name: str) -> set[str]:
    """The values a model's field of fixed values accepts (an enum's or a Literal's; None left out)."""
    # The settings are msgspec Structs (their hints without the Meta), the deploy context pydantic models.
    if issubclass(model, msgspec.Struct):
        annotation: Any = get_type_hints(model)[name]
    else:
        annotation = model.model_fields[name].annotation
    if isinstance(annotation, type):
        return {member.value for member in annotation}
    found: set[str] = set()
    for arg in get_args(annotation):
        if arg is type(None):
            continue
        found |= {m.value for m in arg} if isinstance(arg, type) else set(get_args(arg)) or {arg}
    return found


def _range(field: FieldInfo) -> Range:
    low = next(m.ge for m in field.metadata if isinstance(m, Ge))
    high = next(m.le for m in field.metadata if isinstance(m, Le))
    return Range(low, high)


def _settings_range(settings: type[msgspec.Struct], name: str) -> Range:
    field = next(f for f in msgspec.inspect.type_info(settings).fields if f.name == name)
    bounds = field.type.type if isinstance(field.type, msgspec.inspect.Metadata) else field.type
    assert isinstance(bounds, msgspec.inspect.IntType)
    assert bounds.ge is not None
    assert bounds.le is not None
    return Range(bounds.ge, bounds.le)


def _context_field(key: str) -> FieldInfo:
    return next(f for name, f in DeployContext.model_fields.items() if (f.alias or name) == key)


def test_every_runtime_is_deployed_by_the_context_run_by_the_functions_and_checked_by_the_doctor() -> None:
    runtimes = {r.value for r in Runtime}
    assert _values(DeployContext, "runtime") == runtimes
    assert runtimes <= {b.value for b in ModelBackend}  # the orchestrator's RUNTIME runs each of them
    assert _values(Target, "runtime") == _values(Target, "context_runtime") == runtimes
    assert set(RUNTIME_OUTPUTS) == runtimes
    for runtime in Runtime:
        args = build_parser().parse_args(["doctor", "--runtime", runtime.value])
        assert Target(region="us-east-1", model_id="m.x", runtime=args.runtime).runtime is runtime


def test_every_executor_is_the_contexts_and_the_doctors_and_belongs_to_a_runtime() -> None:
    executors = {e.value for e in Executor}
    assert _values(DeployContext, "executor") == _values(Target, "executor") == executors
    assert {e for accepted in RUNTIME_EXECUTORS.values() for e in accepted} == set(Executor)
    assert all(DEFAULT_EXECUTOR[r] == accepted[0] for r, accepted in RUNTIME_EXECUTORS.items())
    for executor in Executor:
        assert build_parser().parse_args(["doctor", "--executor", executor.value]).executor == executor
    with pytest.raises(SystemExit):
        build_parser().parse_args(["doctor", "--executor", "step"])


def test_the_calendars_are_the_contexts_the_settings_and_the_ports_suites() -> None:
    assert _values(DeployContext, "calendar") == _values(ToolSettings, "calendar") == set(CALENDARS)
    assert SUITE_NAMES == CALENDARS


def test_identity_providers_are_the_contexts_identities_the_settings_and_the_token_ports() -> None:
    assert {i.value for i in Identity} == {Identity.OFF.value, *IDENTITY_PROVIDERS}
    assert set(IDENTITY_PROVIDERS) <= set(CALENDARS)  # a user connects the account the tools use
    assert _values(ToolSettings, "identity_provider") == set(IDENTITY_PROVIDERS)
    assert _values(IdentitySettings, "identity_provider") == set(IDENTITY_PROVIDERS)
    assert set(get_args(Provider)) == _literal(ConnectedProvider) == {*IDENTITY_PROVIDERS, "atlassian"}


def _literal(alias: Any) -> set[str]:
    """A Literal's values, a nested Literal's flattened."""
    found: set[str] = set()
    for arg in get_args(alias):
        found |= _literal(arg) if get_args(arg) else {arg}
    return found


def test_jira_sign_in_and_outside_recipients_are_the_contexts_and_the_settings() -> None:
    assert _values(DeployContext, "jira_auth") == _values(ToolSettings, "jira_auth") == set(JiraAuth)
    assert (
        _values(DeployContext, "outside_recipients")
        == _values(ReviewSettings, "outside_recipients")
        == set(OutsideRecipients)
    )
    assert ToolSettings.from_env({**_TABLES, "JIRA_AUTH": "organization"}).jira_auth is JiraAuth.ORGANIZATION


_TABLES = {
    "DRAFTS_TABLE_NAME": "d",
    "DIRECTORY_TABLE_NAME": "p",
    "BOOKINGS_TABLE_NAME": "b",
}


@pytest.mark.parametrize(
    ("key", "settings", "name", "vocabulary"),
    [
        ("runningTurnsPerUser", ChatSettings, "running_turns_per_user", RUNNING_TURNS_PER_USER),
        ("undoSeconds", ReviewSettings, "undo_seconds", UNDO_SECONDS),
        ("auditRetentionDays", ReviewSettings, "audit_retention_days", AUDIT_RETENTION_DAYS),
        ("recipientsPerDay", ReviewSettings, "recipients_per_day", RECIPIENTS_PER_DAY),
        ("outsideRecipientsPerDay", ReviewSettings, "outside_recipients_per_day", OUTSIDE_RECIPIENTS_PER_DAY),
    ],
)
def test_a_range_the_stack_passes_on_is_the_same_in_the_context_and_the_settings(
    key: str, settings: type[msgspec.Struct], name: str, vocabulary: Range
) -> None:
    assert _range(_context_field(key)) == _settings_range(settings, name) == vocabulary


def test_the_profile_prefixes_are_the_geographies_the_models_and_the_doctors() -> None:
    assert tuple(GEOGRAPHIES) == PROFILE_PREFIXES
    for prefix in PROFILE_PREFIXES:
        profile = f"{prefix}.anthropic.claude-sonnet-5-5"
        assert foundation_model_id(profile) == "anthropic.claude-sonnet-5-5"
        assert Target(region="us-east-1", model_id=profile).profile_geo == prefix
        context = DeployContext.from_context({"senderEmail": "a@example.com", "modelId": profile})
        assert context.model.profile_geo == prefix


def test_the_doctor_tells_each_runtime_by_its_own_outputs() -> None:
    for runtime in Runtime:
        outputs = dict.fromkeys([*ALWAYS_OUTPUTS, *RUNTIME_OUTPUTS[runtime]], "set")
        assert runtime_of_outputs(outputs) is runtime
        assert expected_outputs(runtime, gateway=False) == list(outputs)


def test_the_vocabulary_loads_nothing_but_the_standard_library() -> None:
    # infra/ and every function's settings read it: it adds no pydantic, boto3 or layer module to a
    # cold start (a fresh interpreter: this one has long imported everything).
    code = (
        "import json, sys; before = set(sys.modules); import multitool.deployment; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "shared" / "python")}
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    loaded = json.loads(output.stdout)
    assert [m for m in loaded if m.split(".")[0] in {"pydantic", "boto3", "botocore", "msgspec"}] == []
    assert [m for m in loaded if m.startswith("multitool")] == ["multitool", "multitool.deployment"]
