"""The HTTP API's OpenAPI 3.1 document, generated from the apps and the models they validate with.

``python -m multitool.api.openapi`` (``make openapi``, also run by ``make schemas``) writes
``docs/openapi.json``; a test fails when the committed document differs from what the code
generates (the action groups' documents are drift-checked the same way).

Powertools' resolver writes the document from the very apps the handlers serve
(:func:`multitool.api.chat_app.chat_app`, :func:`multitool.api.review_app.review_app`): every
route, its path parameters, operationId, summary and description, and its answers per status
with the models the routes declare (the reply, :class:`multitool.review.DraftView`, the error
bodies of :mod:`multitool.api.errors`, the ``Retry-After`` header), the JWT bearer scheme and
the security every route requires. Powertools derives request bodies and headers only from
parameters it validates itself (``enable_validation``); the apps do not enable it, because a
body is read before it can be validated here (``multitool.api.bodies``: a body flagged base64
that is not, nested JSON deeper than the decoder recurses), /chat replays stored bytes, a
confirm's body is the edits model of the draft's tool (known only once the draft is read),
and Powertools' 422 error shape is not the API's. So this module adds, from the same models:
the request bodies (:class:`multitool.chat.service.ChatRequest`; the tools' edits models for a
confirm), the ``Idempotency-Key`` header, and the cards as the union of the registry's card
models (``type`` is the discriminator) where the models say only "a card".
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.event_handler.openapi.models import HTTPBearer
from pydantic.json_schema import models_json_schema

import multitool
from multitool.api.chat_app import IDEMPOTENCY_HEADER, MAX_CURSOR, PREFER_HEADER, chat_app
from multitool.api.review_app import (
    PREREQUISITES_FIRST,
    PREREQUISITES_PARAMETER,
    ConfirmAllRequest,
    review_app,
)
from multitool.chat.service import ChatRequest
from multitool.tools import REGISTRY

DOCUMENT = Path(__file__).resolve().parents[4] / "docs" / "openapi.json"
"""Where the committed document lives (the repository's docs/)."""
OPENAPI_VERSION = "3.1.0"
REF = "#/components/schemas/{model}"
SECURITY_SCHEME = "jwt"
CLIENT_ACTION = "ClientAction"
_POWERTOOLS_ONLY = ("HTTPValidationError", "ValidationError", "ResponseValidationError")
TITLE = "multitool HTTP API"
DESCRIPTION = (
    "One chat message with several intents in, one reviewed card per action out. POST /chat answers "
    "the assistant's reply and the cards; each card is a draft that nothing sends, books or creates "
    "until its owner confirms it (POST /actions/{id}/confirm). Every route needs a signed-in user: "
    "a JWT from the stack's Cognito user pool (Authorization: Bearer <token>). Every error the "
    'functions answer is {"error": {"code", "message", "field"?}}; API Gateway\'s own refusals '
    '(the authorizer, a body over its limit) are {"message"}.'
)
IDEMPOTENCY_PARAMETER: dict[str, Any] = {
    "name": IDEMPOTENCY_HEADER,
    "in": "header",
    "required": False,
    "description": (
        "Makes a retry safe: the first response for this key and body is stored and answered again; "
        "the same key with another body is 422. 1-128 visible ASCII characters (a UUID), "
        "optionally in double quotes."
    ),
    "schema": {"type": "string", "pattern": '^(?:[!#-~]{1,128}|"[!#-~]{1,128}")$'},
}

PREFER_PARAMETER: dict[str, Any] = {
    "name": PREFER_HEADER,
    "in": "header",
    "required": False,
    "description": (
        "respond-async (RFC 7240): start the turn and answer 202 with its id at once; the turn may then "
        "run for minutes, and GET /turns/{id} shows its cards as they are made. Without it, the reply "
        "comes in the response, within API Gateway's 30 s."
    ),
    "schema": {"type": "string", "examples": ["respond-async"]},
}
CURSOR_PARAMETER: dict[str, Any] = {
    "name": "after",
    "in": "query",
    "required": False,
    "description": "The position to read events from: 0 (the default) or the previous answer's next",
    "schema": {"type": "integer", "minimum": 0, "maximum": MAX_CURSOR, "default": 0},
}
PREREQUISITES: dict[str, Any] = {
    "name": PREREQUISITES_PARAMETER,
    "in": "query",
    "required": False,
    "description": (
        f"{PREREQUISITES_FIRST}: confirm first every card this one waits for (its links), as proposed; "
        "without it, a card that waits for another answers 409 waits_for naming it"
    ),
    "schema": {"type": "string", "enum": [PREREQUISITES_FIRST]},
}
TURN_EVENTS = {"card": "CardEvent", "text": "TextEvent", "done": "DoneEvent", "failed": "FailedEvent"}


class _Unused:
    """The apps' service providers, never called: the document needs only the routes."""

    def __call__(self) -> Any:
        raise AssertionError("the OpenAPI document never serves a request")


def _apps() -> list[APIGatewayHttpResolver]:
    return [chat_app(_Unused(), described=True), review_app(_Unused())]


def _powertools_document(app: APIGatewayHttpResolver) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        text = app.get_openapi_json_schema(
            title=TITLE,
            version=multitool.__version__,
            openapi_version=OPENAPI_VERSION,
            security_schemes={SECURITY_SCHEME: HTTPBearer(bearerFormat="JWT")},
            security=[{SECURITY_SCHEME: []}],
        )
    document: dict[str, Any] = json.loads(text)
    return document


def _merge(target: dict[str, Any], more: dict[str, Any], what: str) -> None:
    for name, value in more.items():
        if name in target and target[name] != value:
            raise ValueError(f"Two different {what} are both named {name!r}.")
        target[name] = value


def _models() -> tuple[dict[str, Any], dict[str, Any]]:
    """The components and refs of the request bodies and the cards (the same models the code uses)."""
    cards = [spec.card.model for spec in REGISTRY.values()]
    # A read-only card has nothing to confirm (409 read_only): no edits of its own in the body.
    edits = [spec.action_review().edits_model for spec in REGISTRY.values() if not spec.card.read_only]
    refs, schema = models_json_schema(
        [
            (ChatRequest, "validation"),
            (ConfirmAllRequest, "validation"),
            *((m, "validation") for m in edits),
            *((c, "serialization") for c in cards),
        ],
        ref_template=REF,
    )
    names: dict[str, Any] = {
        "chat": refs[(ChatRequest, "validation")],
        "confirm_all": refs[(ConfirmAllRequest, "validation")],
    }
    names["edits"] = [refs[(m, "validation")] for m in edits]
    card_refs = [refs[(c, "serialization")] for c in cards]
    components: dict[str, Any] = dict(schema.get("$defs", {}))
    components[CLIENT_ACTION] = {
        "title": CLIENT_ACTION,
        "description": "A card for the user to review; type says which (one per tool).",
        "oneOf": card_refs,
        "discriminator": {
            "propertyName": "type",
            "mapping": {
                spec.action: ref["$ref"] for spec, ref in zip(REGISTRY.values(), card_refs, strict=True)
            },
        },
    }
    return components, names


def _replace_refs(node: Any, old: str, new: str) -> Any:
    if isinstance(node, dict):
        if node.get("$ref") == old:
            return {**node, "$ref": new}
        return {key: _replace_refs(value, old, new) for key, value in node.items()}
    if isinstance(node, list):
        return [_replace_refs(value, old, new) for value in node]
    return node


def _links() -> dict[str, Any]:
    """From a /chat reply to its first card's action: how a client (and Schemathesis) follows a draft."""
    card_id = "$response.body#/clientActions/0/id"
    return {
        name: {"operationId": operation, "parameters": {"id": card_id}, "description": description}
        for name, operation, description in (
            ("GetFirstAction", "getAction", "Read the first card's action"),
            ("ConfirmFirstAction", "confirmAction", "Confirm the first card's action"),
            ("DiscardFirstAction", "discardAction", "Discard the first card's action"),
        )
    }


def generate() -> dict[str, Any]:
    """The HTTP API's OpenAPI document."""
    paths: dict[str, Any] = {}
    components: dict[str, Any] = {}
    security: dict[str, Any] = {}
    for app in _apps():
        document = _powertools_document(app)
        _merge(paths, document["paths"], "paths")
        _merge(components, document["components"].get("schemas", {}), "schemas")
        _merge(security, document["components"].get("securitySchemes", {}), "security schemes")
    models, refs = _models()
    _merge(components, models, "schemas")
    for name in _POWERTOOLS_ONLY:
        components.pop(name, None)

    chat = paths["/chat"]["post"]
    chat["parameters"] = [IDEMPOTENCY_PARAMETER, PREFER_PARAMETER]
    chat["requestBody"] = {"required": True, "content": {"application/json": {"schema": refs["chat"]}}}
    chat["responses"]["200"]["links"] = _links()
    _describe_turns(chat, paths["/turns/{id}"]["get"], components)
    confirm = paths["/actions/{id}/confirm"]["post"]
    confirm["requestBody"] = {
        "required": False,
        "description": "The fields the user changed, of the action's tool (an empty body or {} changes none)",
        "content": {"application/json": {"schema": {"anyOf": refs["edits"]}}},
    }
    confirm["parameters"] = [*confirm.get("parameters", []), PREREQUISITES]
    paths["/actions/confirm-all"]["post"]["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": refs["confirm_all"]}},
    }
    view = components["DraftView"]["properties"]
    view["card"] = {
        "anyOf": [{"$ref": REF.format(model=CLIENT_ACTION)}, {"type": "null"}],
        **_kept(view["card"]),
    }
    # The models type a card as the base Card; on the wire it is one of the registry's cards.
    paths = _replace_refs(paths, REF.format(model="Card"), REF.format(model=CLIENT_ACTION))
    components = _replace_refs(components, REF.format(model="Card"), REF.format(model=CLIENT_ACTION))
    components.pop("Card", None)
    return {
        "openapi": OPENAPI_VERSION,
        "info": {"title": TITLE, "version": multitool.__version__, "description": DESCRIPTION},
        "paths": dict(sorted(paths.items())),
        "components": {"schemas": dict(sorted(components.items())), "securitySchemes": security},
        "security": [{SECURITY_SCHEME: []}],
    }


def _describe_turns(chat: dict[str, Any], get_turn: dict[str, Any], components: dict[str, Any]) -> None:
    """The 202's headers and its link to the turn, the cursor, and the events told apart by type."""
    chat["responses"]["202"]["headers"] = {
        "Location": {"description": "The turn's URL: /turns/{turnId}", "schema": {"type": "string"}},
        "Preference-Applied": {"description": "respond-async", "schema": {"type": "string"}},
    }
    chat["responses"]["202"]["links"] = {
        "GetTurn": {
            "operationId": "getTurn",
            "parameters": {"id": "$response.body#/turnId"},
            "description": "Follow the turn",
        }
    }
    get_turn["parameters"] = [*get_turn.get("parameters", []), CURSOR_PARAMETER]
    events = components["TurnView"]["properties"]["events"]
    events["items"]["oneOf"] = events["items"].pop("anyOf")
    events["items"]["discriminator"] = {
        "propertyName": "type",
        "mapping": {kind: REF.format(model=model) for kind, model in TURN_EVENTS.items()},
    }


def _kept(schema: dict[str, Any]) -> dict[str, Any]:
    return {key: schema[key] for key in ("title", "description") if key in schema}


def render() -> str:
    """The document as committed: sorted keys, two-space indent, trailing newline."""
    return json.dumps(generate(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write(target: Path = DOCUMENT) -> Path:
    target.write_text(render(), encoding="utf-8")
    return target


if __name__ == "__main__":
    print(f"wrote {write()}")
