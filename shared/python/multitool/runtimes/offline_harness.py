"""The offline harness: a stand-in for ``bedrock-agentcore.invoke_harness``, driven by the offline model.

:class:`OfflineHarness` answers ``invoke_harness(**kwargs)`` the way the
managed harness does for inline function tools, so ``make demo``,
``multitool chat`` and the page run the same :class:`AgentCoreRuntime` code as
the default deployment, with no AWS account:

- every request is checked against botocore's ``InvokeHarness`` input shape
  (a request the service would refuse fails here too, as a ``ParamValidationError``);
- the conversation is kept per ``runtimeSessionId``; a paused tool-use step is
  not, so a resume must carry the assistant's ``toolUse`` message and exactly one
  ``toolResult`` per ``toolUseId`` (anything else is a ``ValidationException``);
- the answer comes from :class:`OfflineModel` (Converse's shape) and streams as
  ``InvokeHarnessStreamOutput`` events: ``messageStart``, a ``contentBlockStart``
  per tool call, text and ``toolUse.input`` split across several
  ``contentBlockDelta`` events, ``contentBlockStop``, ``messageStop`` and ``metadata``.

It is a development stand-in, never placed in front of AgentCore in a deployment.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from typing import Any

import botocore.loaders
from botocore.exceptions import ClientError, ParamValidationError
from botocore.model import OperationModel, ServiceModel
from botocore.validate import validate_parameters

from multitool.runtimes.agentcore import harness_tools
from multitool.runtimes.offline import OfflineModel

OFFLINE_HARNESS_ARN = "arn:aws:bedrock-agentcore:us-east-1:000000000000:harness/multitool_offline-offline000"
"""What the local runtime names the stand-in (an ARN of the service's pattern)."""

TEXT_PIECE_WORDS = 3
"""Words per text delta: the stand-in streams like the service, in several pieces."""
INPUT_PIECE_CHARS = 24
"""Characters per ``toolUse.input`` delta."""


@cache
def invoke_harness_operation() -> OperationModel:
    """botocore's model of ``InvokeHarness`` (request and event stream shapes).

    Read straight from botocore's data: a new session would build its handlers and
    components, and ``load_service_model`` lists every service's folder to check the name;
    the stand-in needs neither (about half the cost, at every local cold start).
    """
    loader = botocore.loaders.create_loader()
    version = loader.determine_latest_version("bedrock-agentcore", "service-2")
    loaded = loader.load_data(f"bedrock-agentcore/{version}/service-2")
    return ServiceModel(loaded, "bedrock-agentcore").operation_model("InvokeHarness")


def validate_invoke_harness(params: Mapping[str, Any]) -> None:
    """Raise ``ParamValidationError`` unless ``params`` is a request the InvokeHarness input shape allows."""
    operation = invoke_harness_operation()
    if operation.input_shape is None:  # pragma: no cover - the model always has one
        raise ParamValidationError(report="InvokeHarness has no input shape")
    validate_parameters(dict(params), operation.input_shape)


def _validation_error(message: str) -> ClientError:
    return ClientError({"Error": {"Code": "ValidationException", "Message": message}}, "InvokeHarness")


def _text_pieces(text: str) -> list[str]:
    words = text.split(" ")
    pieces = [" ".join(words[i : i + TEXT_PIECE_WORDS]) for i in range(0, len(words), TEXT_PIECE_WORDS)]
    # Keep the spaces between pieces, so the joined deltas are the text exactly.
    joined = [piece + (" " if index < len(pieces) - 1 else "") for index, piece in enumerate(pieces)]
    return [piece for piece in joined if piece]


def _input_pieces(value: Any) -> list[str]:
    text = json.dumps(value, ensure_ascii=False)
    return [text[i : i + INPUT_PIECE_CHARS] for i in range(0, len(text), INPUT_PIECE_CHARS)]


def _converse_block(block: Mapping[str, Any]) -> dict[str, Any] | None:
    """A harness content block as Converse has it (the harness-only ``type`` fields dropped)."""
    if "text" in block:
        return {"text": block["text"]}
    if "toolUse" in block:
        use = block["toolUse"]
        return {"toolUse": {k: use[k] for k in ("toolUseId", "name", "input") if k in use}}
    if "toolResult" in block:
        result = block["toolResult"]
        return {"toolResult": {k: result[k] for k in ("toolUseId", "content", "status") if k in result}}
    return None


def _converse_message(message: Mapping[str, Any]) -> dict[str, Any]:
    blocks = [_converse_block(block) for block in message.get("content", [])]
    return {"role": message["role"], "content": [block for block in blocks if block is not None]}


def _without_resumed_step(sent: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``sent`` without the paused step it resumes: a trailing assistant ``toolUse`` message and
    the ``toolResult`` message answering it."""
    kept = list(sent)

    def has(message: Mapping[str, Any], kind: str) -> bool:
        return any(kind in block for block in message["content"])

    if kept and kept[-1]["role"] == "user" and has(kept[-1], "toolResult"):
        kept.pop()
        if kept and kept[-1]["role"] == "assistant" and has(kept[-1], "toolUse"):
            kept.pop()
    return kept


def _tool_config(tools: Sequence[Mapping[str, Any]], allowed: Sequence[str] | None) -> dict[str, Any]:
    specs = []
    for tool in tools:
        inline = (tool.get("config") or {}).get("inlineFunction")
        name = tool.get("name")
        if tool.get("type") != "inline_function" or not isinstance(inline, Mapping) or not name:
            continue
        if allowed is not None and "*" not in allowed and name not in allowed:
            continue
        specs.append(
            {
                "toolSpec": {
                    "name": name,
                    "description": inline["description"],
                    "inputSchema": {"json": inline["inputSchema"]},
                }
            }
        )
    return {"tools": specs}


def _check_resume(messages: Sequence[Mapping[str, Any]]) -> None:
    """Every toolResult answers a toolUse of the assistant message before it, each exactly once."""
    for index, message in enumerate(messages):
        results = [b["toolResult"]["toolUseId"] for b in message["content"] if "toolResult" in b]
        if not results:
            continue
        previous = messages[index - 1] if index else None
        if previous is None or previous["role"] != "assistant":
            raise _validation_error("A toolResult must follow the assistant message with its toolUse.")
        uses = [b["toolUse"]["toolUseId"] for b in previous["content"] if "toolUse" in b]
        if sorted(results) != sorted(uses) or len(set(results)) != len(results):
            raise _validation_error(
                "The toolResult blocks must answer each toolUse of the previous message exactly once."
            )


class OfflineHarness:
    """A deterministic ``bedrock-agentcore`` stand-in: ``invoke_harness`` in the service's shapes."""

    def __init__(self, model: OfflineModel | None = None, *, delay_seconds: float = 0.0) -> None:
        """``delay_seconds``: how long each answer takes to start, as a real model's would (for tests
        and demos that watch a turn's progress)."""
        self.model = model or OfflineModel()
        self.delay_seconds = delay_seconds
        self.requests: list[dict[str, Any]] = []
        self._conversations: dict[str, list[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def invoke_harness(self, **kwargs: Any) -> dict[str, Any]:
        validate_invoke_harness(kwargs)
        self.requests.append(kwargs)
        if self.delay_seconds > 0:
            time.sleep(self.delay_seconds)
        sent = [_converse_message(message) for message in kwargs["messages"]]
        _check_resume(sent)
        session = kwargs["runtimeSessionId"]
        with self._lock:
            earlier = list(self._conversations.get(session, ()))
        tools = kwargs.get("tools") or harness_tools()
        request: dict[str, Any] = {
            "modelId": self.model.model_id,
            "messages": [*earlier, *sent],
            "toolConfig": _tool_config(tools, kwargs.get("allowedTools")),
        }
        if kwargs.get("systemPrompt"):
            request["system"] = kwargs["systemPrompt"]
        answer = self.model.converse(**request)
        message = answer["output"]["message"]
        stop_reason = answer["stopReason"]
        # The completed conversation is kept; a step paused on inline tools is not (the resume resends
        # it). A step carried from an earlier turn, before the new user message, is completed: kept.
        kept = [*sent, message] if stop_reason != "tool_use" else _without_resumed_step(sent)
        with self._lock:
            self._conversations.setdefault(session, []).extend(kept)
        return {
            "ResponseMetadata": {"HTTPStatusCode": 200, "RetryAttempts": 0},
            "stream": self._events(message, stop_reason, answer.get("usage") or {}),
        }

    def _events(
        self, message: Mapping[str, Any], stop_reason: str, usage: Mapping[str, Any]
    ) -> Iterator[dict[str, Any]]:
        yield {"messageStart": {"role": "assistant"}}
        for index, block in enumerate(message["content"]):
            if "text" in block:
                for piece in _text_pieces(block["text"]):
                    yield {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"text": piece}}}
            elif "toolUse" in block:
                use = block["toolUse"]
                start = {"toolUseId": use["toolUseId"], "name": use["name"], "type": "tool_use"}
                yield {"contentBlockStart": {"contentBlockIndex": index, "start": {"toolUse": start}}}
                for piece in _input_pieces(use.get("input", {})):
                    delta = {"toolUse": {"input": piece}}
                    yield {"contentBlockDelta": {"contentBlockIndex": index, "delta": delta}}
            yield {"contentBlockStop": {"contentBlockIndex": index}}
        yield {"messageStop": {"stopReason": stop_reason}}
        tokens = {key: int(usage.get(key, 0)) for key in ("inputTokens", "outputTokens", "totalTokens")}
        yield {"metadata": {"usage": tokens, "metrics": {"latencyMs": 0}}}
