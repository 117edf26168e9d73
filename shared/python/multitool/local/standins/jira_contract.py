"""Requests checked against Atlassian's own description of the Jira REST API v3 (the committed subset).

``jira_openapi.json`` holds the operations of the Jira Cloud platform REST API v3 the Jira port
sends, and the component schemas their bodies reach, extracted from Atlassian's OpenAPI document by
``scripts/jira_openapi_subset.py`` (the source and commit are in its ``info.x-source``). The fake
Jira (:mod:`multitool.local.standins.jira_server`) checks every request with
:meth:`JiraContract.check_request` before answering it: the path and method are described (under
Atlassian's gateway, ``/ex/jira/{cloudId}`` first), every query parameter is one the operation
takes, and the body matches its schema *strictly* (a member the schema does not name is an error, as
a typo Jira would silently ignore should be). The checks are those of
:class:`~multitool.local.standins.graph_contract.GraphContract`, over this description.

A development tool: jsonschema is a dev dependency, and this module is not in the Lambda layer.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from multitool.local.standins.graph_contract import ContractViolation, GraphContract, Operation

DESCRIPTION = Path(__file__).with_name("jira_openapi.json")
_GATEWAY = re.compile(r"^/ex/jira/[^/]+(?=/)")


class JiraContract(GraphContract):
    """Jira's description: paths under the site or under Atlassian's gateway, basic or bearer auth."""

    def operation(self, method: str, url: str) -> Operation:
        parts = urlsplit(url)
        path = _GATEWAY.sub("", parts.path)
        for pattern, template in self._routes:
            found = pattern.match(path)
            if found is None:
                continue
            spec = self.document["paths"][template].get(method.lower())
            if spec is None:
                raise ContractViolation(f"{method} {template} is not in Jira's description (the subset)")
            params = {k: unquote(v) for k, v in found.groupdict().items()}
            query = dict(parse_qsl(parts.query, keep_blank_values=True))
            return Operation(method.upper(), template, params, query, spec)
        raise ContractViolation(f"{method} {path} is not a path of Jira's description (the subset)")

    def check_request(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None = None
    ) -> Operation:
        lower = {k.lower(): v for k, v in headers.items()}
        auth = lower.get("authorization", "")
        if not (auth.startswith("Basic ") or auth.startswith("Bearer ")):
            raise ContractViolation(f"{method} {url}: no basic or bearer credentials")
        # The described checks want a bearer token; Jira takes either (checked above).
        return super().check_request(method, url, {**lower, "authorization": "Bearer -"}, body)

    def _convert(self, schema: Mapping[str, Any], *, strict: bool, depth: int) -> dict[str, Any]:
        # Jira describes maps ("update": field name -> operations) with a schema in
        # additionalProperties, which may be a reference: converted like any other member.
        extra = schema.get("additionalProperties")
        if isinstance(extra, Mapping) and extra:
            schema = {
                **schema,
                "additionalProperties": super()._convert(extra, strict=strict, depth=depth + 1),
            }
        return super()._convert(schema, strict=strict, depth=depth)


@functools.cache
def jira_contract() -> JiraContract:
    return JiraContract(json.loads(DESCRIPTION.read_text(encoding="utf-8")))


__all__ = ["ContractViolation", "JiraContract", "jira_contract"]
