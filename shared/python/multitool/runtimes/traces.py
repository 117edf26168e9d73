"""The trace extractor: InvokeAgent completion events -> the turn's message and cards.

Every runtime ends here. The Bedrock agent yields ``completion`` events
(``chunk``, ``trace``, ``returnControl``, ``files``); the agent runtime adds the
results it returned for RETURN_CONTROL, and the Converse runtime records its
tool calls, as trace events of the same shape. :func:`extract_tool_results`
finds every action-group output in them, including those of collaborators in
multi-agent traces, turns each payload into a card through the mapper registry
(:mod:`multitool.cards.client_actions`) and keeps one card per action: the same
payload echoed by a supervisor is recognised by its fingerprint.

The extractor is tolerant: output that is not JSON, truncated JSON, an unknown
action, a missing field, an unexpected event or a failure trace is logged and
skipped, never raised. It walks events with an explicit stack (no recursion,
so depth is not limited by the interpreter) and touches every node once. The
walk only collects output texts; cards are made after it, in trace order, by
one pass per kind of work: parse and validate every payload (one pydantic-core
pass over the JSON text), then dedupe, then caption the cards kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import msgspec
from pydantic import ValidationError

from multitool.cards.client_actions import (
    CAPTIONS,
    FINGERPRINTS,
    JSON_VALIDATORS,
    ClientActionError,
    card_from_payload,
)
from multitool.observability import logger
from multitool.toolkit.cards import Card, Fingerprint

__all__ = ["ToolFailure", "ToolResults", "extract_tool_results", "strip_tool_json"]

_EVENT_TYPES = frozenset({"chunk", "trace", "returnControl", "files"})
# Trace parts that never hold an action output: not walked (prompts, model I/O, request bodies).
_NO_OUTPUTS = frozenset(
    {
        "modelInvocationInput",
        "modelInvocationOutput",
        "rationale",
        "guardrailTrace",
        "requestBody",
        "parameters",
        "metadata",
        "knowledgeBaseLookupOutput",
        "codeInterpreterInvocationOutput",
        "repromptResponse",
    }
)
_OPENERS = re.compile(r"[\[{]")
_EMPTY_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*```")
_SPACE_BEFORE_NEWLINE = re.compile(r"[ \t]+\n")
_MANY_NEWLINES = re.compile(r"\n{3,}")
_DECODER = json.JSONDecoder()
_ACTION_HEAD = re.compile(r'\s*\{\s*"action"\s*:\s*"([A-Za-z0-9_]{1,64})"')


class ToolFailure(msgspec.Struct, frozen=True):
    """A tool that answered with an error body instead of a payload."""

    code: str
    message: str
    action_group: str | None = None
    api_path: str | None = None


class ToolResults(msgspec.Struct, frozen=True):
    """What a turn produced: the reply text and one card per action, in order."""

    message: str
    client_actions: tuple[Card, ...] = ()
    messages: tuple[str, ...] = ()  # one caption per card
    failures: tuple[ToolFailure, ...] = ()

    @property
    def client_action(self) -> Card | None:
        """The last card (what single-action clients show), or None."""
        return self.client_actions[-1] if self.client_actions else None


class _Invocation(msgspec.Struct, frozen=True):
    """Where a trace says a tool call went: its action group and API path, when it names them."""

    action_group: str | None
    api_path: str | None


_NO_INVOCATION = _Invocation(None, None)


class _Extractor:
    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.final_response: str | None = None
        # Output texts in trace order, with the input each answers (None: a supervisor's echo).
        self.outputs: list[tuple[str, _Invocation | None]] = []
        self.cards: list[Card] = []
        self.failures: list[ToolFailure] = []
        # What was kept: (type, fingerprint) of each action and (type, id) of each draft (a
        # fingerprint is a tuple and an id a str, so the two kinds never match each other).
        self.seen: set[tuple[str, Fingerprint | str]] = set()
        self.inputs: dict[tuple[tuple[str, ...], str | None], list[_Invocation]] = {}
        self.output_counts: dict[tuple[tuple[str, ...], str | None], int] = {}
        self.chains: dict[str, tuple[str, ...]] = {}
        self.handlers: dict[str, Callable[[tuple[str, ...], str | None, object, bool], None]] = {
            "actionGroupInvocationInput": self.invocation_input,
            "actionGroupInvocationOutput": self.invocation_output,
            "agentCollaboratorInvocationOutput": self.collaborator_output,
            "finalResponse": self.final,
            "failureTrace": _log_failure,
        }

    # ----------------------------------------------------------------- events

    def event(self, event: object) -> None:
        if type(event) is not dict and not isinstance(event, Mapping):
            logger.warning("Skipped a completion event that is not an object", extra={"kind": _kind(event)})
            return
        for name, part in event.items():
            if name == "trace":
                self.trace(part)
            elif name == "chunk":
                self.chunk(part)
            elif name not in _EVENT_TYPES:
                logger.warning("Skipped an unexpected completion event", extra={"eventType": str(name)[:64]})

    def chunk(self, part: object) -> None:
        data = part.get("bytes") if isinstance(part, Mapping) else None
        if isinstance(data, bytes | bytearray):
            self.chunks.append(bytes(data))
        elif isinstance(data, str):
            self.chunks.append(data.encode("utf-8", "replace"))
        elif data is not None:
            logger.warning("Skipped a chunk without bytes", extra={"kind": _kind(data)})

    def trace(self, part: object) -> None:
        if type(part) is not dict and not isinstance(part, Mapping):
            logger.warning("Skipped a trace event that is not an object", extra={"kind": _kind(part)})
            return
        root = part.get("trace")
        # Fast path, same result: the common shape of one orchestration step,
        # {"orchestrationTrace": {"observation" | "invocationInput" | "rationale" | ...: {...}}}.
        if type(root) is dict and len(root) == 1:
            orchestration = root.get("orchestrationTrace")
            if type(orchestration) is dict and len(orchestration) == 1:
                for name, step in orchestration.items():
                    if name in _NO_OUTPUTS:
                        return  # prompts and model I/O: nothing to collect
                    if type(step) is dict and name not in self.handlers:
                        self.step(part, step)
                        return
        caller = self.caller(part)
        self.walk(root, None, caller, len(caller) <= 1)

    def step(self, part: Mapping[str, Any], node: dict[str, object]) -> None:
        """One orchestration step: its trace parts by key, anything else nested by the generic walk."""
        trace_id = node.get("traceId")
        if type(trace_id) is not str:
            trace_id = None
        handlers = self.handlers
        caller: tuple[str, ...] | None = None
        nested: list[object] | None = None
        for key, value in node.items():
            handler = handlers.get(key)
            if handler is not None:
                if caller is None:
                    caller = self.caller(part)
                handler(caller, trace_id, value, len(caller) <= 1)
            elif type(value) is not str and key not in _NO_OUTPUTS:
                kind = type(value)
                if kind is dict or kind is list or isinstance(value, Mapping):
                    if nested is None:
                        nested = [value]
                    else:
                        nested.append(value)
        if nested is not None:
            if caller is None:
                caller = self.caller(part)
            for value in nested:  # in key order, each subtree whole: the pre-order of the generic walk
                self.walk(value, trace_id, caller, len(caller) <= 1)

    def caller(self, part: Mapping[str, Any]) -> tuple[str, ...]:
        """The trace's caller chain (agent alias ARNs), one shared tuple per single-agent chain."""
        chain = part.get("callerChain")
        if type(chain) is list and len(chain) == 1:
            link = chain[0]
            if type(link) is dict:
                arn = link.get("agentAliasArn", "")
                if type(arn) is str:
                    found = self.chains.get(arn)
                    if found is None:
                        found = self.chains[arn] = (arn,)
                    return found
        return _caller_chain(chain)

    def walk(self, root: object, trace_id: str | None, caller: tuple[str, ...], top_level: bool) -> None:
        handlers = self.handlers
        # Pre-order walk: descend straight into a node's first container, park its later siblings.
        stack: list[tuple[object, str | None]] = [(root, trace_id)]
        pop, push = stack.pop, stack.append
        while stack:
            node, trace_id = pop()
            while node is not None:
                first: object = None
                later: list[object] | None = None
                if type(node) is dict or (type(node) is not list and isinstance(node, Mapping)):
                    own_id = node.get("traceId")
                    if type(own_id) is str:
                        trace_id = own_id
                    for key, value in node.items():
                        handler = handlers.get(key)
                        if handler is not None:
                            handler(caller, trace_id, value, top_level)
                            continue
                        kind = type(value)
                        if kind is str or key in _NO_OUTPUTS:
                            continue
                        if kind is dict or kind is list or isinstance(value, Mapping):
                            if first is None:
                                first = value
                            elif later is None:
                                later = [value]
                            else:
                                later.append(value)
                elif type(node) is list:
                    for item in node:
                        kind = type(item)
                        if kind is dict or kind is list or isinstance(item, Mapping):
                            if first is None:
                                first = item
                            elif later is None:
                                later = [item]
                            else:
                                later.append(item)
                if later is not None:
                    for sibling in reversed(later):
                        push((sibling, trace_id))
                node = first

    # ----------------------------------------------------------------- trace parts

    def invocation_input(
        self, caller: tuple[str, ...], trace_id: str | None, value: object, _top: bool
    ) -> None:
        if not isinstance(value, Mapping):
            return
        group = value.get("actionGroupName")
        path = value.get("apiPath", value.get("function"))
        self.inputs.setdefault((caller, trace_id), []).append(
            _Invocation(group if isinstance(group, str) else None, path if isinstance(path, str) else None)
        )

    def invocation_output(
        self, caller: tuple[str, ...], trace_id: str | None, value: object, _: bool
    ) -> None:
        # Calls of one orchestration step share a traceId: the k-th output answers the k-th input.
        key = (caller, trace_id)
        counts = self.output_counts
        index = counts.get(key, 0)
        counts[key] = index + 1
        pending = self.inputs.get(key, ())
        invocation = pending[index] if index < len(pending) else _NO_INVOCATION
        text = value.get("text") if type(value) is dict or isinstance(value, Mapping) else None
        if not isinstance(text, str):
            logger.warning("Skipped an action-group output without text", extra=_where(invocation))
            return
        self.outputs.append((text, invocation))

    def collaborator_output(
        self, _caller: tuple[str, ...], _id: str | None, value: object, _top: bool
    ) -> None:
        output = value.get("output") if isinstance(value, Mapping) else None
        text = output.get("text") if isinstance(output, Mapping) else None
        if isinstance(text, str) and text:
            self.outputs.append((text, None))

    def final(self, _caller: tuple[str, ...], _id: str | None, value: object, top_level: bool) -> None:
        text = value.get("text") if isinstance(value, Mapping) else None
        if top_level and isinstance(text, str):
            self.final_response = text

    # ----------------------------------------------------------------- outputs -> cards

    def collect_cards(self) -> None:
        """Turn the outputs found by the walk into deduplicated cards, in trace order.

        Each kind of work runs as its own pass over all outputs (validate every payload,
        then dedupe, then caption): a tight loop per kind keeps its code and data hot,
        which the trace benchmark measures about a third faster than all three per output.
        """
        outputs = self.outputs
        # Fast path: a payload whose action leads the text is parsed and validated in one pass.
        match = _ACTION_HEAD.match
        validators = JSON_VALIDATORS
        validated: list[Card | None] = []
        keep = validated.append
        for text, invocation in outputs:
            card: Card | None = None
            if invocation is not None:
                # The head as json.dumps writes it, else the regex; a wrong guess fails validation.
                if text.startswith('{"action": "'):
                    validate = validators.get(text[12 : text.find('"', 12)])
                else:
                    head = match(text)
                    validate = validators.get(head.group(1)) if head is not None else None
                if validate is not None:
                    try:
                        card = validate(text)
                    except ValidationError:
                        card = None  # the full path below says why
            keep(card)
        add = self.add
        for (text, invocation), card in zip(outputs, validated, strict=True):
            if card is not None:
                add(card)
            elif invocation is None:
                self.echo(text)
            else:
                self.output(text, invocation)

    def output(self, text: str, invocation: _Invocation) -> None:
        data = _loads(text)
        if data is _INVALID:
            logger.warning("Skipped an action-group output that is not JSON", extra=_where(invocation))
            return
        self.payloads(data, invocation)

    def echo(self, text: str) -> None:
        # A supervisor may echo a collaborator's payloads; dedupe keeps one card each.
        data = _loads(text)
        if data is not _INVALID:
            self.payloads(data, _NO_INVOCATION, quiet=True)
            return
        for _, _, embedded in _json_values(text):
            self.payloads(embedded, _NO_INVOCATION, quiet=True)

    def payloads(self, data: object, invocation: _Invocation, *, quiet: bool = False) -> None:
        items: Sequence[object] = data if isinstance(data, list) else (data,)
        for item in items:
            if not isinstance(item, Mapping):
                if not quiet:
                    logger.warning(
                        "Skipped an action-group output that is not an object", extra=_where(invocation)
                    )
                continue
            item = _unwrap_lambda_response(item)
            if "action" in item:
                self.card(item, invocation, quiet=quiet)
            elif isinstance(item.get("error"), Mapping) and not quiet:
                self.failure(item["error"], invocation)
            elif not quiet:
                logger.warning("Skipped an action-group output without an action", extra=_where(invocation))

    def card(self, payload: Mapping[str, Any], invocation: _Invocation, *, quiet: bool) -> None:
        if quiet and _payload_draft_key(payload) in self.seen:
            return  # an echo of a kept draft: dropped whether or not it would validate, so not validated
        try:
            card = card_from_payload(payload)
        except ClientActionError as error:
            if not quiet:
                logger.warning(
                    "Skipped a payload that is not a client action",
                    extra={**_where(invocation), "reason": type(error).__name__, "action": _short(payload)},
                )
            return
        self.add(card)

    def add(self, card: Card) -> None:
        """Keep the card unless the same action (fingerprint) or the same draft was seen."""
        seen = self.seen
        kind = card.type
        action = (kind, FINGERPRINTS[kind](card))
        draft = (kind, card.id)
        if action not in seen and draft not in seen:
            seen.add(action)
            seen.add(draft)
            self.cards.append(card)

    def failure(self, error: Mapping[str, Any], invocation: _Invocation) -> None:
        code = error.get("code")
        message = error.get("message")
        self.failures.append(
            ToolFailure(
                code=code if isinstance(code, str) else "error",
                message=message if isinstance(message, str) else "The tool could not act on the call.",
                action_group=invocation.action_group,
                api_path=invocation.api_path,
            )
        )
        logger.info("A tool answered with an error", extra={**_where(invocation), "code": str(code)[:64]})

    def results(self) -> ToolResults:
        text = (
            b"".join(self.chunks).decode("utf-8", "replace") if self.chunks else (self.final_response or "")
        )
        return ToolResults(
            message=strip_tool_json(text),
            client_actions=tuple(self.cards),
            messages=tuple([CAPTIONS[card.type](card) for card in self.cards]),
            failures=tuple(self.failures),
        )


def extract_tool_results(events: Iterable[object]) -> ToolResults:
    """The message and the deduplicated cards of a turn's completion events (never raises on content)."""
    extractor = _Extractor()
    trace, other = extractor.trace, extractor.event
    for event in events:
        # Most events are {"trace": {...}}: straight to the trace walk, the rest through event().
        if type(event) is dict and len(event) == 1 and "trace" in event:
            trace(event["trace"])
        else:
            other(event)
    extractor.collect_cards()
    return extractor.results()


# --------------------------------------------------------------------------- prose cleanup


def _is_tool_json(value: object) -> bool:
    if isinstance(value, Mapping):
        error = value.get("error")
        return "action" in value or "draftId" in value or (isinstance(error, Mapping) and "code" in error)
    if isinstance(value, list) and value:
        return all(_is_tool_json(item) for item in value)
    return False


def _json_values(text: str) -> Iterable[tuple[int, int, object]]:
    """(start, end, value) of every JSON object or array embedded in prose, left to right."""
    position = 0
    while (match := _OPENERS.search(text, position)) is not None:
        start = match.start()
        try:
            value, end = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            position = start + 1
            continue
        yield start, end, value
        position = end


def strip_tool_json(text: str) -> str:
    """The reply without any JSON tool result (payloads, error bodies) the model wrote into it."""
    if "{" not in text:
        return text.strip()
    kept: list[str] = []
    position = 0
    for start, end, value in _json_values(text):
        if _is_tool_json(value):
            kept.append(text[position:start])
            position = end
    if position == 0:
        return text.strip()
    kept.append(text[position:])
    cleaned = _EMPTY_FENCE.sub("", "".join(kept))
    cleaned = _SPACE_BEFORE_NEWLINE.sub("\n", cleaned)
    return _MANY_NEWLINES.sub("\n\n", cleaned).strip()


# --------------------------------------------------------------------------- helpers

_INVALID: Any = object()


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _INVALID


def _unwrap_lambda_response(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """Accept a whole action-group Lambda response where a body was expected."""
    response = item.get("response")
    if "action" in item or not isinstance(response, Mapping):
        return item
    body = response.get("responseBody")
    content = body.get("application/json") if isinstance(body, Mapping) else None
    inner = content.get("body") if isinstance(content, Mapping) else None
    data = _loads(inner) if isinstance(inner, str) else inner
    return data if isinstance(data, Mapping) else item


def _caller_chain(chain: object) -> tuple[str, ...]:
    if not isinstance(chain, list):
        return ()
    return tuple(
        [
            str(link.get("agentAliasArn", ""))
            if type(link) is dict or isinstance(link, Mapping)
            else str(link)[:256]
            for link in chain
        ]
    )


def _payload_draft_key(payload: Mapping[str, Any]) -> tuple[str, str] | None:
    """The draft key the payload's card would have, when it can be read off the payload as is.

    The card's id is the payload's ``draftId`` (else ``id``) with surrounding whitespace
    stripped; an id that would change by stripping is left to validation (None).
    """
    action = payload.get("action")
    draft_id = payload["draftId"] if "draftId" in payload else payload.get("id")
    if type(action) is str and type(draft_id) is str and draft_id and draft_id == draft_id.strip():
        return (action, draft_id)
    return None


def _log_failure(_caller: tuple[str, ...], _id: str | None, value: object, _top: bool) -> None:
    code = value.get("failureCode") if isinstance(value, Mapping) else None
    logger.warning("The agent reported a failure trace", extra={"failureCode": str(code)[:64]})


def _where(invocation: _Invocation) -> dict[str, str]:
    return {"actionGroup": str(invocation.action_group), "apiPath": str(invocation.api_path)}


def _short(payload: Mapping[str, Any]) -> str:
    return str(payload.get("action"))[:64]


def _kind(value: object) -> str:
    return type(value).__name__
