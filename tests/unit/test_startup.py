"""A function's init: the collector off while a handler loads, then what it loaded frozen."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from multitool.api.startup import in_lambda_runtime, init_phase

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = sorted(path.parent.name for path in (ROOT / "functions").glob("*/handler.py"))
LAMBDA_ENV = "AWS_Lambda_python3.13"


@pytest.fixture
def collector() -> Iterator[None]:
    """Leave this process's collector as it was: on, nothing frozen by the test."""
    was_frozen = gc.get_freeze_count()
    yield
    gc.enable()
    if gc.get_freeze_count() != was_frozen:
        gc.unfreeze()


def test_in_a_lambda_runtime_the_collector_is_off_in_the_block_and_its_objects_frozen_after(
    monkeypatch: pytest.MonkeyPatch, collector: None
) -> None:
    monkeypatch.setenv("AWS_EXECUTION_ENV", LAMBDA_ENV)
    before = gc.get_freeze_count()

    with init_phase():
        inside = gc.isenabled()
        made = [[index] for index in range(1000)]  # tracked containers, as a module's objects are

    assert inside is False
    assert gc.isenabled()
    assert gc.get_freeze_count() >= before + len(made)


def test_an_error_while_loading_still_turns_the_collector_back_on(
    monkeypatch: pytest.MonkeyPatch, collector: None
) -> None:
    monkeypatch.setenv("AWS_EXECUTION_ENV", LAMBDA_ENV)

    with pytest.raises(ImportError, match="no such module"), init_phase():
        raise ImportError("no such module")

    assert gc.isenabled()


@pytest.mark.parametrize("value", [None, "", "AWS_ECS_FARGATE", "python3.13"])
def test_outside_a_lambda_runtime_the_collector_is_left_alone(
    monkeypatch: pytest.MonkeyPatch, collector: None, value: str | None
) -> None:
    if value is None:
        monkeypatch.delenv("AWS_EXECUTION_ENV", raising=False)
    else:
        monkeypatch.setenv("AWS_EXECUTION_ENV", value)
    before = gc.get_freeze_count()

    with init_phase():
        inside = gc.isenabled()

    assert not in_lambda_runtime()
    assert inside is True
    assert gc.get_freeze_count() == before


def test_a_collector_the_process_turned_off_stays_off_and_nothing_is_frozen(
    monkeypatch: pytest.MonkeyPatch, collector: None
) -> None:
    monkeypatch.setenv("AWS_EXECUTION_ENV", LAMBDA_ENV)
    before = gc.get_freeze_count()
    gc.disable()

    with init_phase():
        pass

    assert not gc.isenabled()
    assert gc.get_freeze_count() == before


def _load(function: str, execution_env: str | None) -> dict[str, int | bool]:
    """Import a function's handler in a fresh interpreter: its collector and frozen objects after."""
    code = (
        f"import gc, json, functions.{function}.handler\n"
        "print(json.dumps({'enabled': gc.isenabled(), 'frozen': gc.get_freeze_count(), "
        "'collections': sum(s['collections'] for s in gc.get_stats())}))"
    )
    env = {
        key: value
        for key, value in os.environ.items()
        if key != "AWS_EXECUTION_ENV" and not key.startswith("PYTEST")
    }
    env.update(
        {
            "PYTHONPATH": os.pathsep.join([str(ROOT / "shared" / "python"), str(ROOT)]),
            "AWS_DEFAULT_REGION": "us-east-1",
        }
    )
    if execution_env is not None:
        env["AWS_EXECUTION_ENV"] = execution_env
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    ).stdout
    loaded: dict[str, int | bool] = json.loads(output.splitlines()[-1])
    return loaded


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_handler_loads_inside_the_init_phase(function: str) -> None:
    in_lambda = _load(function, LAMBDA_ENV)
    elsewhere = _load(function, None)

    # In Lambda: no collection while the handler loaded, and what it loaded frozen (tens of thousands
    # of objects: Powertools' and multitool's, boto3's and pydantic's where the handler uses them);
    # elsewhere, neither.
    assert in_lambda["enabled"] is True
    assert int(in_lambda["frozen"]) > 10_000
    assert int(in_lambda["collections"]) < int(elsewhere["collections"])
    assert elsewhere["enabled"] is True
    assert elsewhere["frozen"] == 0
