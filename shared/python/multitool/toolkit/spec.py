"""A tool's spec: everything specific to one tool, declared once in its own module (its confirm,
when large, in a second module the spec names).

It names the card contract (:mod:`multitool.toolkit.cards`) and the confirm contract
(:mod:`multitool.toolkit.confirm`), both beside it in the tool contract, below the tools, the
cards and the review that read it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import msgspec
import msgspec.structs
from pydantic import BaseModel

from multitool.toolkit.cards import literal_action
from multitool.toolkit.context import ToolConfig, ToolContext
from multitool.toolkit.links import LINKS_HELP, Produced

if TYPE_CHECKING:
    from multitool.toolkit.cards import CardSpec
    from multitool.toolkit.common import Prepared
    from multitool.toolkit.confirm import ActionReview


class ToolSpec(msgspec.Struct, frozen=True):
    """Everything specific to one tool, in its own module; one registry line adds it.

    - ``name``: the operationId, also the Converse and harness tool name.
    - ``action_group``, ``api_path``, ``method``, ``group_description``: its Bedrock action
      group (one operation; its Lambda runs ``functions/tool`` for it).
    - ``description``: what the model reads about the tool.
    - ``args_model`` / ``payload_model``: what the model passes and what the tool returns.
    - ``prepare``: the domain logic, ``(args, ToolContext, ToolConfig) -> Prepared``; its payload
      need not carry ``action`` (the batch adds it).
    - ``action`` (derived, not passed): the payload model's ``action`` Literal, also the card's
      ``type`` and the draft's action.
    - ``card``: the card model, its fingerprint and caption (:class:`multitool.toolkit.cards.CardSpec`;
      ``CardSpec.of_payload`` derives all but the caption from the payload model).
    - ``review``: what a confirm does: edits model, content, side effect
      (:class:`multitool.toolkit.confirm.ActionReview`; ``ActionReview.overlay`` when the content is
      the payload's fields with the edits laid over them); or where it is, ``"module:NAME"``, for a
      tool whose confirm has a module of its own: only a confirm needs it, so the action group and
      the orchestrator, which only propose, never import it (its ports, the review's base). Read it
      through :meth:`action_review`.
    - ``nouns``: ``("an email draft", "email drafts")``, for sentences about its drafts.
    - ``produces``: the values its card produces once confirmed, by name (``{"key": Produced(...)}``
      for a ticket), which another call of the same turn may name (:mod:`multitool.toolkit.links`).
    - ``takes_links``: the arguments whose text may name such a value (``("subject", "body")``).
      The description the model reads says both (appended here, once).
    """

    name: str
    action_group: str
    api_path: str
    args_model: type[BaseModel]
    payload_model: type[BaseModel]
    description: str
    prepare: Callable[[Any, ToolContext, ToolConfig], Prepared]
    card: CardSpec[Any]
    review: ActionReview[Any, Any] | str
    group_description: str
    nouns: tuple[str, str]
    method: str = "POST"
    produces: Mapping[str, Produced] = msgspec.field(default_factory=dict)
    takes_links: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        action = self.action
        card_type = literal_action(self.card.model, "type")
        if card_type != action:
            raise TypeError(f"{self.name}: its card's type is '{card_type}', its payload's '{action}'.")
        if isinstance(self.review, str) and not _is_reference(self.review):
            raise TypeError(f"{self.name}: its review '{self.review}' is not 'package.module:NAME'.")
        for name in self.takes_links:
            if name not in self.args_model.model_fields:
                raise TypeError(f"{self.name}: takes_links names '{name}', which is no argument of it.")
        words = links_words(self.produces, self.takes_links)
        if words and words not in self.description:
            # The one place the model's description of a tool learns its links: every reader of
            # ``description`` (Converse, the harness, the action groups, the Gateway) says the same.
            msgspec.structs.force_setattr(self, "description", f"{self.description} {words}")

    def action_review(self) -> ActionReview[Any, Any]:
        """What a confirm of this tool does, its module imported the first time when ``review`` names it."""
        if not isinstance(self.review, str):
            return self.review
        module, name = self.review.split(":")
        review: ActionReview[Any, Any] = getattr(importlib.import_module(module), name)
        return review

    @property
    def action(self) -> str:
        """The payload's ``action`` (its card's ``type``): what a draft, a card and a confirm name it by."""
        return literal_action(self.payload_model, "action")

    @property
    def function_description(self) -> str:
        """The action-group Lambda's description."""
        return f"Bedrock action group: {self.nouns[1]} ({self.method} {self.api_path})"


def links_words(produces: Mapping[str, Produced], takes_links: tuple[str, ...]) -> str:
    """What the model reads of a tool's links: the values it produces, the arguments that may name one."""
    words = []
    if produces:
        values = "; ".join(f"{name}: {value.description}" for name, value in produces.items())
        words.append(
            "Once confirmed this produces values another call of this turn may name as "
            f"{{{{label.value}}}} (give this call a label): {values}."
        )
    if takes_links:
        fields = " and ".join(takes_links)
        words.append(
            f"Its {fields} may name what another call of this turn produces once confirmed: {LINKS_HELP}"
        )
    return " ".join(words)


def _is_reference(text: str) -> bool:
    """Whether ``text`` is ``package.module:NAME``, as a Python entry point names an object."""
    module, colon, name = text.partition(":")
    return bool(colon) and name.isidentifier() and all(part.isidentifier() for part in module.split("."))
