"""The AgentCore harness runtime: ``bedrock-agentcore.invoke_harness`` with the tools as inline functions.

The managed harness runs the agent loop; the registry's tools are declared to it
as ``inline_function`` tools, which the harness does not run itself: when the
model calls them it pauses (``stopReason: tool_use``) and hands the calls back
(return of control). Every inline call of that response runs here as ONE batch
through the product flow and ``run_calls``; the next ``invoke_harness`` resumes
the loop with the assistant's ``toolUse`` message and one ``toolResult`` per
``toolUseId`` (the harness keeps the completed conversation by
``runtimeSessionId``, not the paused tool-use step, so a resume carries both).
The loop ends when the model ends its turn or after ``max_rounds`` calls.

Identity, time zone and time never come from the model: the system prompt is
built per turn from the :class:`TurnRequest`, the flow gets the request's user,
time zone, time and verified email, and ``runtimeUserId``/``actorId`` are the
user. ``allowedTools`` names only the inline functions, so the harness's
built-in ``shell`` and ``file_operations`` tools stay off.

With ``executor=gateway`` the harness gets the AgentCore Gateway as its one tool source
(:mod:`multitool.runtimes.harness_gateway`) and runs the calls itself (``mcp_tool_use``): their
results arrive in the stream as ``toolResult`` blocks (text or JSON), recorded like inline results
so the same extractor makes the cards. Their drafts are stored unclaimed; the runtime claims the
ones its own stream shows for the turn's user (:mod:`multitool.runtimes.claims`) and drops a card it could
not claim.

The response stream is read by :mod:`multitool.runtimes.harness_stream`; the
service's in-stream exceptions (which botocore raises while iterating) map to
the same 502/503 answers as every runtime. Each call and result is recorded
as an InvokeAgent-shaped trace event, so the one extractor makes the cards.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

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
    streamed_text,
)
from multitool.runtimes.carryover import CarryFailed, CarryOver
from multitool.runtimes.converse import CUT_SHORT, MAX_TOKENS, ROUNDS_EXHAUSTED, tool_specs_from_registry
from multitool.runtimes.flow import Flow, ToolCall, ToolResult
from multitool.runtimes.harness_gateway import allowed_tools, record_gateway_results
from multitool.runtimes.harness_stream import (
    INLINE_TOOL_USE,
    SERVICE,
    HarnessReply,
    HarnessUse,
    read_harness_stream,
)
from multitool.runtimes.prompts import system_prompt
from multitool.runtimes.summary import with_words_beside
from multitool.runtimes.traces import ToolResults, extract_tool_results
from multitool.tools import REGISTRY

if TYPE_CHECKING:
    from multitool.runtimes.claims import DraftClaims

FILTERED = "I can't help with that request: the answer was blocked by a content filter."
CONTEXT_TOO_LONG = (
    f"{SERVICE} could not read this conversation: it is longer than the model allows. Start a new chat."
)
MALFORMED = f"{SERVICE} answered with a malformed tool call."

RESULT_MARGIN_SECONDS = 2.0
"""Of the time left before the deadline, what a harness call leaves for answering the user."""

_CUT = frozenset({"max_tokens", "max_output_tokens_exceeded"})
_MODEL_FAILURES = frozenset({"malformed_model_output", "malformed_tool_use"})
_QUIET_ENDS = frozenset({"end_turn", "stop_sequence"})


class HarnessClient(Protocol):
    """What the runtime needs of ``boto3.client("bedrock-agentcore")`` (and the offline harness provides)."""

    def invoke_harness(self, **kwargs: Any) -> Mapping[str, Any]: ...


def harness_tools() -> list[dict[str, Any]]:
    """The registry's tools in InvokeHarness's shape: ``inline_function`` tools, input schemas from the
    same pydantic models as the Converse tool specs."""
    return [
        {
            "type": "inline_function",
            "name": spec["toolSpec"]["name"],
            "config": {
                "inlineFunction": {
                    "description": spec["toolSpec"]["description"],
                    "inputSchema": spec["toolSpec"]["inputSchema"]["json"],
                }
            },
        }
        for spec in tool_specs_from_registry()
    ]


def runtime_session_id(user_id: str, session_id: str) -> str:
    """The harness session of a chat session: stable, bound to its owner, 64 hex characters.

    Hashing the owner in means another user who sends the same chat session id lands in a
    different harness session, and the id fits the service's pattern whatever the chat id holds.
    """
    return hashlib.sha256(f"{user_id}\x00{session_id}".encode()).hexdigest()


# --------------------------------------------------------------------------- the loop


def _parsed_input(use: HarnessUse) -> tuple[Any, str | None]:
    """The call's arguments, or why they are not a JSON object."""
    try:
        value = json.loads(use.input_json) if use.input_json.strip() else {}
    except ValueError:
        return None, "The tool input is not valid JSON."
    if not isinstance(value, dict):
        return None, "The tool input must be a JSON object."
    return value, None


def _error_result(call_id: str, message: str) -> ToolResult:
    return ToolResult(call_id, {"error": {"code": "invalid_tool_call", "message": message}}, True)


def _tool_result_block(result: ToolResult) -> dict[str, Any]:
    return {
        "toolResult": {
            "toolUseId": result.call_id,
            "content": [{"json": result_json(result)}],
            "status": "error" if result_is_error(result) else "success",
        }
    }


def _text(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": [{"text": text}]}


def _assistant_message(reply: HarnessReply) -> dict[str, Any]:
    """The paused response as the resume sends it back: its thinking (a model that thinks by default
    needs it before its calls), its text and one toolUse per answered call."""
    content: list[dict[str, Any]] = [{"reasoningContent": block} for block in reply.reasoning]
    if reply.text:
        content.append({"text": reply.text})
    for use in reply.uses:
        args, _problem = _parsed_input(use)
        content.append(
            {
                "toolUse": {
                    "toolUseId": use.tool_use_id,
                    "name": use.name,
                    "input": args if args is not None else {},
                    "type": INLINE_TOOL_USE,
                }
            }
        )
    return {"role": "assistant", "content": content}


class AgentCoreRuntime:
    """Runs a turn on an AgentCore harness, answering its inline tool calls through the product flow."""

    def __init__(
        self,
        client: HarnessClient,
        harness_arn: str,
        flows: FlowFactory,
        *,
        max_rounds: int = 5,
        max_tokens: int = MAX_TOKENS,
        tools: Sequence[Mapping[str, Any]] | None = None,
        qualifier: str | None = None,
        service: str = SERVICE,
        claims: DraftClaims | None = None,
        carry: CarryOver | None = None,
    ) -> None:
        """``carry``: where a turn answered from its cards leaves its paused step for the next
        turn (:mod:`multitool.runtimes.carryover`); without one, every turn resumes on the model."""
        self.client = client
        self.harness_arn = harness_arn
        self.flows = flows
        self.max_rounds = max_rounds
        self.max_tokens = max_tokens
        self.tools = [dict(tool) for tool in (tools if tools is not None else harness_tools())]
        self.qualifier = qualifier
        self.service = service
        self.claims = claims
        self.carry = carry

    def run_turn(self, request: TurnRequest) -> ToolResults:
        flow: Flow | None = None
        recorder = TraceRecorder(request.session_id)
        base = self._base_request(request)
        carried = self._carried(request)
        messages: list[dict[str, Any]] = [
            *carried,
            {"role": "user", "content": [{"text": request.message}]},
        ]
        for round_number in range(self.max_rounds):
            trace_id = f"harness-{round_number}"
            if round_number and not request.has_time_for_model_call():
                return out_of_time(extract_tool_results(recorder.events), model_calls=round_number)
            try:
                reply = self._invoke(base, messages, request)
            except TurnError as error:
                if carried:  # the harness never read it: the next turn carries it again
                    self._keep(request, carried)
                return results_so_far(recorder.events, error)
            record_gateway_results(reply.gateway, self.claims, request.user_id, recorder, trace_id)
            carried = []
            stop = reply.stop_reason
            if stop == "tool_use" and reply.uses:
                flow = flow or self.flows(request)
                results, direct = self._run_tools(flow, reply.uses, recorder, trace_id)
                step = [
                    _assistant_message(reply),
                    {"role": "user", "content": [_tool_result_block(r) for r in results]},
                ]
                # A route answered the user: no further model call this turn; the step goes to the next.
                answer = with_words_beside(direct, reply.text) if direct is not None else None
                if answer is not None and self._keep(request, [*step, _text("assistant", answer)]):
                    recorder.final(trace_id, answer)
                    return extract_tool_results(recorder.events)
                messages = step
                continue
            return self._finish(reply, recorder, trace_id, round_number)
        logger.warning("Harness turn stopped at the round limit", extra={"max_rounds": self.max_rounds})
        recorder.final(f"harness-{self.max_rounds}", ROUNDS_EXHAUSTED)
        return extract_tool_results(recorder.events)

    def _carried(self, request: TurnRequest) -> list[dict[str, Any]]:
        """The step carried into this turn: as the session claim read it, or taken from the store."""
        if request.carried is not None:
            return [dict(message) for message in request.carried]
        return self.carry.take(request.user_id, request.session_id) if self.carry is not None else []

    def _keep(self, request: TurnRequest, step: list[dict[str, Any]]) -> bool:
        """Carry ``step`` into the session's next turn; False (the model resumes now) if it cannot be."""
        if self.carry is None:
            return False
        try:
            self.carry.keep(request.user_id, request.session_id, step)
        except CarryFailed as error:
            logger.warning(
                "Harness step not carried; resuming on the model", extra={"reason": str(error)[:120]}
            )
            return False
        return True

    def _base_request(self, request: TurnRequest) -> dict[str, Any]:
        params: dict[str, Any] = {
            "harnessArn": self.harness_arn,
            "runtimeSessionId": runtime_session_id(request.user_id, request.session_id),
            "runtimeUserId": request.user_id,
            "actorId": request.user_id,
            "systemPrompt": [
                {"text": system_prompt(timezone=request.timezone, now=request.now, locale=request.locale)}
            ],
            "tools": self.tools,
            "allowedTools": allowed_tools(self.tools),
            "maxIterations": self.max_rounds,
            "maxTokens": self.max_tokens,
        }
        if self.qualifier:
            params["qualifier"] = self.qualifier
        return params

    def _timeout_seconds(self, request: TurnRequest) -> int | None:
        """The harness's own limit for this call: what the invocation has left, less time to answer."""
        if request.deadline is None:
            return None
        left = request.deadline - time.monotonic() - RESULT_MARGIN_SECONDS
        return max(1, math.floor(left))

    def _invoke(
        self, base: Mapping[str, Any], messages: list[dict[str, Any]], request: TurnRequest
    ) -> HarnessReply:
        params = {**base, "messages": messages}
        timeout = self._timeout_seconds(request)
        if timeout is not None:
            params["timeoutSeconds"] = timeout
        try:
            response = self.client.invoke_harness(**params)
            stream = response.get("stream") if isinstance(response, Mapping) else None
            if stream is None or isinstance(stream, str | bytes | Mapping):
                raise ModelFailed(f"{self.service} answered without an event stream.")
            return read_harness_stream(streamed_text(stream, request.progress))
        except BEDROCK_ERRORS as error:
            raise model_error(error, self.service) from None

    def _finish(
        self, reply: HarnessReply, recorder: TraceRecorder, trace_id: str, round_number: int
    ) -> ToolResults:
        """The turn's answer for a reply that asks for no (runnable) tool call, by its stop reason."""
        stop, text = reply.stop_reason, reply.text.strip()
        if stop in _MODEL_FAILURES:
            logger.warning("Harness model output was malformed", extra={"stop_reason": stop})
            return results_so_far(recorder.events, ModelFailed(MALFORMED))
        if stop == "model_context_window_exceeded":
            return results_so_far(recorder.events, ModelFailed(CONTEXT_TOO_LONG))
        if stop == "timeout_exceeded":
            recorder.final(trace_id, text)
            return out_of_time(extract_tool_results(recorder.events), model_calls=round_number + 1)
        if stop in _CUT:
            # A call of a cut response may be truncated: none is run, and the user is told.
            logger.warning(
                "Harness answer cut at the token limit; its tool calls were not run",
                extra={"tool_calls": len(reply.uses), "max_tokens": self.max_tokens},
            )
            text = f"{text}\n\n{CUT_SHORT}".strip()
        elif stop == "max_iterations_exceeded":
            text = f"{text}\n\n{ROUNDS_EXHAUSTED}".strip()
        elif stop == "content_filtered":
            text = FILTERED
        elif stop not in _QUIET_ENDS:
            logger.warning(
                "Harness turn ended without end_turn",
                extra={"stop_reason": stop[:64] or "(none)", "tool_calls": len(reply.uses)},
            )
        recorder.final(trace_id, text)
        return extract_tool_results(recorder.events)

    def _run_tools(
        self, flow: Flow, uses: Sequence[HarnessUse], recorder: TraceRecorder, trace_id: str
    ) -> tuple[list[ToolResult], str | None]:
        """Dispatch one response's inline calls as one batch; one result per toolUseId, in order."""
        calls: list[ToolCall] = []
        results: dict[str, ToolResult] = {}
        for use in uses:
            spec = REGISTRY.get(use.name)
            group, path = (spec.action_group, spec.api_path) if spec else (None, None)
            recorder.call(trace_id, group, path, use.name)
            args, problem = _parsed_input(use)
            if problem is not None:
                results[use.tool_use_id] = _error_result(use.tool_use_id, problem)
                continue
            calls.append(ToolCall(id=use.tool_use_id, name=use.name, args=args))
        direct: str | None = None
        if calls:
            turn = flow.dispatch(calls)
            results.update({result.call_id: result for result in turn.results})
            # A call refused before dispatch is an error the model must read: no direct answer then.
            direct = turn.direct if len(calls) == len(uses) else None
        ordered = [
            results.get(use.tool_use_id) or _error_result(use.tool_use_id, "The call was not answered.")
            for use in uses
        ]
        for result in ordered:
            recorder.result(trace_id, result_text(result))
        return ordered, direct
