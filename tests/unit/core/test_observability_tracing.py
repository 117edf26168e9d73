"""The Tracer loads the X-Ray SDK only where tracing is on, and traces what the functions call there.

Each case runs in a fresh interpreter: Powertools' Tracer keeps its provider in
class-level state and the X-Ray SDK patches modules process-wide, so only a new
process shows what an import of ``multitool.observability`` really loads.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]

TRACED_HANDLER = """
import json, sys
import boto3
from botocore.stub import Stubber
from multitool.observability import tracer

client = boto3.client("dynamodb", region_name="us-east-1")
stubber = Stubber(client)
stubber.add_response("get_item", {}, {"TableName": "drafts", "Key": {"id": {"S": "d-1"}}})
stubber.activate()

@tracer.capture_lambda_handler(capture_response=False)
def handler(event, context):
    client.get_item(TableName="drafts", Key={"id": {"S": "d-1"}})
    return {"ok": True}

answer = handler({}, None)
from aws_xray_sdk.core import patcher
print(json.dumps({
    "answer": answer,
    "disabled": tracer.disabled,
    "patched": sorted(patcher._PATCHED_MODULES),
    "xray_core_loaded": "aws_xray_sdk.core" in sys.modules,
}))
"""

UNTRACED_HANDLER = """
import json, sys
from multitool.observability import tracer

@tracer.capture_lambda_handler(capture_response=False)
def handler(event, context):
    tracer.put_annotation("user", "u-1")
    tracer.put_metadata("turn", {"cards": 2})
    return {"ok": True}

print(json.dumps({
    "answer": handler({}, None),
    "disabled": tracer.disabled,
    "loaded": sorted(m for m in sys.modules if m.startswith("aws_xray_sdk")),
}))
"""


def _run(code: str, **env: str) -> dict[str, Any]:
    base = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("AWS_", "POWERTOOLS_", "LAMBDA_", "_X_AMZN"))
    }
    base.update(
        {
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared" / "python")]),
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "POWERTOOLS_SERVICE_NAME": "multitool",
            "POWERTOOLS_METRICS_DISABLED": "true",
            **env,
        }
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=base,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    answer: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return answer


def test_tracing_disabled_never_imports_the_xray_sdk() -> None:
    # Given tracing switched off the Powertools way
    # When a traced handler runs, annotating and adding metadata
    outcome = _run(UNTRACED_HANDLER, POWERTOOLS_TRACE_DISABLED="true")

    # Then it answers, and of the X-Ray SDK only its on/off switch was touched (no recorder, no patching)
    assert outcome["answer"] == {"ok": True}
    assert outcome["disabled"] is True
    assert outcome["loaded"] == ["aws_xray_sdk", "aws_xray_sdk.sdk_config"]


def test_outside_lambda_tracing_is_off_without_loading_the_sdk() -> None:
    # Given no Lambda environment at all (tests, multitool serve, the CLI)
    outcome = _run(UNTRACED_HANDLER)

    # Then the Tracer is off and the X-Ray recorder was never built
    assert outcome["disabled"] is True
    assert "aws_xray_sdk.core" not in outcome["loaded"]


def test_in_lambda_with_tracing_on_the_handler_and_its_aws_calls_reach_the_daemon(tmp_path: Path) -> None:
    # Given a Lambda environment with active tracing (a sampled trace header) and a daemon listening
    daemon = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    daemon.bind(("127.0.0.1", 0))
    daemon.settimeout(10)
    port = daemon.getsockname()[1]
    try:
        # When a traced handler makes one DynamoDB call
        outcome = _run(
            TRACED_HANDLER,
            LAMBDA_TASK_ROOT=str(tmp_path),
            AWS_LAMBDA_FUNCTION_NAME="multitool-email-draft",
            AWS_XRAY_DAEMON_ADDRESS=f"127.0.0.1:{port}",
            AWS_XRAY_CONTEXT_MISSING="LOG_ERROR",
            _X_AMZN_TRACE_ID="Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
        )
        documents = []
        while len(documents) < 2:
            datagram, _ = daemon.recvfrom(65536)
            documents.append(json.loads(datagram.decode().split("\n", 1)[1]))
    finally:
        daemon.close()

    # Then tracing was on, and only what the functions use was patched (AWS SDK and http.client for Jira)
    assert outcome["answer"] == {"ok": True}
    assert outcome["disabled"] is False
    assert outcome["patched"] == ["botocore", "httplib"]
    # And the daemon received the handler's subsegment (annotated) and the DynamoDB call's
    by_name = {document["name"]: document for document in documents}
    assert by_name["## handler"]["annotations"] == {"ColdStart": True, "Service": "multitool"}
    handler, call = by_name["## handler"], by_name["dynamodb"]
    assert handler["parent_id"] == "53995c3f42cd8ad8"  # Lambda's own segment, from the trace header
    assert call["parent_id"] == handler["id"]
    assert call["aws"] == {"operation": "GetItem", "region": "us-east-1", "table_name": "drafts"}


def test_the_service_name_and_metrics_namespace_come_from_the_powertools_variables() -> None:
    probe = (
        "import json; from multitool.observability import logger, metrics;"
        "print(json.dumps([logger.service, metrics.namespace, metrics.service]))"
    )
    environment = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'shared' / 'python'}",
        "POWERTOOLS_SERVICE_NAME": "multitool-orders",
        "POWERTOOLS_METRICS_NAMESPACE": "TeamMetrics",
    }
    configured = subprocess.run(
        [sys.executable, "-c", probe], env=environment, capture_output=True, text=True
    )
    assert json.loads(configured.stdout) == ["multitool-orders", "TeamMetrics", "multitool-orders"], (
        configured.stderr
    )
    for name in ("POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE"):
        environment.pop(name)
    defaults = subprocess.run([sys.executable, "-c", probe], env=environment, capture_output=True, text=True)
    assert json.loads(defaults.stdout) == ["multitool", "Multitool", "multitool"], defaults.stderr


def test_a_request_that_counted_nothing_flushes_without_a_warning_and_one_that_counted_prints_emf(
    monkeypatch: Any, capsys: Any
) -> None:
    import warnings

    from multitool.observability import EmfMetrics

    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    provider = EmfMetrics(namespace="Tests", service="multitool")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        provider.flush_metrics()
    assert capsys.readouterr().out == ""
    provider.add_metric(name="ActionsDone", unit="Count", value=1)
    provider.flush_metrics()
    emf = json.loads(capsys.readouterr().out)
    assert emf["ActionsDone"] == [1.0]
    assert emf["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Tests"
