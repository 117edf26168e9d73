"""InvokeHarness on loopback: the offline harness behind the service's own wire, for a real boto3 client.

``AWS_ENDPOINT_URL_BEDROCK_AGENTCORE`` (or a client's ``endpoint_url``) points a
``bedrock-agentcore`` client here, so a process runs ``RUNTIME=agentcore`` exactly as
deployed (its botocore loads the service model, signs, serializes the request and parses
the event stream) while the answers come from :class:`OfflineHarness`. The wire is read
from botocore's ``InvokeHarness`` operation model, not written down here: ``POST
/harnesses/invoke``, ``harnessArn`` and ``qualifier`` in the query string, the members
the model places in headers (``runtimeSessionId`` as
``X-Amzn-Bedrock-AgentCore-Runtime-Session-Id``, ...) from those headers, the rest from
the JSON body. The answer is ``application/vnd.amazon.eventstream``: one binary message
per stream event (``:message-type`` ``event``, ``:event-type`` the member's name, the
event's fields as the JSON payload); a request the input shape refuses, or that the
harness refuses, is a rest-json error (``x-amzn-ErrorType``, ``{"message"}``).

Used where a child process must meet the harness over HTTP (``python -m benchmarks
cold_start``); in process the runtime takes an :class:`OfflineHarness` directly. It is a
development stand-in: it checks no signature and answers this machine's programs only
(:class:`multitool.local.standins.stand_in.StandInServer`: a ``Host`` naming this machine, no ``Origin``).
"""

from __future__ import annotations

import binascii
import json
import struct
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

from botocore.exceptions import ClientError, ParamValidationError

from multitool.local.standins.stand_in import StandInHandler, StandInServer
from multitool.runtimes.offline_harness import OfflineHarness, invoke_harness_operation

EVENT_STREAM = "application/vnd.amazon.eventstream"
_STRING_HEADER = 7  # the event stream's header value type for a UTF-8 string


def request_params(path: str, headers: Mapping[str, str], body: bytes) -> dict[str, Any]:
    """The ``invoke_harness`` parameters a request on the wire carries, placed by the operation model.

    Raises ``ValueError`` for a body that is not a JSON object.
    """
    operation = invoke_harness_operation()
    shape = operation.input_shape
    assert shape is not None  # the model always has one
    query = parse_qs(urlsplit(path).query, keep_blank_values=True)
    lowered = {name.lower(): value for name, value in headers.items()}
    loaded = json.loads(body or b"{}")
    if not isinstance(loaded, dict):
        raise ValueError("The request body is not a JSON object.")
    params: dict[str, Any] = {}
    for member, member_shape in shape.members.items():
        location = member_shape.serialization.get("location")
        wire_name = member_shape.serialization.get("name", member)
        if location == "querystring":
            if wire_name in query:
                params[member] = query[wire_name][-1]
        elif location == "header":
            if wire_name.lower() in lowered:
                params[member] = lowered[wire_name.lower()]
        elif member in loaded:
            params[member] = loaded[member]
    unknown = sorted(set(loaded) - set(params))
    if unknown:  # the service refuses a body member its model does not have; so does the validator
        params.update({name: loaded[name] for name in unknown})
    return params


def _header(name: str, value: str) -> bytes:
    encoded = value.encode()
    head = bytes([len(name)]) + name.encode() + bytes([_STRING_HEADER])
    return head + struct.pack(">H", len(encoded)) + encoded


def event_message(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One binary event stream message: prelude (lengths, CRC), headers, payload, message CRC."""
    head = b"".join(_header(name, value) for name, value in headers.items())
    prelude = struct.pack(">II", 12 + len(head) + len(payload) + 4, len(head))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    message = prelude + head + payload
    return message + struct.pack(">I", binascii.crc32(message))


def encode_stream(events: Iterable[Mapping[str, Any]]) -> bytes:
    """The ``InvokeHarnessStreamOutput`` events as the binary stream botocore parses."""
    out = bytearray()
    for event in events:
        ((name, fields),) = event.items()
        headers = {":message-type": "event", ":event-type": name, ":content-type": "application/json"}
        out += event_message(headers, json.dumps(fields).encode())
    return bytes(out)


class _Handler(StandInHandler):
    server: HarnessEndpoint
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        if urlsplit(self.path).path != invoke_harness_operation().http["requestUri"]:
            self._error(404, "UnknownOperationException", "Only InvokeHarness is served here.")
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            params = request_params(self.path, dict(self.headers.items()), body)
            answer = self.server.harness.invoke_harness(**params)
            stream = encode_stream(answer["stream"])
        except ValueError as error:  # includes a body that is not JSON
            self._error(400, "ValidationException", str(error))
            return
        except ParamValidationError as error:
            self._error(400, "ValidationException", " ".join(str(error).split()))
            return
        except ClientError as error:
            details = error.response["Error"]
            self._error(400, str(details.get("Code")), str(details.get("Message")))
            return
        self.send_body(200, stream, EVENT_STREAM)

    def _error(self, status: int, code: str, message: str) -> None:
        self.send_json(status, {"message": message}, {"x-amzn-ErrorType": code})


class HarnessEndpoint(StandInServer):
    """The loopback endpoint serving ``harness`` (an :class:`OfflineHarness`); ``url`` is its address."""

    def __init__(self, harness: OfflineHarness, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(_Handler, host, port, name="harness")
        self.harness = harness
