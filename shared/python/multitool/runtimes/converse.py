"""The Converse runtime: the agent loop on ``bedrock-runtime.converse``, run by the orchestrator.

The model sees the conversation so far (``TurnRequest.history``: earlier user
messages and replies, each reply with a summary of its cards), then the new
user message. Tools are described to the model from the action groups'
OpenAPI documents (operationId -> tool name, request body schema -> input
schema). Each model
response's ``toolUse`` blocks go through the product flow as one batch; one
``toolResult`` per ``toolUseId`` goes back, and the loop continues until the
model ends its turn or ``max_rounds`` model calls have been made, or at once when
every call of a response made a draft: the product step's ``direct`` route answers
with a message composed from the cards (:mod:`multitool.runtimes.summary`), and the model is
called again only after a failed or refused call or a card the user must clarify. The
session's stored history gets that message as the reply, as it would the model's. Every call
and result is recorded as an InvokeAgent-shaped trace event, so the trace
extractor turns them into cards exactly as it does for the Bedrock agent.

For a model with prompt caching (:func:`multitool.models.prompt_cache`) a ``cachePoint``
follows the tool specs and the standing system prompt, the same bytes for every user and
turn; the user's zone and the current time come after the last cache point, so they never
make a cache miss.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Any, Protocol

from multitool import FOLDER
from multitool.models import ANSWER_TOKENS, CACHE_POINT, TOOL_CHOICE, converse_inference_config, prompt_cache
from multitool.observability import logger
from multitool.runtimes.base import (
    BEDROCK_ERRORS,
    FlowFactory,
    ModelFailed,
    TraceRecorder,
    TurnError,
    TurnRequest,
    model_error,
    out_of_time,
    result_is_error,
    result_json,
    result_text,
    results_so_far,
)
from multitool.runtimes.flow import Flow, ToolCall, ToolResult
from multitool.runtimes.prompts import standing_system_prompt, time_context
from multitool.runtimes.summary import with_words_beside
from multitool.runtimes.traces import ToolResults, extract_tool_results
from multitool.toolkit import model_specs
from multitool.tools import REGISTRY

# Room for a full-length email body (MAX_BODY_CHARS, ~2,500 tokens) besides the turn's other calls;
# a model that thinks by default gets more (multitool.models.default_max_tokens). MAX_OUTPUT_TOKENS
# overrides either.
MAX_TOKENS = ANSWER_TOKENS
ROUNDS_EXHAUSTED = (
    "I stopped before finishing: the request needed more steps than allowed. Review what I prepared."
)
CUT_SHORT = (
    "My answer was cut short before I could prepare everything you asked for; ask again for what is missing."
)


class ConverseClient(Protocol):
    """What the loop needs of ``boto3.client("bedrock-runtime")`` (and what the offline model provides)."""

    def converse(self, **kwargs: Any) -> Mapping[str, Any]: ...


# --------------------------------------------------------------------------- tools from OpenAPI


def tool_specs_from_openapi(documents: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Converse ``toolSpec`` entries for every operation of the given OpenAPI documents."""
    specs: list[dict[str, Any]] = []
    for document in documents:
        components = document.get("components", {}).get("schemas", {})
        for path, item in document.get("paths", {}).items():
            for method, operation in item.items():
                if not isinstance(operation, Mapping) or "operationId" not in operation:
                    continue
                body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
                requested = body.get("schema", {"type": "object", "properties": {}})
                schema = model_specs.inline_refs(requested, components)
                description = operation.get("description") or operation.get("summary") or f"{method} {path}"
                specs.append(
                    {
                        "toolSpec": {
                            "name": operation["operationId"],
                            "description": description,
                            "inputSchema": {"json": schema},
                        }
                    }
                )
    return specs


def tool_specs_from_registry() -> list[dict[str, Any]]:
    """Converse ``toolSpec`` entries of the registry's tools from their models' JSON Schemas: committed
    for the built-in tools (:mod:`multitool.toolkit.model_specs`), generated for any other."""
    return model_specs.tool_specs(REGISTRY.described())


def load_openapi_documents() -> list[dict[str, Any]]:
    """The committed action-group OpenAPI documents (``multitool/schemas/*.json``)."""
    folder = FOLDER / "schemas"
    documents: list[dict[str, Any]] = []
    if folder.is_dir():
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".json"):
                documents.append(json.loads(entry.read_text(encoding="utf-8")))
    return documents


def default_tool_specs() -> tuple[dict[str, Any], ...]:
    """Tool specs from the committed OpenAPI documents, or from the tool models when none are present."""
    return _default_tool_specs(REGISTRY.version)


@cache
def _default_tool_specs(_version: int) -> tuple[dict[str, Any], ...]:
    registered = set(REGISTRY)
    documents = tool_specs_from_openapi(load_openapi_documents())
    specs = [spec for spec in documents if spec["toolSpec"]["name"] in registered]
    known = {spec["toolSpec"]["name"] for spec in specs}
    missing = [spec for spec in tool_specs_from_registry() if spec["toolSpec"]["name"] not in known]
    if missing:
        names = [spec["toolSpec"]["name"] for spec in missing]
        logger.info("Described tools from their models", extra={"tools": names})
    return tuple(specs + missing)


# --------------------------------------------------------------------------- the cacheable prefix


def system_blocks(
    model_id: str, *, timezone: str, now: datetime | None, locale: str | None = None
) -> list[dict[str, Any]]:
    """Converse ``system``: the standing prompt, a cache point where the model caches, then the time."""
    blocks: list[dict[str, Any]] = [{"text": standing_system_prompt()}]
    if prompt_cache(model_id) is not None:
        blocks.append(copy.deepcopy(CACHE_POINT))
    blocks.append({"text": time_context(timezone=timezone, now=now, locale=locale)})
    return blocks


def cached_tools(model_id: str, specs: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Converse ``toolConfig.tools``: the specs, then a cache point where the model caches tools."""
    tools = [dict(spec) for spec in specs]
    caching = prompt_cache(model_id)
    if caching is not None and caching.tools:
        tools.append(copy.deepcopy(CACHE_POINT))
    return tools


# --------------------------------------------------------------------------- the loop


def _tool_result_block(result: ToolResult) -> dict[str, Any]:
    error = result_is_error(result)
    block: dict[str, Any] = {"toolUseId": result.call_id, "content": [{"json": result_json(result)}]}
    if error:
        block["status"] = "error"
    return {"toolResult": block}


def _text_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a history message (the loop appends to its list, never to the caller's)."""
    blocks = message.get("content") or []
    return {"role": message.get("role"), "content": [{"text": b["text"]} for b in blocks if "text" in b]}


def _error_result(call_id: str, message: str) -> ToolResult:
    return ToolResult(call_id, {"error": {"code": "invalid_tool_call", "message": message}}, True)


class ConverseRuntime:
    """Runs a turn with the Converse API, dispatching tool calls through the product flow."""

    def __init__(
        self,
        client: ConverseClient,
        model_id: str,
        flows: FlowFactory,
        *,
        max_rounds: int = 5,
        tool_specs: Sequence[Mapping[str, Any]] | None = None,
        service: str = "Bedrock Converse",
        max_tokens: int = MAX_TOKENS,
        guardrail: Mapping[str, str] | None = None,
    ) -> None:
        self.client = client
        # Converse's guardrailConfig (GuardrailConfiguration: guardrailIdentifier, guardrailVersion),
        # sent on every call of the turn. With tools, the guardrail reads the messages and the model's
        # text, not toolUse inputs or tool results ("Include a guardrail with the Converse API",
        # https://docs.aws.amazon.com/bedrock/latest/userguide/guardrails-use-converse-api.html); a
        # blocked answer comes back as stopReason guardrail_intervened with the guardrail's words,
        # which the loop returns as the reply, running no call.
        self.guardrail = dict(guardrail) if guardrail else None
        self.model_id = model_id
        self.flows = flows
        self.max_rounds = max_rounds
        self.max_tokens = max_tokens
        chosen = tool_specs if tool_specs is not None else default_tool_specs()
        self.tool_specs = [dict(spec) for spec in chosen]
        self.tools = cached_tools(model_id, self.tool_specs)
        self.service = service

    def run_turn(self, request: TurnRequest) -> ToolResults:
        flow = self.flows(request)
        recorder = TraceRecorder(request.session_id)
        system = system_blocks(
            self.model_id, timezone=request.timezone, now=request.now, locale=request.locale
        )
        messages: list[dict[str, Any]] = [
            *(_text_message(message) for message in request.history),
            {"role": "user", "content": [{"text": request.message}]},
        ]
        for round_number in range(self.max_rounds):
            trace_id = f"converse-{round_number}"
            if round_number and not request.has_time_for_model_call():
                return out_of_time(extract_tool_results(recorder.events), model_calls=round_number)
            try:
                message, stop_reason = self._converse(messages, system)
            except TurnError as error:
                return results_so_far(recorder.events, error)
            messages.append(message)
            content = message.get("content") or []
            text = "".join(block["text"] for block in content if isinstance(block.get("text"), str))
            uses = [block["toolUse"] for block in content if isinstance(block.get("toolUse"), Mapping)]
            if stop_reason != "tool_use" or not uses:
                if uses and stop_reason == "max_tokens":
                    # The last call may be truncated: none is run, and the user is told, not left guessing.
                    logger.warning(
                        "Converse answer cut at the token limit; its tool calls were not run",
                        extra={"tool_calls": len(uses), "max_tokens": self.max_tokens},
                    )
                    text = f"{text.strip()}\n\n{CUT_SHORT}".strip()
                recorder.final(trace_id, text)
                return extract_tool_results(recorder.events)
            results, direct = self._run_tools(flow, uses, recorder, trace_id)
            messages.append({"role": "user", "content": [_tool_result_block(r) for r in results]})
            if direct is not None:  # a route answered the user: no further model call this turn
                answer = with_words_beside(direct, text)
                messages.append({"role": "assistant", "content": [{"text": answer}]})
                recorder.final(trace_id, answer)
                return extract_tool_results(recorder.events)
        logger.warning("Converse turn stopped at the round limit", extra={"max_rounds": self.max_rounds})
        recorder.final(f"converse-{self.max_rounds}", ROUNDS_EXHAUSTED)
        return extract_tool_results(recorder.events)

    def _converse(
        self, messages: list[dict[str, Any]], system: list[dict[str, Any]]
    ) -> tuple[dict[str, Any], str]:
        try:
            response = self.client.converse(
                modelId=self.model_id,
                messages=messages,
                system=system,
                toolConfig={"tools": self.tools, "toolChoice": TOOL_CHOICE},
                # No fixed temperature for a model that thinks by default (multitool.models).
                inferenceConfig=converse_inference_config(self.model_id, self.max_tokens),
                **({"guardrailConfig": self.guardrail} if self.guardrail else {}),
            )
        except BEDROCK_ERRORS as error:
            raise model_error(error, self.service) from None
        message = response.get("output", {}).get("message") if isinstance(response, Mapping) else None
        if not isinstance(message, Mapping) or not isinstance(message.get("content"), list):
            raise ModelFailed(f"{self.service} answered without a message.")
        content = [block for block in message["content"] if isinstance(block, Mapping)]
        stop_reason = response.get("stopReason")
        return {"role": "assistant", "content": content}, stop_reason if isinstance(stop_reason, str) else ""

    def _run_tools(
        self, flow: Flow, uses: Sequence[Mapping[str, Any]], recorder: TraceRecorder, trace_id: str
    ) -> tuple[list[ToolResult], str | None]:
        """Dispatch one response's tool calls as one batch; one result per toolUseId, in order."""
        calls: list[ToolCall] = []
        results: dict[str, ToolResult] = {}
        order: list[str] = []
        for position, use in enumerate(uses):
            call_id = use.get("toolUseId")
            if not isinstance(call_id, str) or not call_id or call_id in order:
                call_id = f"{trace_id}-{position}"
            order.append(call_id)
            name = use.get("name")
            spec = REGISTRY.get(name) if isinstance(name, str) else None
            group, path = (spec.action_group, spec.api_path) if spec else (None, None)
            recorder.call(trace_id, group, path, str(name))
            try:
                calls.append(ToolCall(id=call_id, name=name, args=use.get("input") or {}))  # type: ignore[arg-type]
            except ValueError as error:
                results[call_id] = _error_result(call_id, str(error))
        direct: str | None = None
        if calls:
            turn = flow.dispatch(calls)
            results.update({result.call_id: result for result in turn.results})
            # A call refused before dispatch is an error the model must read: no direct answer then.
            direct = turn.direct if len(calls) == len(uses) else None
        ordered = [results[call_id] for call_id in order]
        for result in ordered:
            recorder.result(trace_id, result_text(result))
        return ordered, direct
