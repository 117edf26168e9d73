"""The harness's Gateway tool source: its tool declaration, and recording the calls it ran.

With ``executor=gateway`` the harness is given the AgentCore Gateway (:func:`gateway_tools`) and
runs the tools itself: every call is an ``mcp_tool_use`` block, its answer a ``toolResult`` block
in the same stream (text or JSON content). :func:`record_gateway_results` turns those into the
same trace events inline calls make, so the one extractor makes (and dedupes) the cards. First it
claims the drafts the results name for the turn's user (:mod:`multitool.runtimes.claims`): a result whose
draft the user does not own afterwards is recorded as an error, so no card shows a draft the user
could not confirm.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from multitool.runtimes.base import TraceRecorder, result_text
from multitool.runtimes.flow import ToolResult
from multitool.tools import REGISTRY

if TYPE_CHECKING:
    from multitool.runtimes.claims import DraftClaims

GATEWAY_TOOL = "agentcore_gateway"
GATEWAY_TOOL_NAME = "multitool"
NOT_CLAIMED: dict[str, Any] = {
    "error": {
        "code": "draft_not_claimed",
        "message": "The draft this call made could not be given to the user; ask for it again.",
    }
}


def gateway_tools(gateway_arn: str, name: str = GATEWAY_TOOL_NAME) -> list[dict[str, Any]]:
    """The AgentCore Gateway as the harness's one tool source, reached with the harness's IAM role."""
    return [
        {
            "type": GATEWAY_TOOL,
            "name": name,
            "config": {"agentCoreGateway": {"gatewayArn": gateway_arn, "outboundAuth": {"awsIam": {}}}},
        }
    ]


def allowed_tools(tools: Sequence[Mapping[str, Any]]) -> list[str]:
    """``allowedTools`` naming exactly these tools: an inline function by name, a Gateway's tools as
    ``@<name>`` (every tool of that server); never the built-in shell and file tools."""
    return [f"@{tool['name']}" if tool.get("type") == GATEWAY_TOOL else str(tool["name"]) for tool in tools]


class GatewayResult(msgspec.Struct, frozen=True):
    """A call the harness ran through the Gateway, and the result it streamed (its content blocks)."""

    tool_use_id: str
    name: str
    content: tuple[Any, ...]
    status: str | None = None

    @property
    def tool(self) -> str:
        """The registry's name: the Gateway's ``<target>___<tool>`` without its target."""
        # The Gateway's side of the tools (their Lambda handling, caller signatures): only a harness
        # that runs its tools through the Gateway reads a result of it.
        from multitool.tools.gateway_target import tool_name_of

        return tool_name_of(self.name)

    def body(self) -> Any:
        """The tool's answer: the JSON block, or the text blocks parsed as JSON when they are."""
        texts: list[str] = []
        for block in self.content:
            if isinstance(block, Mapping) and isinstance(block.get("json"), Mapping):
                return dict(block["json"])
            if isinstance(block, Mapping) and isinstance(block.get("text"), str):
                texts.append(block["text"])
        text = "".join(texts)
        try:
            return json.loads(text)
        except ValueError:
            return text


def _draft_id(body: Any) -> str | None:
    draft = body.get("draftId") if isinstance(body, Mapping) else None
    return draft if isinstance(draft, str) else None


def record_gateway_results(
    results: Sequence[GatewayResult],
    claims: DraftClaims | None,
    user_id: str,
    recorder: TraceRecorder,
    trace_id: str,
) -> None:
    """Claim the drafts the results name for ``user_id``, then record each call and result."""
    if not results:
        return
    bodies = [result.body() for result in results]
    ids = [draft for draft in map(_draft_id, bodies) if draft is not None]
    owned = claims(user_id, ids) if claims is not None and ids else frozenset()
    for result, body in zip(results, bodies, strict=True):
        spec = REGISTRY.get(result.tool)
        group, path = (spec.action_group, spec.api_path) if spec else (None, None)
        recorder.call(trace_id, group, path, result.tool)
        draft = _draft_id(body)
        if draft is not None and draft not in owned:
            body = NOT_CLAIMED
        content = body if isinstance(body, Mapping) else str(body)
        recorder.result(
            trace_id, result_text(ToolResult(result.tool_use_id, content, result.status == "error"))
        )
