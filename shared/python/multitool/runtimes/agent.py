"""The Bedrock agent runtime: ``bedrock-agent-runtime.invoke_agent`` with traces on.

With Lambda executors, Bedrock runs the action groups itself and their outputs
arrive in the trace. With RETURN_CONTROL action groups the agent hands back a
``returnControl`` event instead: its 1 to 5 invocation inputs run here, through
the product flow as ONE batch, and go back under the same ``invocationId`` as
one ``returnControlInvocationResults`` entry per input; the agent then
continues, for at most ``max_rounds`` InvokeAgent calls. The results sent back
are recorded as trace events, so the trace extractor sees every payload.

Results are sent back even when every call made a draft and the product step
routes ``direct``: Bedrock continues the orchestration (a model call) whenever
``returnControlInvocationResults`` arrive and ignores ``inputText`` beside them,
and the agent keeps the session's memory itself. A turn that did not send them
would leave that memory without the drafts; sending them on the next turn would
only move the model call there. So this runtime answers with the agent's words.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import msgspec

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
from multitool.runtimes.prompts import prompt_session_attributes
from multitool.runtimes.traces import ToolResults, extract_tool_results
from multitool.tools import REGISTRY, ToolError, spec_for
from multitool.tools.bedrock import decode_properties, json_media

SERVICE = "Bedrock Agents"
_ERROR_STATUS = {"unknown_tool": 404, "backend_unavailable": 503, "internal_error": 500, "tool_failed": 500}


class AgentClient(Protocol):
    """What the runtime needs of ``boto3.client("bedrock-agent-runtime")``."""

    def invoke_agent(self, **kwargs: Any) -> Mapping[str, Any]: ...


class _Input(msgspec.Struct, frozen=True):
    """One returnControl invocation input, and the call it became (or why it could not)."""

    call_id: str
    raw: Mapping[str, Any]
    kind: str  # "api" or "function"
    call: ToolCall | None
    error: ToolError | None = None


def _status(result: ToolResult) -> int:
    if not result_is_error(result):
        return 200
    error = result_json(result).get("error", {})
    code = error.get("code") if isinstance(error, Mapping) else None
    return _ERROR_STATUS.get(code, 400) if isinstance(code, str) else 400


def _input_call(call_id: str, entry: Mapping[str, Any]) -> _Input:
    api = entry.get("apiInvocationInput")
    function = entry.get("functionInvocationInput")
    try:
        if isinstance(api, Mapping):
            spec = spec_for(
                str(api.get("actionGroup")), str(api.get("apiPath")), str(api.get("httpMethod", ""))
            )
            media = json_media(api.get("requestBody"))
            args = decode_properties(media.get("properties", [])) if media is not None else {}
            args.update(decode_properties(api.get("parameters") or []))
            return _Input(call_id, api, "api", ToolCall(call_id, spec.name, args))
        if isinstance(function, Mapping):
            name = str(function.get("function"))
            if name not in REGISTRY:
                raise ToolError(f"There is no function '{name}'.", field="function")
            args = decode_properties(function.get("parameters") or [])
            return _Input(call_id, function, "function", ToolCall(call_id, name, args))
        raise ToolError(
            "The invocation input is neither an API nor a function input.", field="invocationInputs"
        )
    except ToolError as error:
        raw = api if isinstance(api, Mapping) else function if isinstance(function, Mapping) else {}
        return _Input(call_id, raw, "function" if isinstance(function, Mapping) else "api", None, error)


def _result_entry(item: _Input, result: ToolResult) -> dict[str, Any]:
    raw = item.raw
    body = json.dumps(result_json(result), ensure_ascii=False, default=str)
    entry: dict[str, Any] = {"actionGroup": str(raw.get("actionGroup", ""))}
    if isinstance(raw.get("agentId"), str):
        entry["agentId"] = raw["agentId"]
    if item.kind == "function":
        entry["function"] = str(raw.get("function", ""))
        entry["responseBody"] = {"TEXT": {"body": body}}
        if result_is_error(result):
            entry["responseState"] = "REPROMPT"
        return {"functionResult": entry}
    entry.update(
        apiPath=str(raw.get("apiPath", "")),
        httpMethod=str(raw.get("httpMethod", "POST")),
        httpStatusCode=_status(result),
        responseBody={"application/json": {"body": body}},
    )
    return {"apiResult": entry}


class AgentRuntime:
    """Runs a turn on a Bedrock agent alias, answering RETURN_CONTROL through the product flow."""

    def __init__(
        self,
        client: AgentClient,
        agent_id: str,
        agent_alias_id: str,
        flows: FlowFactory,
        *,
        max_rounds: int = 5,
    ) -> None:
        self.client = client
        self.agent_id = agent_id
        self.agent_alias_id = agent_alias_id
        self.flows = flows
        self.max_rounds = max_rounds

    def run_turn(self, request: TurnRequest) -> ToolResults:
        flow: Flow | None = None
        events: list[Any] = []
        recorder = TraceRecorder(request.session_id)
        base_state: dict[str, Any] = {
            "sessionAttributes": request.session_attributes(),
            "promptSessionAttributes": prompt_session_attributes(
                timezone=request.timezone, now=request.now, locale=request.locale
            ),
        }
        session_state = dict(base_state)
        input_text = request.message
        for round_number in range(self.max_rounds):
            if round_number and not request.has_time_for_model_call():
                return out_of_time(extract_tool_results(events), model_calls=round_number)
            try:
                control = self._invoke(request.session_id, input_text, session_state, events)
            except TurnError as error:  # events holds what streamed before the failure
                return results_so_far(events, error)
            if control is None:
                return extract_tool_results(events)
            flow = flow or self.flows(request)
            invocation_id = control.get("invocationId")
            results = self._answer(flow, control, recorder)
            events.extend(recorder.events)
            recorder.events.clear()
            session_state = {
                **base_state,
                "invocationId": invocation_id,
                "returnControlInvocationResults": results,
            }
            input_text = ""  # ignored by Bedrock when results are returned
        logger.warning("Agent turn stopped at the round limit", extra={"max_rounds": self.max_rounds})
        return extract_tool_results(events)

    def _invoke(
        self, session_id: str, input_text: str, session_state: Mapping[str, Any], events: list[Any]
    ) -> Mapping[str, Any] | None:
        """One InvokeAgent call, its stream consumed into ``events``; the returnControl part, if any."""
        control: Mapping[str, Any] | None = None
        try:
            response = self.client.invoke_agent(
                agentId=self.agent_id,
                agentAliasId=self.agent_alias_id,
                sessionId=session_id,
                inputText=input_text,
                enableTrace=True,
                sessionState=session_state,
            )
            stream: Iterable[Any] = response.get("completion") or ()
            for event in stream:
                events.append(event)
                if isinstance(event, Mapping) and isinstance(event.get("returnControl"), Mapping):
                    control = event["returnControl"]
        except BEDROCK_ERRORS as error:
            raise model_error(error, SERVICE) from None
        if control is not None and not isinstance(control.get("invocationId"), str):
            raise ModelFailed(f"{SERVICE} returned control without an invocation id.")
        return control

    def _answer(
        self, flow: Flow, control: Mapping[str, Any], recorder: TraceRecorder
    ) -> list[dict[str, Any]]:
        """Run every invocation input as one batch; one result entry per input, in order."""
        invocation_id = str(control["invocationId"])
        raw_inputs = control.get("invocationInputs")
        entries = [e for e in raw_inputs if isinstance(e, Mapping)] if isinstance(raw_inputs, list) else []
        items = [_input_call(f"{invocation_id}-{index}", entry) for index, entry in enumerate(entries)]
        trace_id = f"rc-{invocation_id}"
        for item in items:
            group = item.raw.get("actionGroup")
            path = item.raw.get("apiPath", item.raw.get("function"))
            name = item.call.name if item.call else str(path)
            recorder.call(trace_id, str(group) if group else None, str(path) if path else None, name)
        calls = [item.call for item in items if item.call is not None]
        results: dict[str, ToolResult] = {}
        if calls:
            results = {result.call_id: result for result in flow.dispatch(calls).results}
        entries_out: list[dict[str, Any]] = []
        for item in items:
            result = results.get(item.call_id) or ToolResult(
                item.call_id, item.error.to_body() if item.error else {"error": {"code": "tool_failed"}}, True
            )
            recorder.result(trace_id, result_text(result))
            entries_out.append(_result_entry(item, result))
        return entries_out
