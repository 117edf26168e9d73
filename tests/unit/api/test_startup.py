"""A function's cold start: the collector off while a handler loads and its first invocation runs, then
what they made frozen."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from multitool.api import startup
from multitool.api.startup import end_cold_start, first_invocation, in_lambda_runtime, init_phase

ROOT = Path(__file__).resolve().parents[3]
FUNCTIONS = sorted(path.parent.name for path in (ROOT / "functions").glob("*/handler.py"))
LAMBDA_ENV = "AWS_Lambda_python3.13"


@pytest.fixture
def collector() -> Iterator[None]:
    """Leave this process's collector as it was: on, nothing frozen by the test."""
    was_frozen = gc.get_freeze_count()
    yield
    startup._cold = False
    gc.enable()
    if gc.get_freeze_count() != was_frozen:
        gc.unfreeze()


def test_in_a_lambda_runtime_the_collector_is_off_from_the_block_to_the_first_invocations_end(
    monkeypatch: pytest.MonkeyPatch, collector: None
) -> None:
    monkeypatch.setenv("AWS_EXECUTION_ENV", LAMBDA_ENV)
    before = gc.get_freeze_count()
    seen: list[bool] = []

    @first_invocation
    def handler(event: dict[str, int], context: object) -> int:
        seen.append(gc.isenabled())
        return event["n"] * 2

    with init_phase():
        inside = gc.isenabled()
        made = [[index] for index in range(1000)]  # tracked containers, as a module's objects are

    assert inside is False
    assert gc.isenabled() is False  # still the cold start
    assert gc.get_freeze_count() == before

    assert handler({"n": 21}, None) == 42

    assert seen == [False]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= before + len(made)
    frozen = gc.get_freeze_count()
    assert handler({"n": 1}, None) == 2  # later invocations: the collector on, nothing frozen again
    assert seen == [False, True]
    assert gc.get_freeze_count() <= frozen


def test_a_first_invocation_that_raises_still_ends_the_cold_start(
    monkeypatch: pytest.MonkeyPatch, collector: None
) -> None:
    monkeypatch.setenv("AWS_EXECUTION_ENV", LAMBDA_ENV)

    @first_invocation
    def handler(event: dict[str, int], context: object) -> int:
        raise KeyError("missing")

    with init_phase():
        pass

    with pytest.raises(KeyError, match="missing"):
        handler({}, None)

    assert gc.isenabled()
    assert startup._cold is False


def test_an_error_while_loading_still_turns_the_collector_back_on(
    monkeypatch: pytest.MonkeyPatch, collector: None
) -> None:
    monkeypatch.setenv("AWS_EXECUTION_ENV", LAMBDA_ENV)
    before = gc.get_freeze_count()

    with pytest.raises(ImportError, match="no such module"), init_phase():
        raise ImportError("no such module")

    assert gc.isenabled()
    end_cold_start()  # nothing to end: the init failed
    assert gc.get_freeze_count() == before


@pytest.fixture
def probe_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A module that records, when it is imported, the thread that imports it and how deep its
    stack was (``probe_thread``, ``probe_depth``)."""
    name = f"probe_{os.getpid()}_{id(tmp_path)}"
    (tmp_path / f"{name}.py").write_text(
        "import sys, threading\n"
        "probe_thread = threading.current_thread().name\n"
        "frame, probe_depth = sys._getframe(), 0\n"
        "while frame is not None:\n"
        "    frame, probe_depth = frame.f_back, probe_depth + 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_in_a_lambda_runtime_the_named_modules_load_first_on_a_thread_of_their_own(
    monkeypatch: pytest.MonkeyPatch, collector: None, probe_module: str
) -> None:
    monkeypatch.setenv("AWS_EXECUTION_ENV", LAMBDA_ENV)

    def deep(levels: int) -> dict[str, object]:
        if levels:
            return deep(levels - 1)
        with init_phase(probe_module):
            loaded = dict(vars(sys.modules[probe_module]))  # before the block imports anything
        startup.end_cold_start()
        sys.modules.pop(probe_module)
        return loaded

    shallow, deeper = deep(0), deep(40)

    # Not this thread, and at the same depth however deep the caller was: the bottom of a new stack.
    assert shallow["probe_thread"] == deeper["probe_thread"] == "init"
    assert shallow["probe_depth"] == deeper["probe_depth"]
    assert "boto3" in sys.modules  # the deepest tree first (startup.FIRST)


def test_a_module_that_fails_to_load_on_its_thread_fails_the_init(
    monkeypatch: pytest.MonkeyPatch, collector: None
) -> None:
    monkeypatch.setenv("AWS_EXECUTION_ENV", LAMBDA_ENV)

    with pytest.raises(ModuleNotFoundError, match="no_such_module_here"), init_phase("no_such_module_here"):
        pytest.fail("the block must not run")

    assert gc.isenabled()
    assert startup._cold is False


def test_outside_a_lambda_runtime_the_block_loads_its_modules_itself(
    monkeypatch: pytest.MonkeyPatch, collector: None, probe_module: str
) -> None:
    monkeypatch.delenv("AWS_EXECUTION_ENV", raising=False)

    with init_phase(probe_module):
        assert probe_module not in sys.modules
        probe = __import__(probe_module)

    assert probe.probe_thread == threading.current_thread().name


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
    first_invocation(lambda event, context: None)({}, None)

    assert not in_lambda_runtime()
    assert inside is True
    assert gc.isenabled()
    assert gc.get_freeze_count() == before


def test_a_collector_the_process_turned_off_stays_off_and_nothing_is_frozen(
    monkeypatch: pytest.MonkeyPatch, collector: None
) -> None:
    monkeypatch.setenv("AWS_EXECUTION_ENV", LAMBDA_ENV)
    before = gc.get_freeze_count()
    gc.disable()

    with init_phase():
        pass
    end_cold_start()

    assert not gc.isenabled()
    assert gc.get_freeze_count() == before


CONTEXT = """
class Context:
    function_name = "test"
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:test"
    aws_request_id = "00000000-0000-4000-8000-000000000001"
    def get_remaining_time_in_millis(self):
        return 30000
"""


def _run_fresh(code: str, execution_env: str | None) -> Any:
    """Run ``code`` in a fresh interpreter on the sources (``AWS_EXECUTION_ENV`` as given): the JSON of
    the last line it prints."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key != "AWS_EXECUTION_ENV" and not key.startswith("PYTEST")
    }
    env.update(
        {
            "PYTHONPATH": os.pathsep.join([str(ROOT / "shared" / "python"), str(ROOT)]),
            "AWS_DEFAULT_REGION": "us-east-1",
            # Which tool ``functions/tool/handler.py`` serves, as the stack sets it on each tool's
            # function (infra.components.functions.tool_environment); no other handler reads it.
            "TOOL_MODULE": "multitool.tools.email.email_draft",
        }
    )
    if execution_env is not None:
        env["AWS_EXECUTION_ENV"] = execution_env
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    ).stdout
    return json.loads(output.splitlines()[-1])


def _load(function: str, execution_env: str | None) -> dict[str, dict[str, int | bool]]:
    """Import a function's handler in a fresh interpreter and invoke it twice (an event it refuses):
    its collector and frozen objects after the import and after each invocation."""
    code = f"""import gc, json
def state():
    return {{"enabled": gc.isenabled(), "frozen": gc.get_freeze_count(),
            "collections": sum(s["collections"] for s in gc.get_stats())}}
import functions.{function}.handler as module
states = {{"loaded": state()}}
{CONTEXT}
for step in ("first", "second"):
    try:
        module.handler({{}}, Context())
    except Exception:
        pass
    states[step] = state()
print(json.dumps(states))
"""
    loaded: dict[str, dict[str, int | bool]] = _run_fresh(code, execution_env)
    return loaded


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_handler_loads_and_first_runs_inside_the_cold_start(function: str) -> None:
    in_lambda = _load(function, LAMBDA_ENV)
    elsewhere = _load(function, None)

    # In Lambda: no collection while the handler loaded nor in its first invocation, and what they
    # made frozen at its end (tens of thousands of objects: Powertools' and multitool's, boto3's and
    # pydantic's where the handler uses them); the collector on for the second. Elsewhere, neither.
    loaded, first, second = in_lambda["loaded"], in_lambda["first"], in_lambda["second"]
    assert (loaded["enabled"], loaded["frozen"]) == (False, 0)
    assert first["enabled"] is True
    assert int(first["frozen"]) > 10_000
    assert first["collections"] == loaded["collections"] < elsewhere["loaded"]["collections"]
    assert second["frozen"] <= first["frozen"]  # nothing frozen again (a frozen object may be freed)
    assert all(state["enabled"] is True and state["frozen"] == 0 for state in elsewhere.values())


DEEP_TREES = ("boto3", "botocore", "pydantic", "pydantic_core", "aws_xray_sdk", "urllib3", "multitool")
"""Packages whose import trees are deep: a handler's init loads them on the fresh stack, not after it."""


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_handler_names_the_modules_that_load_its_deep_import_trees(function: str) -> None:
    # The modules its block loads after the fresh stack's thread returned: the block's own small ones
    # (a type, the correlation paths, Powertools' validation that an action group's app adds), none of
    # the deep trees.
    code = f"""import json, sys
from multitool.api import startup
seen = {{}}
load = startup._load_on_fresh_stack
def recording(modules):
    load(modules)
    seen["after"] = set(sys.modules)
startup._load_on_fresh_stack = recording
import functions.{function}.handler as module
print(json.dumps(sorted(set(sys.modules) - seen["after"] - {{module.__name__}})))
"""
    after: list[str] = _run_fresh(code, LAMBDA_ENV)

    assert [name for name in after if name.split(".")[0] in DEEP_TREES] == []
    assert len(after) < 20, after
