"""Requests and responses checked against Microsoft Graph's own description (the committed subset).

``graph_openapi.json`` holds the paths and schemas of Graph v1.0 that the Microsoft 365 adapter
uses, extracted from microsoftgraph/msgraph-metadata by ``scripts/graph_openapi_subset.py`` (the
commit is in its ``info.x-source``). The tests and the local Graph stand-in
(:mod:`multitool.local.standins.graph_server`) check every request with :meth:`GraphContract.check_request`:
the path and method are described, every query option is one the operation takes (``$select``
only of the type's properties), and the body matches the schema *strictly* (a property the
schema does not name is an error, as a typo Graph would silently ignore should be); responses
the tests feed back are checked with :meth:`GraphContract.check_response`.

A development tool: jsonschema is a dev dependency, and this module is not in the Lambda layer.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import jsonschema  # type: ignore[import-untyped]

DESCRIPTION = Path(__file__).with_name("graph_openapi.json")
_REF = "#/components/schemas/"
_MAX_DEPTH = 12


class ContractViolation(AssertionError):
    """A request or response Graph's description does not allow."""


@dataclass(frozen=True, slots=True)
class Operation:
    method: str
    template: str
    path_params: dict[str, str]
    query: dict[str, str]
    spec: Mapping[str, Any]


class GraphContract:
    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.schemas: Mapping[str, Any] = document["components"]["schemas"]
        self.source: Mapping[str, str] = document["info"]["x-source"]
        self._routes = [
            (re.compile("^" + re.sub(r"\{([^}]+)\}", _group, t) + "$"), t) for t in document["paths"]
        ]

    def operation(self, method: str, url: str) -> Operation:
        parts = urlsplit(url)
        path = parts.path
        prefix = urlsplit(self.document["servers"][0]["url"]).path
        if path.startswith(prefix + "/"):
            path = path[len(prefix) :]
        for pattern, template in self._routes:
            found = pattern.match(path)
            if found is None:
                continue
            spec = self.document["paths"][template].get(method.lower())
            if spec is None:
                raise ContractViolation(f"{method} {template} is not in Graph's description")
            params = {k.replace("_", "-"): unquote(v) for k, v in found.groupdict().items()}
            query = dict(parse_qsl(parts.query, keep_blank_values=True))
            return Operation(method.upper(), template, params, query, spec)
        raise ContractViolation(f"{method} {path} is not a path of Graph's description (the subset)")

    def check_request(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None = None
    ) -> Operation:
        op = self.operation(method, url)
        lower = {k.lower(): v for k, v in headers.items()}
        if not lower.get("authorization", "").startswith("Bearer "):
            raise ContractViolation(f"{method} {op.template}: no bearer token")
        declared = {p["name"]: p for p in op.spec.get("parameters", ()) if p["in"] == "query"}
        for name, value in op.query.items():
            if name not in declared:
                raise ContractViolation(f"{method} {op.template}: query option {name} is not described")
            self._check_query(op, declared[name], value)
        missing = [name for name, p in declared.items() if p.get("required") and name not in op.query]
        if missing:
            raise ContractViolation(f"{method} {op.template}: required query option {missing[0]} is missing")
        request_body = op.spec.get("requestBody")
        if request_body is None:
            if body:
                raise ContractViolation(f"{method} {op.template} takes no body")
            return op
        if not lower.get("content-type", "").startswith("application/json"):
            raise ContractViolation(f"{method} {op.template}: the body must be application/json")
        try:
            data = json.loads(body or b"")
        except ValueError as error:
            raise ContractViolation(f"{method} {op.template}: the body is not JSON ({error})") from None
        schema = request_body["content"]["application/json"]["schema"]
        self._validate(self.strict(schema), data, f"{method} {op.template} request body")
        return op

    def check_response(self, method: str, url: str, status: int, body: Any) -> None:
        op = self.operation(method, url)
        responses = op.spec["responses"]
        described = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX")
        if described is None:
            raise ContractViolation(f"{method} {op.template} does not answer {status}")
        if "$ref" in described:
            described = self.document["components"]["responses"][described["$ref"].rsplit("/", 1)[-1]]
        content = described.get("content")
        if content is None:
            if body not in (None, b"", ""):
                raise ContractViolation(f"{method} {op.template} answers {status} with no body")
            return
        schema = content["application/json"]["schema"]
        self._validate(self.loose(schema), body, f"{method} {op.template} response {status}")

    # -- schemas ---------------------------------------------------------------------------

    def loose(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        """The OpenAPI 3.0 schema as JSON Schema, as Graph describes it (extra properties allowed)."""
        return self._convert(schema, strict=False, depth=0)

    def strict(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        """The same, with every object closed: only the properties the description names."""
        return self._convert(schema, strict=True, depth=0)

    def _convert(self, schema: Mapping[str, Any], *, strict: bool, depth: int) -> dict[str, Any]:
        if depth > _MAX_DEPTH:
            return {}
        if "$ref" in schema:
            return self._convert(
                self.schemas[schema["$ref"].removeprefix(_REF)], strict=strict, depth=depth + 1
            )
        if "allOf" in schema:
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                converted = self._convert(part, strict=False, depth=depth + 1)
                merged.update(converted.get("properties", {}))
            return self._object(merged, strict=strict, depth=depth)
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in ("nullable", "title", "format", "x-ms-discriminator-value", "discriminator"):
                continue
            if key == "properties":
                continue
            if key == "items":
                out["items"] = self._convert(value, strict=strict, depth=depth + 1)
            elif key in ("anyOf", "oneOf"):
                out[key] = [self._convert(v, strict=strict, depth=depth + 1) for v in value]
            else:
                out[key] = value
        if "properties" in schema:
            closed = self._object(schema["properties"], strict=strict, depth=depth, raw=True)
            out.update(closed)
        if schema.get("nullable"):
            if "type" in out:
                out["type"] = [out["type"], "null"]
            else:
                out = {"anyOf": [out, {"type": "null"}]}
        return out

    def _object(
        self, properties: Mapping[str, Any], *, strict: bool, depth: int, raw: bool = False
    ) -> dict[str, Any]:
        converted = {
            name: self._convert(value, strict=strict, depth=depth + 1) if raw else value
            for name, value in properties.items()
        }
        if not raw and strict:  # the merged parts were converted loose: close them again
            converted = {name: _closed(value) for name, value in converted.items()}
        out: dict[str, Any] = {"type": "object", "properties": converted}
        if strict:
            out["patternProperties"] = {r"^@odata\.": {}}
            out["additionalProperties"] = False
        return out

    def _check_query(self, op: Operation, parameter: Mapping[str, Any], value: str) -> None:
        schema = parameter.get("schema", {"type": "string"})
        where = f"{op.method} {op.template} {parameter['name']}"
        data: Any = value
        if schema.get("type") == "array":
            data = value.split(",")
        elif schema.get("type") == "integer":
            if not re.fullmatch(r"-?[0-9]+", value):
                raise ContractViolation(f"{where}: {value!r} is not an integer")
            data = int(value)
        elif schema.get("type") == "boolean":
            if value not in ("true", "false"):
                raise ContractViolation(f"{where}: {value!r} is not true or false")
            data = value == "true"
        self._validate(self.loose(schema), data, where)

    @staticmethod
    def _validate(schema: Mapping[str, Any], data: Any, where: str) -> None:
        errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(data), key=lambda e: list(e.path))
        if errors:
            first = errors[0]
            at = "/".join(str(p) for p in first.path) or "(root)"
            raise ContractViolation(f"{where} at {at}: {first.message[:300]}")


def _group(placeholder: re.Match[str]) -> str:
    return f"(?P<{placeholder.group(1).replace('-', '_')}>[^/]+)"


def _closed(schema: dict[str, Any]) -> dict[str, Any]:
    """A loose converted schema with its objects closed (used for merged allOf members)."""
    kind = schema.get("type")
    if (kind == "object" or (isinstance(kind, list) and "object" in kind)) and "properties" in schema:
        schema = {
            **schema,
            "properties": {k: _closed(v) for k, v in schema["properties"].items()},
            "patternProperties": {r"^@odata\.": {}},
            "additionalProperties": False,
        }
    if "items" in schema:
        schema = {**schema, "items": _closed(schema["items"])}
    for key in ("anyOf", "oneOf"):
        if key in schema:
            schema = {**schema, key: [_closed(v) for v in schema[key]]}
    return schema


@functools.cache
def graph_contract() -> GraphContract:
    return GraphContract(json.loads(DESCRIPTION.read_text(encoding="utf-8")))
