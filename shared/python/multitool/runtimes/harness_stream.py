"""Reading an ``invoke_harness`` response stream (botocore's ``InvokeHarnessStreamOutput`` events).

Read tolerantly: an unknown or malformed event is logged and skipped, never a crash; the
service's in-stream exceptions are raised as the ``ClientError`` botocore raises for them. Blocks
are routed by ``contentBlockIndex`` and keyed by ``toolUseId``; the reply is the final assistant
message's text, its inline calls still waiting for a result, the Gateway calls the harness made
with their results, and why the harness stopped. A model that thinks by default (:mod:`multitool.models`)
streams ``reasoningContent`` before its calls; the reply keeps those blocks, signature included, for
the resume to send back with the calls they preceded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
from botocore.exceptions import ClientError

from multitool.observability import logger
from multitool.runtimes.base import ModelFailed
from multitool.runtimes.harness_gateway import GatewayResult

SERVICE = "Amazon Bedrock AgentCore"
INLINE_TOOL_USE = "tool_use"
"""``toolUse.type`` of an inline function call (``server_tool_use``/``mcp_tool_use`` run in the harness)."""
GATEWAY_TOOL_USE = "mcp_tool_use"
"""``toolUse.type`` of a call the harness made through an MCP server or an AgentCore Gateway."""
_STREAM_EXCEPTIONS = frozenset(
    {
        "internalServerException",
        "validationException",
        "runtimeClientError",
        "throttlingException",
        "serviceUnavailableException",
        "accessDeniedException",
        "resourceNotFoundException",
        "serviceQuotaExceededException",
    }
)


class _Block(msgspec.Struct):
    """A content block being streamed: its deltas gathered until its stop event."""

    kind: str  # "text" | "reasoning" | "toolUse" | "toolResult"
    text: list[str] = msgspec.field(default_factory=list)
    signature: list[str] = msgspec.field(default_factory=list)
    redacted: bytes = b""
    tool_use_id: str = ""
    name: str = ""
    tool_type: str | None = None
    status: str | None = None
    content: list[Any] = msgspec.field(default_factory=list)


class _Message(msgspec.Struct):
    """A message being streamed: its blocks in order, and why it stopped."""

    role: str
    blocks: list[_Block] = msgspec.field(default_factory=list)
    stop_reason: str | None = None


class HarnessUse(msgspec.Struct, frozen=True):
    """One inline tool call of the response: its id, name and input as streamed (a JSON string)."""

    tool_use_id: str
    name: str
    input_json: str


class HarnessReply(msgspec.Struct, frozen=True):
    """What one ``invoke_harness`` stream said: the final assistant message's text, its inline
    calls still waiting for a result, and why the harness stopped."""

    text: str
    uses: tuple[HarnessUse, ...]
    stop_reason: str
    message_count: int = 0
    gateway: tuple[GatewayResult, ...] = ()
    reasoning: tuple[dict[str, Any], ...] = ()
    """The final message's ``reasoningContent`` blocks, in order, as InvokeHarness takes them back."""


def _malformed(what: str, **extra: Any) -> None:
    logger.warning("Skipped a malformed harness stream event", extra={"problem": what, **extra})


def _index(body: Mapping[str, Any]) -> int | None:
    index = body.get("contentBlockIndex")
    return index if isinstance(index, int) and not isinstance(index, bool) else None


def _stream_error(name: str, body: Any) -> ClientError:
    """A raw in-stream exception event as the ClientError botocore raises for it."""
    message = body.get("message") if isinstance(body, Mapping) else None
    text = message if isinstance(message, str) else ""
    return ClientError({"Error": {"Code": name, "Message": text}}, "InvokeHarness")


class _StreamReader:
    """Folds the events into messages; blocks are routed by index, but keyed by ``toolUseId``."""

    def __init__(self) -> None:
        self.messages: list[_Message] = []
        self.current: _Message | None = None
        self.open: dict[int, _Block] = {}

    def _message(self) -> _Message:
        if self.current is None:
            _malformed("content before messageStart")
            self.current = _Message("assistant")
            self.messages.append(self.current)
        return self.current

    def feed(self, event: Any) -> None:
        if not isinstance(event, Mapping):
            _malformed("event is not an object", event_type=type(event).__name__)
            return
        for name, body in event.items():
            if name in _STREAM_EXCEPTIONS:
                raise _stream_error(str(name), body)
            handler = getattr(self, f"_on_{name}", None) if isinstance(name, str) else None
            if handler is None:
                _malformed("unknown event", event=str(name)[:64])
            elif not isinstance(body, Mapping):
                _malformed("event body is not an object", event=name)
            else:
                handler(body)

    def _on_messageStart(self, body: Mapping[str, Any]) -> None:
        role = body.get("role")
        self.current = _Message(role if role in ("user", "assistant") else "assistant")
        self.messages.append(self.current)
        self.open = {}

    def _on_contentBlockStart(self, body: Mapping[str, Any]) -> None:
        index, start = _index(body), body.get("start")
        if index is None or not isinstance(start, Mapping):
            _malformed("contentBlockStart without index or start")
            return
        use, result = start.get("toolUse"), start.get("toolResult")
        if isinstance(use, Mapping):
            use_id, name = use.get("toolUseId"), use.get("name")
            if not isinstance(use_id, str) or not use_id or not isinstance(name, str) or not name:
                _malformed("toolUse start without toolUseId or name", index=index)
                return
            kind = use.get("type")
            tool_type = kind if isinstance(kind, str) else None
            block = _Block("toolUse", tool_use_id=use_id, name=name, tool_type=tool_type)
        elif isinstance(result, Mapping) and isinstance(result.get("toolUseId"), str):
            status = result.get("status")
            block = _Block(
                "toolResult",
                tool_use_id=result["toolUseId"],
                status=status if isinstance(status, str) else None,
            )
        else:
            _malformed("contentBlockStart of an unknown kind", index=index)
            return
        self.open[index] = block
        self._message().blocks.append(block)

    def _on_contentBlockDelta(self, body: Mapping[str, Any]) -> None:
        index, delta = _index(body), body.get("delta")
        if index is None or not isinstance(delta, Mapping):
            _malformed("contentBlockDelta without index or delta")
            return
        block = self.open.get(index)
        if isinstance(delta.get("text"), str):
            if block is None:  # text blocks have no contentBlockStart: the first delta opens them
                block = self.open[index] = _Block("text")
                self._message().blocks.append(block)
            if block.kind == "text":
                block.text.append(delta["text"])
            else:
                _malformed("text delta inside a tool block", index=index)
        elif isinstance(delta.get("toolUse"), Mapping):
            piece = delta["toolUse"].get("input")
            if block is None or block.kind != "toolUse" or not isinstance(piece, str):
                _malformed("toolUse delta without its toolUse start", index=index)
            else:
                block.text.append(piece)
        elif isinstance(delta.get("toolResult"), list):
            if block is None or block.kind != "toolResult":
                _malformed("toolResult delta without its toolResult start", index=index)
            else:
                block.content.extend(delta["toolResult"])
        elif isinstance(delta.get("reasoningContent"), Mapping):
            if block is None:  # like text, a reasoning block opens with its first delta
                block = self.open[index] = _Block("reasoning")
                self._message().blocks.append(block)
            if block.kind != "reasoning":
                _malformed("reasoning delta inside another block", index=index)
                return
            piece = delta["reasoningContent"]
            for name, into in (("text", block.text), ("signature", block.signature)):
                if isinstance(piece.get(name), str):
                    into.append(piece[name])
            if isinstance(piece.get("redactedContent"), bytes):
                block.redacted += piece["redactedContent"]
        # toolResultMetadata deltas: nothing this runtime reads.

    def _on_contentBlockStop(self, body: Mapping[str, Any]) -> None:
        index = _index(body)
        if index is None or self.open.pop(index, None) is None:
            _malformed("contentBlockStop of no open block", index=index)

    def _on_messageStop(self, body: Mapping[str, Any]) -> None:
        reason = body.get("stopReason")
        self._message().stop_reason = reason if isinstance(reason, str) else ""
        self.current, self.open = None, {}

    def _on_metadata(self, body: Mapping[str, Any]) -> None:
        usage = body.get("usage")
        if isinstance(usage, Mapping):
            logger.debug("Harness usage", extra={k: v for k, v in usage.items() if isinstance(v, int)})

    def _on_hookEvent(self, body: Mapping[str, Any]) -> None:
        # Prefixed: "name" would overwrite the log record's own attribute.
        logger.info(
            "Harness hook",
            extra={
                f"hook_{key}": str(body.get(key))[:64] for key in ("name", "type", "decision") if key in body
            },
        )

    def reply(self) -> HarnessReply:
        assistant = [m for m in self.messages if m.role == "assistant"]
        if not assistant:
            raise ModelFailed(f"{SERVICE} answered without a message.")
        final = assistant[-1]
        answered = {b.tool_use_id for m in self.messages for b in m.blocks if b.kind == "toolResult"}
        uses: list[HarnessUse] = []
        seen: set[str] = set()
        for block in final.blocks:
            if block.kind != "toolUse" or block.tool_type not in (None, INLINE_TOOL_USE):
                continue
            if block.tool_use_id in answered:
                continue
            if block.tool_use_id in seen:  # one answer per toolUseId: a repeated block is the same call
                _malformed("repeated toolUseId in one response", tool_use_id=block.tool_use_id)
                continue
            seen.add(block.tool_use_id)
            uses.append(HarnessUse(block.tool_use_id, block.name, "".join(block.text)))
        text = "".join("".join(b.text) for b in final.blocks if b.kind == "text")
        if final.stop_reason is None:
            _malformed("stream ended without messageStop")
        return HarnessReply(
            text,
            tuple(uses),
            final.stop_reason or "",
            len(self.messages),
            self._gateway_results(),
            tuple(_reasoning(b) for b in final.blocks if b.kind == "reasoning"),
        )

    def _gateway_results(self) -> tuple[GatewayResult, ...]:
        """Every Gateway call of the stream that has its result in it, once per toolUseId, in order."""
        results = {b.tool_use_id: b for m in self.messages for b in m.blocks if b.kind == "toolResult"}
        found: dict[str, GatewayResult] = {}
        for message in self.messages:
            for block in message.blocks:
                if block.kind != "toolUse" or block.tool_type != GATEWAY_TOOL_USE:
                    continue
                result = results.get(block.tool_use_id)
                if result is not None and block.tool_use_id not in found:
                    found[block.tool_use_id] = GatewayResult(
                        block.tool_use_id, block.name, tuple(result.content), result.status
                    )
        return tuple(found.values())


def _reasoning(block: _Block) -> dict[str, Any]:
    """A streamed reasoning block as InvokeHarness's ``HarnessReasoningContentBlock``."""
    if block.redacted:
        return {"redactedContent": block.redacted}
    text: dict[str, Any] = {"text": "".join(block.text)}
    if block.signature:
        text["signature"] = "".join(block.signature)
    return {"reasoningText": text}


def read_harness_stream(events: Iterable[Any]) -> HarnessReply:
    """The reply an ``invoke_harness`` event stream carries (raises ClientError for in-stream errors)."""
    reader = _StreamReader()
    for event in events:
        reader.feed(event)
    return reader.reply()
