"""Every AWS request the deployed code sends, as its own request builders make them, and a check of
those requests against any botocore's service models (the layer's, or an older wheel's).

:func:`recording` captures each call a real botocore client makes (service, operation, the
parameters as the caller passed them: what botocore validates before sending).
:func:`deployed_requests` runs the deployed functions in process on the embedded backend (moto's
DynamoDB, SES and Secrets Manager, the Jira sandbox) with real boto3 clients everywhere: a chat turn
and its follow-up through the AgentCore harness runtime (inline tools, and a turn with the Gateway
as its tools), through the Converse loop and through an Agents Classic agent, an
action-group call, and the review of each card (confirm of the email, the meeting and the Jira
ticket). The two Bedrock clients are real clients too; only their HTTP answers come from the offline
model (``before-send``), so what they send is exactly what the runtimes build.
:func:`refusals` validates requests against the models in a botocore ``data`` folder.
"""

from __future__ import annotations

import base64
import copy
import json
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import botocore.client
import botocore.loaders
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ParamValidationError
from botocore.model import ServiceModel
from botocore.validate import validate_parameters

HARNESS_ARN = "arn:aws:bedrock-agentcore:us-east-1:123456789012:harness/multitool_chat-a1b2c3d4e5"
GATEWAY_ARN = "arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/multitool-tools-a1b2c3d4e5"
AGENT_ID, AGENT_ALIAS_ID = "AGENT12345", "ALIAS12345"
MODEL_ID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
COMBINED = (
    "Email Kinshuok about the doc, schedule a sync with Priya for Thursday and file a WEB bug: login fails"
)


@dataclass(frozen=True)
class SentRequest:
    service: str
    operation: str
    params: dict[str, Any]

    @property
    def name(self) -> str:
        return f"{self.service}.{self.operation}"


@contextmanager
def recording() -> Iterator[list[SentRequest]]:
    """Every API call a botocore client makes inside the block, before botocore validates it."""
    sent: list[SentRequest] = []
    original = botocore.client.BaseClient._make_api_call

    def recorded(self: Any, operation_name: str, api_params: Mapping[str, Any]) -> Any:
        service = self.meta.service_model.service_name
        sent.append(SentRequest(service, operation_name, copy.deepcopy(dict(api_params))))
        return original(self, operation_name, api_params)

    botocore.client.BaseClient._make_api_call = recorded  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        botocore.client.BaseClient._make_api_call = original  # type: ignore[method-assign]


# --------------------------------------------------------------------------- checking


def service_model(data: Path | None, service: str) -> ServiceModel:
    """``service``'s model from a botocore ``data`` folder (None: the installed botocore's)."""
    loader = (
        botocore.loaders.create_loader()
        if data is None
        else botocore.loaders.Loader(extra_search_paths=[str(data)], include_default_search_paths=False)
    )
    return ServiceModel(loader.load_service_model(service, "service-2"), service)


def refusals(requests: Sequence[SentRequest], data: Path | None) -> list[str]:
    """One line per request the models under ``data`` would refuse (an unknown operation or a
    parameter its input shape does not allow)."""
    models: dict[str, ServiceModel] = {}
    refused: list[str] = []
    for request in requests:
        if request.service not in models:
            models[request.service] = service_model(data, request.service)
        model = models[request.service]
        if request.operation not in model.operation_names:
            refused.append(f"{request.name}: the model has no such operation")
            continue
        shape = model.operation_model(request.operation).input_shape
        try:
            validate_parameters(request.params, shape)
        except ParamValidationError as error:
            report = " ".join(str(error).split())
            refused.append(f"{request.name}: {report}")
    return sorted(set(refused))


def botocore_version(data: Path) -> str:
    """The version of the botocore whose ``data`` folder this is."""
    init = (data.parent / "__init__.py").read_text(encoding="utf-8")
    line = next(line for line in init.splitlines() if line.startswith("__version__"))
    return line.split("=", 1)[1].strip().strip("'\"")


# --------------------------------------------------------------------------- the deployed code, run


def _answering(client: Any, operation: str, answer: Any) -> Any:
    """``client`` whose ``operation`` is answered by ``answer(params)`` -> (content type, body bytes)."""
    service = client.meta.service_model.service_name
    asked: list[dict[str, Any]] = []

    def keep(params: dict[str, Any], **_: Any) -> None:
        asked.append(copy.deepcopy(params))

    def reply(request: Any, **_: Any) -> AWSResponse:
        content_type, body = answer(asked.pop())

        class Raw:
            def stream(self, **_: Any) -> Iterator[bytes]:
                yield body

        return AWSResponse(request.url, 200, {"content-type": content_type}, Raw())  # type: ignore[arg-type]

    client.meta.events.register(f"before-parameter-build.{service}.{operation}", keep)
    client.meta.events.register(f"before-send.{service}.{operation}", reply)
    return client


def bedrock_clients(directory: Any) -> tuple[Any, Any, Any]:
    """Real ``bedrock-agentcore``, ``bedrock-runtime`` and ``bedrock-agent-runtime`` clients, answered
    by the offline model (the harness and Converse) or with a text answer (the agent)."""
    from multitool.runtimes.harness_gateway import GATEWAY_TOOL
    from multitool.runtimes.offline import OfflineModel
    from multitool.runtimes.offline_harness import OfflineHarness

    from tests.support.harness_streams import answer, encode_events

    harness = OfflineHarness(OfflineModel(directory=directory))
    model = OfflineModel(directory=directory)

    def stream(params: dict[str, Any]) -> tuple[str, bytes]:
        if any(tool.get("type") == GATEWAY_TOOL for tool in params.get("tools", [])):
            # The Gateway runs the tools on the service's side: a plain answer is all this needs.
            events = answer("Nothing to draft.")
        else:
            events = list(harness.invoke_harness(**params)["stream"])
        return "application/vnd.amazon.eventstream", encode_events(events)

    def converse(params: dict[str, Any]) -> tuple[str, bytes]:
        return "application/json", json.dumps(model.converse(**params), default=str).encode()

    def agent(params: dict[str, Any]) -> tuple[str, bytes]:
        # Agents Classic runs its action groups on its side (Lambda executors): a text answer will do.
        answer = base64.b64encode(b"Nothing to draft.").decode("ascii")
        return "application/vnd.amazon.eventstream", encode_events([{"chunk": {"bytes": answer}}])

    agentcore = _answering(boto3.client("bedrock-agentcore"), "InvokeHarness", stream)
    runtime = _answering(boto3.client("bedrock-runtime"), "Converse", converse)
    agents = _answering(boto3.client("bedrock-agent-runtime"), "InvokeAgent", agent)
    return agentcore, runtime, agents


def deployed_requests(monkeypatch: Any) -> list[SentRequest]:
    """Run the deployed functions' requests (see the module docstring) and return what they sent."""
    from multitool.local.sandbox.embedded import embedded
    from multitool.local.sandbox.memory import MemoryDirectory
    from multitool.runtimes import AwsClients
    from multitool.wiring.orchestrator import aws_chat_service
    from multitool.wiring.review import aws_reviewer

    from functions.orchestrator.handler import handler as chat_handler
    from functions.review.handler import handler as review_handler
    from tests.support.bedrock_events import LambdaContextStub, bedrock_action_event, tool_handler
    from tests.support.http_events import FakeLambdaContext, http_api_event, json_body

    with embedded(apply_env=False) as backend:
        for key, value in backend.env.items():
            monkeypatch.setenv(key, value)
        for off in ("POWERTOOLS_TRACE_DISABLED", "POWERTOOLS_METRICS_DISABLED"):
            monkeypatch.setenv(off, "true")
        agentcore, runtime, agents = bedrock_clients(MemoryDirectory(backend.seed.people))
        monkeypatch.setattr(AwsClients, "bedrock_agentcore", property(lambda self: agentcore))
        monkeypatch.setattr(AwsClients, "bedrock_runtime", property(lambda self: runtime))
        monkeypatch.setattr(AwsClients, "bedrock_agent_runtime", property(lambda self: agents))
        user = "jordan"
        with recording() as sent:
            actions: list[dict[str, Any]] = []
            harness: dict[str, str | None] = {
                "RUNTIME": "agentcore",
                "HARNESS_ARN": HARNESS_ARN,
                "MODEL_ID": MODEL_ID,
            }
            settings: dict[str, str | None]
            for name, settings in (
                ("agentcore", harness),
                ("gateway", {**harness, "GATEWAY_ARN": GATEWAY_ARN}),
                ("converse", {"RUNTIME": "converse", "MODEL_ID": MODEL_ID, "GATEWAY_ARN": None}),
                ("agent", {"RUNTIME": "agent", "AGENT_ID": AGENT_ID, "AGENT_ALIAS_ID": AGENT_ALIAS_ID}),
            ):
                for key, value in settings.items():
                    if value is None:
                        monkeypatch.delenv(key, raising=False)
                    else:
                        monkeypatch.setenv(key, value)
                aws_chat_service.cache_clear()
                messages = (COMBINED,) if name in ("gateway", "agent") else (COMBINED, "Thanks, that's all")
                for turn, message in enumerate(messages):
                    event = http_api_event(
                        "POST",
                        "/chat",
                        {"message": message, "sessionId": f"floor-{name}"},
                        sub=user,
                        headers={"idempotency-key": f"floor-{name}-{turn}"},
                    )
                    response = chat_handler(event, FakeLambdaContext())
                    assert response["statusCode"] == 200, response
                    actions += json_body(response).get("clientActions", [])
            # A turn run past its request (Prefer: respond-async), on the default runtime: stored, then
            # invoked asynchronously.
            for key, value in {**harness, "GATEWAY_ARN": None}.items():
                if value is None:
                    monkeypatch.delenv(key, raising=False)
                else:
                    monkeypatch.setenv(key, value)
            aws_chat_service.cache_clear()
            assert backend.invocations is not None
            backend.invocations.bind(
                lambda _name, event: chat_handler(event, FakeLambdaContext()), ("orchestrator",)
            )
            later = http_api_event(
                "POST", "/chat", {"message": COMBINED, "sessionId": "floor-async"}, sub=user,
                headers={"prefer": "respond-async"},
            )  # fmt: skip
            assert chat_handler(later, FakeLambdaContext())["statusCode"] == 202
            for thread in backend.invocations.started:
                thread.join(timeout=60)
            tool_event = bedrock_action_event(
                "email_draft",
                "/email-drafts",
                properties={"to": ["Kinshuok"], "subject": "The doc", "body": "Here it is."},
                session_attributes={"userId": user},
            )
            drafted = tool_handler("email_draft")(tool_event, LambdaContextStub())
            assert drafted["response"]["httpStatusCode"] == 200
            aws_reviewer.cache_clear()
            confirmed = set()
            for action in actions:
                if action["type"] in confirmed:
                    continue
                confirmed.add(action["type"])
                draft_id = action["id"]
                review = http_api_event("GET", f"/actions/{draft_id}", sub=user)
                assert review_handler(review, FakeLambdaContext())["statusCode"] == 200
                body: dict[str, Any] = {}
                if action["type"] == "show_meeting_scheduler":
                    slot = action["slots"][0]
                    body = {"slot": {"start": slot["start"], "end": slot["end"]}}
                confirm = http_api_event("POST", f"/actions/{draft_id}/confirm", body, sub=user)
                answered = review_handler(confirm, FakeLambdaContext())
                assert answered["statusCode"] == 200, answered
            assert confirmed == {"show_new_email_draft", "show_meeting_scheduler", "show_jira_ticket_draft"}
        aws_chat_service.cache_clear()
        aws_reviewer.cache_clear()
    return sent


# --------------------------------------------------------------------------- finding the floor


def wheel_data(wheel: Path, into: Path) -> Path:
    """Unpack a botocore wheel's ``botocore/`` (models, ``__init__``) into ``into``; its data folder."""
    with zipfile.ZipFile(wheel) as archive:
        members = [name for name in archive.namelist() if name.startswith("botocore/")]
        archive.extractall(into, members=members)
    return into / "botocore" / "data"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tests.support.sdk_requests WHEEL...``: run the deployed code once and say, per botocore
    wheel (``pip download --no-deps botocore==X``), which of its requests that version's models refuse."""
    import pytest

    wheels = [Path(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    with pytest.MonkeyPatch.context() as monkeypatch:
        sent = deployed_requests(monkeypatch)
    print(f"{len(sent)} requests, {len({r.name for r in sent})} operations: {sorted({r.name for r in sent})}")
    for wheel in wheels:
        with tempfile.TemporaryDirectory() as scratch:
            data = wheel_data(wheel, Path(scratch))
            refused = refusals(sent, data)
            print(
                f"botocore {botocore_version(data)}: {'accepts every request' if not refused else 'refuses'}"
            )
            for line in refused:
                print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
