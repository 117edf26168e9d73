"""The Edit modal: a card's editable fields, read from its tool's edits model, and its submission.

The fields are the tool's own edits model (:class:`multitool.toolkit.confirm.ActionReview`'s
``edits_model``, the body ``POST /actions/{id}/confirm`` takes), read from its JSON Schema, so any
tool's card gets its modal with no code here:

- a text: ``plain_text_input`` (several lines above :data:`MULTILINE_FROM` characters), with the
  model's ``maxLength`` as far as Block Kit allows (3000); a text already longer than Block Kit lets
  a modal hold is left to the page (said in the modal), never cut;
- one of a few values (an ``enum``): ``static_select``;
- a list of names or addresses: one ``plain_text_input``, comma-separated;
- a time slot (an object of ``start`` and ``end``): ``static_select`` of the card's slots.

Every input is optional: a field left as it was is sent as it was, one emptied is left out (the
confirm keeps the draft's). Submitting confirms with those edits through the reviewer, which
validates them as the review API does; its ``InvalidEdits`` is shown on the field it names
(``response_action: errors``, https://docs.slack.dev/surfaces/modals/#displaying_errors).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slack_sdk.models.blocks import (
    ContextBlock,
    InputBlock,
    MarkdownTextObject,
    Option,
    PlainTextInputElement,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from multitool.drafts import Draft
from multitool.slack.blocks import MAX_OPTION_CHARS, MAX_OPTIONS, clipped, label, slot_words
from multitool.tools import REGISTRY

CALLBACK_ID = "mt:edit"
MAX_INPUT_CHARS = 3000
MULTILINE_FROM = 300
BLOCK_PREFIX = "e:"
VALUE = "value"


def _edit_schema(action: str) -> tuple[dict[str, Any], dict[str, Any]]:
    spec = REGISTRY.by_action(action)
    if spec is None:
        return {}, {}
    schema = spec.action_review().edits_model.model_json_schema(by_alias=True)
    return schema.get("properties", {}), schema.get("$defs", {})


def _resolved(prop: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    """A property without its ``null`` alternative and ``$ref``."""
    for choice in prop.get("anyOf", ()):
        if choice.get("type") != "null":
            return _resolved(choice, defs)
    ref = prop.get("$ref")
    if isinstance(ref, str):
        return dict(defs.get(ref.rsplit("/", 1)[-1], {}))
    return dict(prop)


def _kind(prop: Mapping[str, Any]) -> str | None:
    if "enum" in prop:
        return "choice"
    if prop.get("type") == "string":
        return "text"
    if prop.get("type") == "array" and prop.get("items", {}).get("type") == "string":
        return "names"
    if prop.get("type") == "object" and {"start", "end"} <= set(prop.get("properties", {})):
        return "slot"
    return None


def _initial(draft: Draft, name: str) -> Any:
    """What the field holds now: as last confirmed, else as drafted."""
    if draft.edits and name in draft.edits:
        return draft.edits[name]
    return draft.payload.get(name)


def _names_text(value: Any) -> str:
    items = value if isinstance(value, list) else [value] if value else []
    shown: list[str] = []
    for item in items:
        if isinstance(item, Mapping):
            person = item.get("person") or {}
            item = (
                person.get("email")
                if isinstance(person, Mapping) and person.get("email")
                else item.get("query") or item.get("email")
            )
        if isinstance(item, str) and item:
            shown.append(item)
    return ", ".join(shown)


def edit_view(draft: Draft, private_metadata: str) -> dict[str, Any]:
    """The modal (a ``views.open`` view) of the draft's editable fields."""
    props, defs = _edit_schema(draft.action)
    blocks: list[Any] = []
    left: list[str] = []
    for name, raw in props.items():
        prop = _resolved(raw, defs)
        kind = _kind(prop)
        value = _initial(draft, name)
        block_id = BLOCK_PREFIX + name
        element: PlainTextInputElement | StaticSelectElement
        if kind == "text":
            text = value if isinstance(value, str) else _names_text(value)
            if len(text) > MAX_INPUT_CHARS:
                left.append(label(name))
                continue
            limit = min(int(prop.get("maxLength", MAX_INPUT_CHARS)), MAX_INPUT_CHARS)
            element = PlainTextInputElement(
                action_id=VALUE,
                initial_value=text or None,
                multiline=limit > MULTILINE_FROM,
                max_length=limit,
            )
        elif kind == "names":
            text = _names_text(value)
            if len(text) > MAX_INPUT_CHARS:
                left.append(label(name))
                continue
            element = PlainTextInputElement(action_id=VALUE, initial_value=text or None)
        elif kind == "choice":
            options = [Option(value=str(v), text=clipped(str(v), MAX_OPTION_CHARS)) for v in prop["enum"]]
            current = next((o for o in options if o.value == str(value)), None)
            element = StaticSelectElement(
                action_id=VALUE, options=options[:MAX_OPTIONS], initial_option=current
            )
        elif kind == "slot":
            slots = draft.payload.get("slots") or []
            zone = draft.payload.get("timezone")
            options = [
                Option(value=str(i), text=clipped(slot_words(_SlotView(s), zone), MAX_OPTION_CHARS))
                for i, s in enumerate(slots)
                if isinstance(s, Mapping)
            ][:MAX_OPTIONS]
            if not options:
                continue
            element = StaticSelectElement(action_id=VALUE, options=options, placeholder="Choose a time")
        else:
            continue
        hint = "Names or email addresses, separated by commas" if kind == "names" else None
        blocks.append(
            InputBlock(block_id=block_id, label=label(name), element=element, optional=True, hint=hint)
        )
    if left:
        words = f"{', '.join(left)}: longer than Slack lets a form hold; edit it on the page."
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=words)]))
    view = View(
        type="modal",
        callback_id=CALLBACK_ID,
        title="Edit the card",
        submit="Confirm",
        close="Cancel",
        private_metadata=private_metadata,
        blocks=blocks,
    )
    return view.to_dict()


class _SlotView:
    """A stored slot (``{"start", "end"}``, ISO 8601) as :func:`slot_words` reads one."""

    def __init__(self, wire: Mapping[str, Any]) -> None:
        from datetime import datetime

        self.start = datetime.fromisoformat(str(wire["start"]))
        self.end = datetime.fromisoformat(str(wire["end"]))


def modal_edits(draft: Draft, state: Mapping[str, Any]) -> dict[str, Any]:
    """The confirm's edits from a submitted modal's ``state.values``."""
    props, defs = _edit_schema(draft.action)
    values = state.get("values") or {}
    edits: dict[str, Any] = {}
    for name, raw in props.items():
        entry = (values.get(BLOCK_PREFIX + name) or {}).get(VALUE) or {}
        kind = _kind(_resolved(raw, defs))
        option = entry.get("selected_option")
        text = entry.get("value")
        if kind == "slot" and isinstance(option, Mapping):
            slots = draft.payload.get("slots") or []
            index = str(option.get("value") or "")
            if index.isdigit() and int(index) < len(slots):
                edits[name] = slots[int(index)]
        elif kind == "choice" and isinstance(option, Mapping):
            edits[name] = option.get("value")
        elif kind == "names" and isinstance(text, str) and text.strip():
            edits[name] = [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]
        elif kind == "text" and isinstance(text, str) and text.strip():
            edits[name] = text
    return edits


def modal_errors(view: Mapping[str, Any], message: str, field: str | None) -> dict[str, Any]:
    """``response_action: errors``: ``message`` on the block of ``field`` (``to[0]`` -> ``e:to``),
    else on the first input."""
    inputs = [b.get("block_id") for b in view.get("blocks") or () if b.get("type") == "input"]
    wanted = BLOCK_PREFIX + field.split("[", 1)[0].split(".", 1)[0] if field else None
    block = wanted if wanted in inputs else (inputs[0] if inputs else None)
    if block is None:
        return {"response_action": "errors", "errors": {}}
    return {"response_action": "errors", "errors": {block: clipped(message, 2000)}}
