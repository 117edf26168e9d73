"""A tool's spec: everything specific to one tool, declared once in its own module.

It names the card contract (:mod:`multitool.cards.base`) and the confirm contract
(:mod:`multitool.review.base`); :mod:`multitool.tools.base` stays below both, so the review's
and the tools' shared types can import it without coming back here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from multitool.tools.base import ToolConfig, ToolContext

if TYPE_CHECKING:
    from multitool.cards.base import CardSpec
    from multitool.review.base import ActionReview
    from multitool.tools.common import Prepared


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """Everything specific to one tool, in its own module; one registry line adds it.

    - ``name``: the operationId, also the Converse and harness tool name.
    - ``action_group``, ``api_path``, ``method``, ``group_description``: its Bedrock action
      group (one operation; the Lambda folder ``functions/<action_group>``).
    - ``description``: what the model reads about the tool.
    - ``args_model`` / ``payload_model``: what the model passes and what the tool returns.
    - ``prepare``: the domain logic, ``(args, ToolContext, ToolConfig) -> Prepared``.
    - ``action``: the payload's action string, also the card's ``type`` and the draft's action.
    - ``card``: the card model, its fingerprint and caption (:class:`multitool.cards.base.CardSpec`).
    - ``review``: what a confirm does: edits model, content, side effect
      (:class:`multitool.review.base.ActionReview`).
    - ``nouns``: ``("an email draft", "email drafts")``, for sentences about its drafts.
    """

    name: str
    action_group: str
    api_path: str
    args_model: type[BaseModel]
    payload_model: type[BaseModel]
    action: str
    description: str
    prepare: Callable[[Any, ToolContext, ToolConfig], Prepared]
    card: CardSpec[Any]
    review: ActionReview[Any, Any]
    group_description: str
    nouns: tuple[str, str]
    method: str = "POST"

    @property
    def function_description(self) -> str:
        """The action-group Lambda's description."""
        return f"Bedrock action group: {self.nouns[1]} ({self.method} {self.api_path})"
