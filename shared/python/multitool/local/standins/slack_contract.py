"""Web API requests and answers checked against Slack's published description (the committed subset).

``slack_openapi.json`` (built by :mod:`.slack_openapi`) lists, per method, its arguments (name,
type, required) and its success and error answers. A request is read the way Slack reads it, which
the description (Swagger 2.0, one HTTP verb and one ``in`` per argument) does not say in full:

* "Pass arguments as GET querystring parameters, POST parameters presented as
  application/x-www-form-urlencoded, or a mix of both" and "most write methods allow arguments with
  application/json" (https://docs.slack.dev/apis/web-api, "Basic overview" and "POST bodies"): so a
  described argument is taken from the query, a form body or a JSON body alike, whatever ``in`` and
  verb the description gives it (it has ``views.open`` as a GET with query arguments; every SDK
  posts it as JSON).
* "To make use of sending JSON on write operations, you must provide your token value using an
  Authorization HTTP header" (https://docs.slack.dev/changelog/2017-10-keeping-up-with-the-jsons):
  a JSON body's token is the bearer token; a form or query may carry ``token`` instead.
* An argument the description types ``string`` and calls "JSON-based" or "JSON-encoded" (``blocks``,
  ``attachments``, ``view``) is that JSON as a string in a form, and the array or object itself in
  a JSON body.

Each refusal is a :class:`SlackRefusal` carrying the error code Slack answers with
(``{"ok": false, "error": code}``): ``not_authed`` (no token), ``invalid_auth`` (a wrong one),
``unknown_method``, ``invalid_arg_name`` (an argument the method does not describe),
``invalid_arguments`` (a required one missing, a value of the wrong type, JSON that does not parse),
``invalid_json``, ``invalid_form_data``. A development tool: jsonschema is a dev dependency.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import jsonschema  # type: ignore[import-untyped]

from multitool.local.standins.slack_openapi import SUBSET

_JSON_ARGUMENT = re.compile(r"JSON-(based|encoded)", re.IGNORECASE)


class SlackRefusal(Exception):
    """A request Slack refuses: ``error`` is the code of its answer, ``detail`` says why in words."""

    def __init__(self, error: str, detail: str) -> None:
        super().__init__(f"{error}: {detail}")
        self.error = error
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Call:
    """A Web API request as Slack reads it: the method, the token, and the arguments by name (JSON
    values where the request was JSON or the argument is JSON-encoded, else the strings sent)."""

    method: str
    token: str
    arguments: dict[str, Any]


class SlackContract:
    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.source: Mapping[str, str] = document["info"]["x-source"]

    @property
    def methods(self) -> tuple[str, ...]:
        return tuple(path.removeprefix("/") for path in self.document["paths"])

    def operation(self, method: str) -> Mapping[str, Any]:
        path = self.document["paths"].get(f"/{method}")
        if path is None:
            raise SlackRefusal("unknown_method", f"{method} is not a method of the description (the subset)")
        return next(iter(path.values()))

    def read_request(self, method: str, headers: Mapping[str, str], query: str, body: bytes) -> Call:
        """The call a request makes, checked: every argument described and of its type, every required
        one present, a token given; a :class:`SlackRefusal` otherwise."""
        operation = self.operation(method)
        lower = {k.lower(): v for k, v in headers.items()}
        arguments: dict[str, Any] = dict(parse_qsl(query, keep_blank_values=True))
        kind = lower.get("content-type", "").split(";", 1)[0].strip().lower()
        bearer = lower.get("authorization", "")
        if body:
            if kind == "application/json":
                if not bearer.startswith("Bearer "):
                    raise SlackRefusal(
                        "not_authed", "a JSON body needs the token in the Authorization header"
                    )
                try:
                    sent = json.loads(body)
                except ValueError as error:
                    raise SlackRefusal("invalid_json", f"the body is not JSON ({error})") from None
                if not isinstance(sent, dict):
                    raise SlackRefusal("json_not_object", "the JSON body must be an object")
                arguments.update(sent)
            elif kind == "application/x-www-form-urlencoded":
                try:
                    arguments.update(parse_qsl(body.decode(), keep_blank_values=True, strict_parsing=True))
                except (UnicodeDecodeError, ValueError) as error:
                    raise SlackRefusal("invalid_form_data", f"the form does not parse ({error})") from None
            else:
                raise SlackRefusal(
                    "invalid_post_type", f"{kind or 'no Content-Type'} is not a body Slack reads"
                )
        token = bearer.removeprefix("Bearer ") if bearer.startswith("Bearer ") else arguments.pop("token", "")
        arguments.pop("token", None)
        if not token:
            raise SlackRefusal("not_authed", f"{method}: no token (Authorization: Bearer, or token=)")
        described = {
            p["name"]: p for p in operation.get("parameters", ()) if p["in"] in ("query", "formData")
        }
        for name, value in arguments.items():
            parameter = described.get(name)
            if parameter is None:
                raise SlackRefusal("invalid_arg_name", f"{method} describes no argument {name!r}")
            arguments[name] = _typed(method, parameter, value)
        for name, parameter in described.items():
            if parameter.get("required") and name != "token" and name not in arguments:
                raise SlackRefusal(
                    "invalid_arguments", f"{method}: the required argument {name!r} is missing"
                )
        return Call(method, str(token), arguments)

    def check_answer(self, method: str, answer: Mapping[str, Any]) -> None:
        """That ``answer`` is one the description gives ``method``: its success schema when ``ok``, its
        error schema otherwise (an error code of its ``enum`` where it lists them); AssertionError if not."""
        responses = self.operation(method)["responses"]
        schema = responses["200" if answer.get("ok") else "default"]["schema"]
        resolved = {**schema, "definitions": self.document["definitions"]}
        errors = sorted(
            jsonschema.Draft4Validator(resolved).iter_errors(answer), key=lambda e: list(e.absolute_path)
        )
        if errors:
            where = "/".join(str(p) for p in errors[0].absolute_path) or "(root)"
            raise AssertionError(f"{method} answer at {where}: {errors[0].message[:300]}")


def _typed(method: str, parameter: Mapping[str, Any], value: Any) -> Any:
    """An argument's value as the description types it; JSON-encoded strings parsed."""
    name, kind = parameter["name"], parameter.get("type", "string")
    wrong = SlackRefusal("invalid_arguments", f"{method} {name}: {value!r} is not a {kind}")
    if kind == "string" and _JSON_ARGUMENT.search(parameter.get("description", "")):
        if isinstance(value, (list, dict)):
            return value
        if not isinstance(value, str):
            raise wrong
        try:
            return json.loads(value)
        except ValueError:
            raise SlackRefusal("invalid_arguments", f"{method} {name}: not JSON-encoded") from None
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if str(value).lower() in ("true", "1", "false", "0"):
            return str(value).lower() in ("true", "1")
        raise wrong
    if kind in ("integer", "number"):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", value):
            return value  # a ts travels as its string
        raise wrong
    if not isinstance(value, str):
        raise wrong
    return value


@functools.cache
def slack_contract() -> SlackContract:
    return SlackContract(json.loads(SUBSET.read_text(encoding="utf-8")))
