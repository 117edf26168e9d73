"""InvokeHarness event streams in botocore's shapes, and a client double that checks every request.

Builders for the ``stream`` events boto3 yields from
``bedrock-agentcore.invoke_harness`` (``InvokeHarnessStreamOutput``): each
builder's event is checked against the service model's member shape, so a
fixture cannot drift from what the service sends. :class:`ScriptedHarness`
validates every request against the ``InvokeHarness`` input shape and replays
one scripted stream per call; an in-stream exception is raised while iterating,
as botocore does (``EventStreamError``). :func:`encode_events` renders events as
the binary event stream on the wire, for tests through a real boto3 client.
"""

from __future__ import annotations

import binascii
import json
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import EventStreamError
from botocore.validate import validate_parameters
from multitool.runtimes.offline_harness import invoke_harness_operation, validate_invoke_harness

HARNESS_ARN = "arn:aws:bedrock-agentcore:us-east-1:123456789012:harness/multitool_chat-a1b2c3d4e5"


def stream_shape() -> Any:
    """The ``InvokeHarnessStreamOutput`` union shape (one member per event type)."""
    output = invoke_harness_operation().output_shape
    assert output is not None
    return output.members["stream"]


def stop_reasons() -> list[str]:
    """Every ``HarnessStopReason`` the service model allows."""
    shape = stream_shape().members["messageStop"].members["stopReason"]
    return list(shape.enum)


def checked(event: dict[str, Any]) -> dict[str, Any]:
    """The event, after checking it against its shape in the service model (raises if it does not fit)."""
    validate_parameters(event, stream_shape())
    return event


@dataclass(frozen=True)
class Raw:
    """An event replayed as it is, unchecked: for malformed-stream tests."""

    event: Any


# --------------------------------------------------------------------------- events


def message_start(role: str = "assistant") -> dict[str, Any]:
    return checked({"messageStart": {"role": role}})


def text(index: int, *pieces: str) -> list[dict[str, Any]]:
    """A text block streamed as one delta per piece (text blocks have no contentBlockStart)."""
    deltas = [
        checked({"contentBlockDelta": {"contentBlockIndex": index, "delta": {"text": piece}}})
        for piece in pieces
    ]
    return [*deltas, block_stop(index)]


def tool_use(
    index: int, tool_use_id: str, name: str, args: Any, *, pieces: int = 1, kind: str = "tool_use"
) -> list[dict[str, Any]]:
    """A toolUse block: its start, its input JSON split into ``pieces`` deltas, its stop."""
    raw = args if isinstance(args, str) else json.dumps(args)
    size = max(1, -(-len(raw) // pieces))
    chunks = [raw[i : i + size] for i in range(0, len(raw), size)] or []
    start = {"toolUseId": tool_use_id, "name": name, "type": kind}
    events = [checked({"contentBlockStart": {"contentBlockIndex": index, "start": {"toolUse": start}}})]
    events += [
        checked({"contentBlockDelta": {"contentBlockIndex": index, "delta": {"toolUse": {"input": chunk}}}})
        for chunk in chunks
    ]
    return [*events, block_stop(index)]


def reasoning(index: int, *pieces: str, signature: str = "c2lnbmF0dXJl") -> list[dict[str, Any]]:
    """A reasoning block (a model that thinks by default): text deltas, then its signature, then its stop."""
    deltas = [
        checked(
            {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"reasoningContent": {"text": p}}}}
        )
        for p in pieces
    ]
    signed = {"contentBlockIndex": index, "delta": {"reasoningContent": {"signature": signature}}}
    return [*deltas, checked({"contentBlockDelta": signed}), block_stop(index)]


def tool_result(index: int, tool_use_id: str, body: Any) -> list[dict[str, Any]]:
    """A toolResult block the harness streams for a tool it ran itself (server side)."""
    start = {"toolUseId": tool_use_id, "status": "success"}
    return [
        checked({"contentBlockStart": {"contentBlockIndex": index, "start": {"toolResult": start}}}),
        checked(
            {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"toolResult": [{"json": body}]}}}
        ),
        block_stop(index),
    ]


def block_stop(index: int) -> dict[str, Any]:
    return checked({"contentBlockStop": {"contentBlockIndex": index}})


def message_stop(reason: str) -> dict[str, Any]:
    return checked({"messageStop": {"stopReason": reason}})


def metadata(input_tokens: int = 20, output_tokens: int = 10) -> dict[str, Any]:
    usage = {
        "inputTokens": input_tokens,
        "outputTokens": output_tokens,
        "totalTokens": input_tokens + output_tokens,
    }
    return checked({"metadata": {"usage": usage, "metrics": {"latencyMs": 120}}})


def hook_event(
    name: str = "audit", kind: str = "before_tool_call", decision: str = "allow"
) -> dict[str, Any]:
    return checked(
        {
            "hookEvent": {
                "hookEventId": "0f8fad5b-d9cb-469f-a165-70867728950e",
                "name": name,
                "type": kind,
                "decision": decision,
            }
        }
    )


def stream_error(code: str, message: str = "Something went wrong.") -> EventStreamError:
    """What botocore raises while iterating when the stream carries the exception event ``code``."""
    member = stream_shape().members[code]
    assert member.metadata.get("exception"), code
    return EventStreamError({"Error": {"Code": code, "Message": message}}, "InvokeHarness")


def response(*parts: Any, stop: str | None = "end_turn", usage: bool = True) -> list[Any]:
    """One assistant message: messageStart, the parts (events or lists of events), messageStop, metadata."""
    events: list[Any] = [message_start()]
    for part in parts:
        events.extend(part if isinstance(part, list) else [part])
    if stop is not None:
        events.append(message_stop(stop))
    if usage:
        events.append(metadata())
    return events


def calls(*uses: tuple[str, str, Any], pieces: int = 1, lead: str | None = None) -> list[Any]:
    """A response that pauses on the given inline calls (after an optional lead text)."""
    parts: list[Any] = [text(0, lead)] if lead else []
    offset = len(parts)
    for position, (use_id, name, args) in enumerate(uses):
        parts.append(tool_use(offset + position, use_id, name, args, pieces=pieces))
    return response(*parts, stop="tool_use")


def answer(*pieces: str, stop: str = "end_turn") -> list[Any]:
    return response(text(0, *pieces), stop=stop)


# --------------------------------------------------------------------------- the client double


class ScriptedHarness:
    """``invoke_harness`` that validates each request and replays the next scripted stream.

    A script is a list of events (an ``Exception`` among them is raised at that point
    of the iteration, a :class:`Raw` is yielded unchecked) or an ``Exception`` raised by the call.
    """

    def __init__(self, *scripts: Any) -> None:
        self.scripts = list(scripts)
        self.requests: list[dict[str, Any]] = []

    def invoke_harness(self, **kwargs: Any) -> dict[str, Any]:
        validate_invoke_harness(kwargs)
        self.requests.append(json.loads(json.dumps(kwargs, default=str)))
        script = self.scripts.pop(0)
        if isinstance(script, Exception):
            raise script
        return {"ResponseMetadata": {"HTTPStatusCode": 200}, "stream": self._replay(script)}

    @staticmethod
    def _replay(script: list[Any]) -> Iterator[Any]:
        for event in script:
            if isinstance(event, Exception):
                raise event
            yield event.event if isinstance(event, Raw) else event

    def tool_results(self, call: int) -> list[dict[str, Any]]:
        """The toolResult blocks request ``call`` sent back."""
        return [
            b["toolResult"]
            for m in self.requests[call]["messages"]
            for b in m["content"]
            if "toolResult" in b
        ]


# --------------------------------------------------------------------------- the wire


def _header(name: str, value: str) -> bytes:
    encoded = value.encode()
    return bytes([len(name)]) + name.encode() + b"\x07" + struct.pack(">H", len(encoded)) + encoded


def _message(headers: Mapping[str, str], payload: bytes) -> bytes:
    head = b"".join(_header(name, value) for name, value in headers.items())
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack(">I", binascii.crc32(body))


def encode_events(events: list[Any]) -> bytes:
    """The binary ``application/vnd.amazon.eventstream`` body for events (and exception events)."""
    out = b""
    for event in events:
        if isinstance(event, EventStreamError):
            error = event.response["Error"]
            headers = {
                ":message-type": "exception",
                ":exception-type": error["Code"],
                ":content-type": "application/json",
            }
            out += _message(headers, json.dumps({"message": error["Message"]}).encode())
            continue
        ((name, body),) = event.items()
        headers = {":message-type": "event", ":event-type": name, ":content-type": "application/json"}
        out += _message(headers, json.dumps(body).encode())
    return out
