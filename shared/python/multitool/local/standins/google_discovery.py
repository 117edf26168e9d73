"""Google's own API descriptions, as the tests and the local Google stand-in read them.

Google publishes a discovery document per API; google-api-python-client ships the current ones
inside its package (``googleapiclient/discovery_cache/documents``). This module reads the four the
Google Workspace adapters call (Calendar v3, Gmail v1, People v1, and Admin Directory v1 for the
record) straight from those files, without importing the client library, and checks a request
the way Google's front end would: the method and path template, every path and query parameter
(known, typed, enum, repeated, required), and the JSON body against the method's request schema
by ``$ref``, unknown and read-only properties refused. Responses the tests and the stand-in feed back go
through the same check against the method's response schema, so no fixture carries a field
Google does not describe.

Discovery documents describe no error body; Google's error format is the one its API design
guide and each API's errors page show (``{"error": {"code", "message", "status", "errors":
[{"domain", "reason", "message"}]}}``): https://cloud.google.com/apis/design/errors and
https://developers.google.com/workspace/calendar/api/guides/errors . :func:`error_body` builds
it, and :data:`ERROR_SCHEMA` checks it in the same schema language.

The client library is a development dependency only: :func:`load_discovery` returns None when it
is not installed, and the stand-in then serves without validating (``make demo`` still starts).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from http import HTTPStatus
from importlib.util import find_spec
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

DOCUMENTS = ("calendar.v3.json", "gmail.v1.json", "people.v1.json", "admin.directory_v1.json")

# Google's canonical status names for the HTTP statuses its APIs answer (google.rpc.Code).
_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ALREADY_EXISTS",
    410: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "integer"},
                "message": {"type": "string"},
                "status": {"type": "string"},
                "errors": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "domain": {"type": "string"},
                            "reason": {"type": "string"},
                            "message": {"type": "string"},
                            "location": {"type": "string"},
                            "locationType": {"type": "string"},
                        },
                    },
                },
                "details": {"type": "array", "items": {"type": "any"}},
            },
        }
    },
}


class DiscoveryMismatch(ValueError):
    """A request or response that the provider's description does not allow."""


def error_body(status: int, reason: str, message: str, *, domain: str = "global") -> dict[str, Any]:
    """Google's JSON error body for ``status`` with one error of ``reason``."""
    return {
        "error": {
            "code": status,
            "message": message,
            "status": _STATUS_NAMES.get(status, HTTPStatus(status).name),
            "errors": [{"domain": domain, "reason": reason, "message": message}],
        }
    }


@dataclass(frozen=True, slots=True)
class Operation:
    """One method of one API, as its discovery document describes it."""

    api: str
    id: str
    http_method: str
    full_path: str  # "/calendar/v3/calendars/{calendarId}/events"
    parameters: Mapping[str, Any] = field(repr=False)
    request_ref: str | None
    response_ref: str | None
    scopes: tuple[str, ...] = field(repr=False)
    document: Mapping[str, Any] = field(repr=False)

    @property
    def pattern(self) -> re.Pattern[str]:
        regex = re.sub(
            r"\{(\+?)([A-Za-z0-9_]+)\}",
            lambda m: f"(?P<{m.group(2)}>{'.+' if m.group(1) else '[^/]+'})",
            re.escape(self.full_path).replace(r"\{", "{").replace(r"\}", "}").replace(r"\+", "+"),
        )
        return re.compile(f"^{regex}$")


@dataclass(frozen=True, slots=True)
class CheckedRequest:
    operation: Operation
    path: Mapping[str, str]
    query: Mapping[str, list[str]]
    body: Any


class Discovery:
    """The loaded documents: :meth:`check_request`, :meth:`check_response`, :meth:`operation`."""

    def __init__(self, documents: Sequence[Mapping[str, Any]]) -> None:
        self._operations: list[Operation] = []
        for document in documents:
            root = urlsplit(str(document["rootUrl"])).path
            base = root + str(document.get("servicePath", ""))
            self._collect(document, document, base)

    def _collect(self, document: Mapping[str, Any], node: Mapping[str, Any], base: str) -> None:
        for method in (node.get("methods") or {}).values():
            self._operations.append(
                Operation(
                    api=f"{document['name']}.{document['version']}",
                    id=str(method["id"]),
                    http_method=str(method["httpMethod"]),
                    full_path="/" + (base + str(method.get("flatPath") or method["path"])).lstrip("/"),
                    parameters={**(document.get("parameters") or {}), **(method.get("parameters") or {})},
                    request_ref=(method.get("request") or {}).get("$ref"),
                    response_ref=(method.get("response") or {}).get("$ref"),
                    scopes=tuple(method.get("scopes") or ()),
                    document=document,
                )
            )
        for child in (node.get("resources") or {}).values():
            self._collect(document, child, base)

    def operation(self, method_id: str) -> Operation:
        for operation in self._operations:
            if operation.id == method_id:
                return operation
        raise KeyError(method_id)

    def match(self, http_method: str, path: str) -> tuple[Operation, dict[str, str]]:
        for operation in self._operations:
            if operation.http_method != http_method.upper():
                continue
            found = operation.pattern.match(path)
            if found:
                return operation, {k: unquote(v) for k, v in found.groupdict().items()}
        raise DiscoveryMismatch(f"No method of Google's discovery documents is {http_method} {path}")

    def check_request(self, http_method: str, url: str, body: bytes | None) -> CheckedRequest:
        """The method ``http_method url`` calls, its parameters and body, each checked."""
        parts = urlsplit(url)
        operation, path_values = self.match(http_method, parts.path)
        query: dict[str, list[str]] = {}
        for name, value in parse_qsl(parts.query, keep_blank_values=True):
            query.setdefault(name, []).append(value)
        for name, spec in operation.parameters.items():
            location = spec.get("location")
            if location == "path":
                if spec.get("required") and not path_values.get(name):
                    raise DiscoveryMismatch(f"{operation.id}: path parameter {name} is required")
            elif spec.get("required") and name not in query:
                raise DiscoveryMismatch(f"{operation.id}: query parameter {name} is required")
        for name, values in query.items():
            spec = operation.parameters.get(name)
            if spec is None or spec.get("location") != "query":
                raise DiscoveryMismatch(f"{operation.id}: unknown query parameter {name!r}")
            if len(values) > 1 and not spec.get("repeated"):
                raise DiscoveryMismatch(f"{operation.id}: query parameter {name} is not repeated")
            for value in values:
                _check_parameter(operation.id, name, spec, value)
        payload: Any = None
        if body:
            if operation.request_ref is None:
                raise DiscoveryMismatch(f"{operation.id} takes no request body")
            try:
                payload = json.loads(body)
            except ValueError as error:
                raise DiscoveryMismatch(f"{operation.id}: the body is not JSON") from error
            self.check_value(operation, {"$ref": operation.request_ref}, payload, "body", request=True)
        elif operation.request_ref is not None and http_method.upper() in ("POST", "PUT", "PATCH"):
            raise DiscoveryMismatch(f"{operation.id} needs a {operation.request_ref} body")
        return CheckedRequest(operation=operation, path=path_values, query=query, body=payload)

    def check_response(self, operation: Operation, status: int, body: Any) -> None:
        """``body`` is what ``operation`` answers with ``status`` (its schema, or Google's error)."""
        if status >= 400:
            _check_schema(operation, ERROR_SCHEMA, body, "error body", request=False)
            return
        if operation.response_ref is None:
            if body not in (None, b"", ""):
                raise DiscoveryMismatch(f"{operation.id} answers with no body")
            return
        self.check_value(operation, {"$ref": operation.response_ref}, body, "response", request=False)

    def check_value(
        self, operation: Operation, schema: Mapping[str, Any], value: Any, where: str, *, request: bool
    ) -> None:
        _check_schema(operation, schema, value, where, request=request)


def _check_parameter(method_id: str, name: str, spec: Mapping[str, Any], value: str) -> None:
    kind = spec.get("type", "string")
    if kind == "integer":
        if not re.fullmatch(r"-?\d+", value):
            raise DiscoveryMismatch(f"{method_id}: {name}={value!r} is not an integer")
        number = int(value)
        if "minimum" in spec and number < int(spec["minimum"]):
            raise DiscoveryMismatch(f"{method_id}: {name} is below {spec['minimum']}")
        if "maximum" in spec and number > int(spec["maximum"]):
            raise DiscoveryMismatch(f"{method_id}: {name} is above {spec['maximum']}")
    elif kind == "boolean" and value not in ("true", "false"):
        raise DiscoveryMismatch(f"{method_id}: {name}={value!r} is not a boolean")
    if "enum" in spec and value not in spec["enum"]:
        raise DiscoveryMismatch(f"{method_id}: {name}={value!r} is not one of {spec['enum']}")


def _check_schema(
    operation: Operation, schema: Mapping[str, Any], value: Any, where: str, *, request: bool
) -> None:
    if "$ref" in schema:
        ref = str(schema["$ref"])
        schemas = operation.document.get("schemas") or {}
        if ref not in schemas:
            raise DiscoveryMismatch(f"{operation.id}: unknown schema {ref}")
        _check_schema(operation, schemas[ref], value, where, request=request)
        return
    kind = schema.get("type", "any")
    if kind == "any":
        return
    if kind == "object":
        if not isinstance(value, dict):
            raise DiscoveryMismatch(f"{operation.id}: {where} must be an object")
        properties: Mapping[str, Any] = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in properties:
                if request and _read_only(properties[key]):
                    raise DiscoveryMismatch(f"{operation.id}: {where}.{key} is read-only")
                _check_schema(operation, properties[key], item, f"{where}.{key}", request=request)
            elif extra is not None:
                _check_schema(operation, extra, item, f"{where}[{key!r}]", request=request)
            else:
                raise DiscoveryMismatch(f"{operation.id}: {where} has no property {key!r}")
        if request:
            for key, prop in properties.items():
                needed = prop.get("annotations", {}).get("required", ())
                if operation.id in needed and key not in value:
                    raise DiscoveryMismatch(f"{operation.id}: {where}.{key} is required")
        return
    if kind == "array":
        if not isinstance(value, list):
            raise DiscoveryMismatch(f"{operation.id}: {where} must be an array")
        for index, item in enumerate(value):
            _check_schema(operation, schema.get("items") or {}, item, f"{where}[{index}]", request=request)
        return
    if kind == "string":
        if not isinstance(value, str):
            raise DiscoveryMismatch(f"{operation.id}: {where} must be a string")
        _check_format(operation.id, where, schema.get("format"), value)
        if "enum" in schema and value not in schema["enum"]:
            raise DiscoveryMismatch(f"{operation.id}: {where}={value!r} is not one of {schema['enum']}")
        return
    if kind == "integer":
        # int64 travels as a JSON string in Google's APIs; int32 as a number.
        if (
            schema.get("format") in ("int64", "uint64")
            and isinstance(value, str)
            and re.fullmatch(r"-?\d+", value)
        ):
            return
        if isinstance(value, bool) or not isinstance(value, int):
            raise DiscoveryMismatch(f"{operation.id}: {where} must be an integer")
        return
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise DiscoveryMismatch(f"{operation.id}: {where} must be a number")
        return
    if kind == "boolean":
        if not isinstance(value, bool):
            raise DiscoveryMismatch(f"{operation.id}: {where} must be a boolean")
        return
    raise DiscoveryMismatch(f"{operation.id}: {where} has an unknown schema type {kind!r}")


def _read_only(schema: Mapping[str, Any]) -> bool:
    """Output only: People marks it ``readOnly``; Calendar says "Read-only." in the description."""
    description = str(schema.get("description", ""))
    return (
        bool(schema.get("readOnly")) or "Read-only." in description or description.startswith("Output only.")
    )


def _check_format(method_id: str, where: str, fmt: str | None, value: str) -> None:
    if fmt == "date-time":
        # RFC 3339: a full date, a time and an offset (Z or +hh:mm).
        if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", value):
            raise DiscoveryMismatch(f"{method_id}: {where}={value!r} is not an RFC 3339 date-time")
        datetime.fromisoformat(value)
    elif fmt == "date":
        if not re.fullmatch(r"\d{4}-\d\d-\d\d", value):
            raise DiscoveryMismatch(f"{method_id}: {where}={value!r} is not a date")
    elif fmt == "byte":
        try:
            base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        except (binascii.Error, ValueError) as error:
            raise DiscoveryMismatch(f"{method_id}: {where} is not base64") from error
        if not re.fullmatch(r"[A-Za-z0-9_\-+/]*={0,2}", value):
            raise DiscoveryMismatch(f"{method_id}: {where} is not base64")


def documents_folder() -> Path | None:
    """Where google-api-python-client keeps its discovery documents, if it is installed."""
    spec = find_spec("googleapiclient")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "discovery_cache" / "documents"
    return folder if folder.is_dir() else None


def load_discovery() -> Discovery | None:
    """The four documents, or None when the client library (a development dependency) is absent."""
    folder = documents_folder()
    if folder is None:
        return None
    return Discovery([json.loads((folder / name).read_text(encoding="utf-8")) for name in DOCUMENTS])
