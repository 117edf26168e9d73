"""The mapper registry: a tool payload's action string -> a typed client action (a card).

A payload ``{"action": "show_new_email_draft", "draftId": "d_…", …}`` becomes
the card ``{"type": "show_new_email_draft", "id": "d_…", …}``: the payload's
fields in camelCase, discriminated by ``type``. Each card type is its tool's
:class:`multitool.toolkit.cards.CardSpec` (its card model, its fingerprint, how two
payloads are recognised as the same action for trace dedupe, and its caption,
the one-line ``clientActionMessages`` text), read from the tool registry
(:data:`multitool.toolkit.registry.REGISTRY`) when it is needed: a newly
registered tool's card is mapped, deduped, captioned and in the union's JSON
Schema (``web/client-actions.schema.json``, written by
``python -m multitool.cards.client_actions``) with no change here.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypeVar, Union

from pydantic import ValidationError

from multitool.toolkit.cards import Card, CardSpec, Fingerprint
from multitool.toolkit.connect import CONNECT_ACTION, CONNECT_CARD
from multitool.tools import REGISTRY

if TYPE_CHECKING:
    from pydantic import TypeAdapter

SCHEMA_PATH = Path("web/client-actions.schema.json")


class ClientActionError(ValueError):
    """A payload that cannot become a card; the message names what is wrong."""


class UnknownActionError(ClientActionError):
    """The payload's action string has no registry entry."""


class InvalidPayloadError(ClientActionError):
    """The payload does not fit its card model."""


V = TypeVar("V")

# Cards no tool makes: the consent card, when the user's own account is not connected yet.
OTHER_CARDS: Mapping[str, CardSpec[Any]] = {CONNECT_ACTION: CONNECT_CARD}


def _card_spec(action: str) -> CardSpec[Any] | None:
    spec = REGISTRY.by_action(action)
    return spec.card if spec is not None else OTHER_CARDS.get(action)


class _ByAction(Mapping[str, V], Generic[V]):
    """A live view of the registry: action string -> one part of its tool's card."""

    def __init__(self, part: Callable[[CardSpec[Any]], V]) -> None:
        self._part = part

    def __getitem__(self, action: str) -> V:
        spec = _card_spec(action)
        if spec is None:
            raise KeyError(action)
        return self._part(spec)

    def __iter__(self) -> Iterator[str]:
        yield from REGISTRY.actions
        yield from OTHER_CARDS

    def __len__(self) -> int:
        return len(REGISTRY.actions) + len(OTHER_CARDS)


CARD_SPECS: Mapping[str, CardSpec[Any]] = _ByAction(lambda card: card)
"""action string -> card spec, from the registry."""
FINGERPRINTS: Mapping[str, Callable[[Any], Fingerprint]] = _ByAction(lambda card: card.fingerprint)
CAPTIONS: Mapping[str, Callable[[Any], str]] = _ByAction(lambda card: card.caption)
# Each card model's own pydantic-core validator: JSON text is parsed and validated in one Rust pass,
# without the Python-level wrapper of ``model_validate_json`` (same schema, same result).
JSON_VALIDATORS: Mapping[str, Callable[[str], Any]] = _ByAction(
    lambda card: card.model.__pydantic_validator__.validate_json
)


def card_from_payload(payload: Mapping[str, Any]) -> Card:
    """The card for a tool payload (``{"action", "draftId", …}``).

    Raises :class:`UnknownActionError` for an action string without an entry and
    :class:`InvalidPayloadError` for a payload its card model rejects.
    """
    action = payload.get("action")
    spec = _card_spec(action) if isinstance(action, str) else None
    if spec is None:
        raise UnknownActionError(f"No client action is registered for action {action!r}.")
    try:
        card: Card = spec.model.model_validate(payload)
    except ValidationError as error:
        raise InvalidPayloadError(f"Payload for {action} does not fit its card: {_problems(error)}") from None
    return card


def _problems(error: ValidationError) -> str:
    from multitool.validation import problems

    return problems(error, empty="payload")


def fingerprint(card: Card) -> tuple[str, Fingerprint]:
    """What makes two cards the same action: the card type and its fingerprint."""
    action = card.type
    return (action, FINGERPRINTS[action](card))


def caption(card: Card) -> str:
    """One human line for the card (``clientActionMessages``)."""
    return CAPTIONS[card.type](card)


def _card_type(value: Any) -> str | None:
    if isinstance(value, Mapping):
        found = value.get("type", value.get("action"))
        return found if isinstance(found, str) else None
    found = getattr(value, "type", None)
    return found if isinstance(found, str) else None


def client_action_adapter() -> TypeAdapter[Any]:
    """Validates and dumps any registered card, discriminated by ``type`` (or a payload's ``action``)."""
    return _adapter(REGISTRY.version)


@cache
def _adapter(_version: int) -> TypeAdapter[Any]:
    # Only the cards' JSON Schema reads it (a build step, a test): no request loads pydantic's TypeAdapter.
    from pydantic import Discriminator, Tag, TypeAdapter

    choices = tuple(Annotated[spec.model, Tag(action)] for action, spec in CARD_SPECS.items())
    union = Annotated[Union[choices], Discriminator(_card_type)]  # type: ignore[valid-type]  # noqa: UP007
    return TypeAdapter(union)


def client_action_schema() -> dict[str, Any]:
    """JSON Schema of the client action union, as the page receives cards (camelCase)."""
    schema = client_action_adapter().json_schema(by_alias=True, mode="serialization")
    names = {action: spec.model.__name__ for action, spec in CARD_SPECS.items()}
    schema["discriminator"] = {
        "propertyName": "type",
        "mapping": {action: f"#/$defs/{name}" for action, name in names.items()},
    }
    schema["title"] = "ClientAction"
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def schema_text() -> str:
    return json.dumps(client_action_schema(), indent=2, sort_keys=True) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or ``--check``) the client action JSON Schema for the web page."""
    import argparse  # the command line's alone: every function that maps cards imports this module

    parser = argparse.ArgumentParser(
        prog="python -m multitool.cards.client_actions", description=main.__doc__
    )
    parser.add_argument("path", nargs="?", type=Path, default=SCHEMA_PATH)
    parser.add_argument("--check", action="store_true", help="fail if the file differs from the code")
    args = parser.parse_args(argv)
    expected = schema_text()
    if args.check:
        current = args.path.read_text(encoding="utf-8") if args.path.exists() else ""
        if current != expected:
            print(
                f"{args.path} is out of date: run python -m multitool.cards.client_actions", file=sys.stderr
            )
            return 1
        return 0
    args.path.parent.mkdir(parents=True, exist_ok=True)
    args.path.write_text(expected, encoding="utf-8")
    print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
