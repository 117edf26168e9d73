"""The Bedrock action-group wire: typed property values, responses, and a never-raising resolve.

Bedrock passes every request-body property as ``{"name", "type", "value"}``
with the value as a *string*; arrays come as JSON (``["Kinshuok", "Priya"]``)
or, from some models, as the bare list text ``[Kinshuok, Priya]``. The
orchestrator's RETURN_CONTROL path receives the same shape, so both use
:func:`decode_properties`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from multitool.observability import error_fields, logger
from multitool.toolkit.errors import InvalidInput, ToolError, ToolFailed

MAX_EVENT_PROPERTIES = 50
MAX_PROPERTY_CHARS = 40_000

_REQUIRED_STRINGS = ("actionGroup", "apiPath", "httpMethod", "sessionId")


def _decode_array(name: str, text: str) -> list[Any]:
    try:
        value = json.loads(text)
    except RecursionError:  # nested deeper than the decoder recurses: no list of names
        raise InvalidInput(
            f"Property '{name}' is nested too deeply to be an array of names.", field=name
        ) from None
    except json.JSONDecodeError:
        stripped = text.strip()
        if not (stripped.startswith("[") and stripped.endswith("]")) or any(
            c in stripped[1:-1] for c in "[]{}"
        ):
            raise InvalidInput(
                f'Property \'{name}\' must be a JSON array such as ["Priya", "Kinshuok"].', field=name
            ) from None
        inner = stripped[1:-1].strip()
        return [part.strip().strip("\"'").strip() for part in inner.split(",")] if inner else []
    if not isinstance(value, list):
        raise InvalidInput(f"Property '{name}' must be an array.", field=name)
    return value


def decode_value(name: str, declared: str, value: Any) -> Any:
    """One property value as the type Bedrock declared for it."""
    if not isinstance(value, str):
        return value  # already typed (tests, RETURN_CONTROL replays)
    if len(value) > MAX_PROPERTY_CHARS:
        raise InvalidInput(f"Property '{name}' is longer than {MAX_PROPERTY_CHARS} characters.", field=name)
    kind = declared.lower()
    if kind == "array":
        return _decode_array(name, value)
    if kind == "object":
        try:
            decoded = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            raise InvalidInput(f"Property '{name}' must be a JSON object.", field=name) from None
        if not isinstance(decoded, dict):
            raise InvalidInput(f"Property '{name}' must be a JSON object.", field=name)
        return decoded
    if kind == "integer":
        try:
            return int(value.strip())
        except ValueError:
            raise InvalidInput(f"Property '{name}' must be a whole number.", field=name) from None
    if kind == "number":
        try:
            return float(value.strip())
        except ValueError:
            raise InvalidInput(f"Property '{name}' must be a number.", field=name) from None
    if kind == "boolean":
        lowered = value.strip().lower()
        if lowered not in ("true", "false"):
            raise InvalidInput(f"Property '{name}' must be true or false.", field=name)
        return lowered == "true"
    return value


def decode_properties(properties: Any) -> dict[str, Any]:
    """``[{"name", "type", "value"}]`` -> ``{name: typed value}``, or :class:`InvalidInput`."""
    if not isinstance(properties, list):
        raise InvalidInput("The request body properties must be a list.", field="requestBody")
    if len(properties) > MAX_EVENT_PROPERTIES:
        raise InvalidInput(f"At most {MAX_EVENT_PROPERTIES} properties are accepted.", field="requestBody")
    decoded: dict[str, Any] = {}
    for prop in properties:
        if not isinstance(prop, Mapping) or not isinstance(prop.get("name"), str) or "value" not in prop:
            raise InvalidInput("Every property needs a name and a value.", field="requestBody")
        name = prop["name"]
        if name in decoded:
            raise InvalidInput(f"Property '{name}' is given more than once.", field=name)
        declared = prop.get("type")
        decoded[name] = decode_value(name, declared if isinstance(declared, str) else "string", prop["value"])
    return decoded


def json_media(body: Any) -> Mapping[str, Any] | None:
    """``requestBody.content["application/json"]`` of an event or invocation input; None without a body.

    Raises :class:`InvalidInput` for a body of any other shape.
    """
    if body is None:
        return None
    content = body.get("content") if isinstance(body, Mapping) else None
    media = content.get("application/json") if isinstance(content, Mapping) else None
    if not isinstance(media, Mapping):
        raise InvalidInput("The request body must be application/json with properties.", field="requestBody")
    return media


def _typed_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the event whose request-body property values carry their declared types."""
    for key in _REQUIRED_STRINGS:
        if not isinstance(event.get(key), str) or not event[key]:
            raise InvalidInput(f"The event has no '{key}'.", field=key)
    for key in ("sessionAttributes", "promptSessionAttributes"):
        if event.get(key) is not None and not isinstance(event[key], Mapping):
            raise InvalidInput(f"'{key}' must be an object.", field=key)
    parameters = event.get("parameters")
    if parameters is not None and not (
        isinstance(parameters, list)
        and all(
            isinstance(p, Mapping) and isinstance(p.get("name"), str) and "value" in p for p in parameters
        )
    ):
        raise InvalidInput("'parameters' must be a list of {name, type, value}.", field="parameters")
    typed = dict(event)
    typed["sessionAttributes"] = dict(event.get("sessionAttributes") or {})
    typed["promptSessionAttributes"] = dict(event.get("promptSessionAttributes") or {})
    media = json_media(event.get("requestBody"))
    if media is None:
        return typed
    values = decode_properties(media.get("properties"))
    typed["requestBody"] = {
        "content": {"application/json": {"properties": [{"name": k, "value": v} for k, v in values.items()]}}
    }
    return typed


def action_response(event: Any, status: int, body: Mapping[str, Any]) -> dict[str, Any]:
    """A Bedrock action-group response, from whatever of the event is usable."""
    source: Mapping[str, Any] = event if isinstance(event, Mapping) else {}

    def text(key: str) -> str:
        value = source.get(key)
        return value if isinstance(value, str) else ""

    def attributes(key: str) -> dict[str, Any]:
        value = source.get(key)
        return dict(value) if isinstance(value, Mapping) else {}

    return {
        "messageVersion": "1.0",
        "response": {
            "actionGroup": text("actionGroup"),
            "apiPath": text("apiPath"),
            "httpMethod": text("httpMethod"),
            "httpStatusCode": status,
            "responseBody": {"application/json": {"body": json.dumps(body, ensure_ascii=False)}},
        },
        "sessionAttributes": attributes("sessionAttributes"),
        "promptSessionAttributes": attributes("promptSessionAttributes"),
    }


def resolve_action_event(
    resolve: Callable[[dict[str, Any], Any], dict[str, Any]], event: Any, context: Any
) -> dict[str, Any]:
    """Run the resolver on a well-formed event; answer anything else with a Bedrock 4xx/5xx response."""
    try:
        if not isinstance(event, Mapping):
            raise InvalidInput("The event must be a Bedrock action-group event object.", field="event")
        typed = _typed_event(event)
        response = resolve(typed, context)
    except ToolError as error:
        return action_response(event, error.status, error.to_body())
    except Exception as error:  # the last line of defence: Bedrock always gets a response
        # Type and place only: an exception's message may quote personal content.
        logger.error("Unhandled error resolving an action-group event", extra=error_fields(error))
        return action_response(event, 500, _internal_error_body())
    response.setdefault("sessionAttributes", typed["sessionAttributes"])
    response.setdefault("promptSessionAttributes", typed["promptSessionAttributes"])
    return response


def _internal_error_body() -> dict[str, Any]:
    return ToolFailed().to_body()
