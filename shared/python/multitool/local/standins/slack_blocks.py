"""Block Kit's rules, as Slack's own SDK models them: a message's blocks and a modal's view, checked.

Each block is read with ``slack_sdk.models.blocks.Block.parse`` and written back with ``to_dict()``,
which runs every model's ``validate_json`` on the way down (its ``JsonValidator`` limits: a
section's text 3,000 characters and 10 fields, a header's 150, a button's text 75 and value 2,000,
an ``action_id`` or ``block_id`` 255, a select's options 100, an actions block's elements 25, ...).
A view is read with ``slack_sdk.models.views.View`` (title, submit and close 24 characters,
``private_metadata`` 3,000, ``callback_id`` 255, 100 blocks). What the models do not hold, Slack's
reference does, and is checked here:

* at most 50 blocks in a message, 100 in a modal: "Blocks: Maximum of 50 blocks in a message and
  100 blocks in a modal or Home tab" (https://docs.slack.dev/reference/block-kit/blocks);
* a message's ``text`` is truncated past 40,000 characters and the post refused (``msg_too_long``,
  https://docs.slack.dev/reference/methods/chat.postMessage, "Truncating content");
* a field a model does not know, or a text given as a string where a text object is required: the
  model drops or rewrites it, so reading back what it wrote shows it (Slack answers
  ``invalid_blocks`` for both).

Every function answers the problems found, as sentences; none means valid.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

MAX_MESSAGE_BLOCKS = 50
MAX_VIEW_BLOCKS = 100
MAX_MESSAGE_TEXT = 40_000


def message_problems(blocks: Any, *, limit: int = MAX_MESSAGE_BLOCKS) -> list[str]:
    """What is wrong with a message's ``blocks`` under Block Kit's rules."""
    if not isinstance(blocks, list):
        return ["blocks must be an array of block objects"]
    problems: list[str] = []
    if len(blocks) > limit:
        problems.append(f"{len(blocks)} blocks: at most {limit} are allowed")
    for index, block in enumerate(blocks):
        problems.extend(f"blocks[{index}]: {p}" for p in block_problems(block))
    return problems


def block_problems(block: Any) -> list[str]:
    """What is wrong with one block (its elements and text objects included)."""
    from slack_sdk.errors import SlackObjectFormationError
    from slack_sdk.models.blocks import Block

    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        return ["a block must be an object with a type"]
    try:
        parsed = Block.parse(block)
        if parsed is None:
            return [f"{block['type']!r} is not a block type"]
        written = parsed.to_dict()
    except (SlackObjectFormationError, TypeError, ValueError, KeyError, AttributeError) as error:
        return [f"{block['type']} block: {error}"]
    return list(_differences(block, written, block["type"]))


def view_problems(view: Any) -> list[str]:
    """What is wrong with a view (``views.open``/``views.update``) under Block Kit's rules."""
    from slack_sdk.errors import SlackObjectFormationError
    from slack_sdk.models.views import View

    if not isinstance(view, dict):
        return ["view must be a view object"]
    problems = [f"view.{p}" for p in message_problems(view.get("blocks"), limit=MAX_VIEW_BLOCKS)]
    if problems:
        return problems
    try:
        written = View(**view).to_dict()
    except (SlackObjectFormationError, TypeError, ValueError, KeyError, AttributeError) as error:
        return [f"view: {error}"]
    if view.get("type") != "modal":
        return ["view: only modals are opened by this app (type must be modal)"]
    outer = {k: v for k, v in view.items() if k != "blocks"}
    return [f"view: {p}" for p in _differences(outer, written, "view")]


def text_problems(text: Any) -> list[str]:
    """What is wrong with a message's top-level ``text``."""
    if text is None:
        return []
    if not isinstance(text, str):
        return ["text must be a string"]
    if len(text) > MAX_MESSAGE_TEXT:
        return [f"text is {len(text)} characters: at most {MAX_MESSAGE_TEXT}"]
    return []


def _differences(sent: Any, written: Any, where: str) -> Iterator[str]:
    """Where the model's reading differs from what was sent: a field dropped or a value rewritten."""
    if isinstance(sent, dict) and isinstance(written, dict):
        for key, value in sent.items():
            if key not in written:
                yield f"{where}: unknown field {key!r}"
            else:
                yield from _differences(value, written[key], f"{where}.{key}")
    elif isinstance(sent, list) and isinstance(written, list) and len(sent) == len(written):
        for index, (a, b) in enumerate(zip(sent, written, strict=True)):
            yield from _differences(a, b, f"{where}[{index}]")
    elif isinstance(sent, dict) != isinstance(written, dict) or isinstance(sent, list) != isinstance(
        written, list
    ):
        yield f"{where}: a {type(sent).__name__} where Block Kit has {type(written).__name__}"
