"""Trace extraction vs json.loads of the same bytes, on synthetic InvokeAgent streams.

Streams of 1 MB and 10 MB hold 10, 100 or 1000 actions (email, meeting and
Jira payloads in rotation, each as an action-group output in an orchestration
step with its invocation input and rationale) plus the model-invocation
prompts that make up the rest of a real trace. ``json.loads`` parses the
stream's JSON bytes (the envelope and the output texts in it); the extractor
walks the same events as boto3 yields them (dicts, output texts still JSON
strings) and returns the cards, each validated, deduplicated and captioned.
Target: extraction at most 2x json.loads, and linear in size.

The densest stream (1000 actions in 1 MB) leaves room only for the outputs; it
is measured once more with the invocation input a real trace carries before
each output (the stream is then about 1.7 MB).

For reference only, ``outputs`` is ``json.loads`` of each output text on its
own: the parse any extractor has to do before it can validate anything; and
``floor`` is the work the results need and nothing else, each output handed
straight to its card's validator, then fingerprinted and captioned (no walk,
no pairing, no tolerance of bad output): what any extractor of these results
costs at least.
"""

from __future__ import annotations

import gc
import json
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from multitool.cards.client_actions import CAPTIONS, FINGERPRINTS, JSON_VALIDATORS
from multitool.runtimes.traces import extract_tool_results

MB = 1_000_000
ALIAS_ARN = "arn:aws:bedrock:us-east-1:123456789012:agent-alias/AGENT12345/ALIAS"
PROMPT = "You are an assistant. Human: Email Kinshuok about the doc and schedule a sync. "
REPEATS = 15


def _person(i: int) -> dict[str, Any]:
    return {
        "id": f"p{i}",
        "displayName": f"Person {i}",
        "email": f"person{i}@example.com",
        "timezone": "Europe/Berlin",
        "aliases": [],
    }


def _who(i: int) -> dict[str, Any]:
    return {"query": f"Person{i}", "status": "resolved", "person": _person(i), "candidates": []}


def _payload(i: int, body_chars: int) -> dict[str, Any]:
    kind = i % 3
    if kind == 0:
        return {
            "action": "show_new_email_draft",
            "draftId": f"d_email{i:06d}",
            "to": [_who(i)],
            "cc": [],
            "subject": f"About document {i}",
            "body": ("Lorem ipsum dolor sit amet. " * (body_chars // 28 + 1))[:body_chars],
            "notes": [],
        }
    if kind == 1:
        return {
            "action": "show_meeting_scheduler",
            "draftId": f"d_meet{i:06d}",
            "title": f"Sync {i}",
            "attendees": [_who(i), _who(i + 1)],
            "requested": "Thursday",
            "durationMinutes": 30,
            "timezone": "Europe/Berlin",
            "slots": [
                {"start": f"2026-12-03T{9 + s:02d}:00:00+01:00", "end": f"2026-12-03T{9 + s:02d}:30:00+01:00"}
                for s in range(3)
            ],
            "notes": [],
        }
    return {
        "action": "show_jira_ticket_draft",
        "draftId": f"d_jira{i:06d}",
        "project": "WEB",
        "issueType": "Bug",
        "summary": f"Login crash {i}",
        "description": ("Steps to reproduce. " * (body_chars // 20 + 1))[:body_chars],
        "priority": "Medium",
        "assignee": _who(i),
        "notes": [],
    }


def _trace(inner: dict[str, Any]) -> dict[str, Any]:
    return {
        "trace": {
            "agentId": "AGENT12345",
            "agentAliasId": "ALIAS12345",
            "agentVersion": "1",
            "sessionId": "sess-bench",
            "eventTime": "2026-12-01T09:00:00Z",
            "callerChain": [
                {"agentAliasArn": "arn:aws:bedrock:us-east-1:123456789012:agent-alias/AGENT12345/ALIAS"}
            ],
            "trace": {"orchestrationTrace": inner},
        }
    }


_ARGUMENTS = (
    ("email_draft", "/email-drafts", {"to": ["Kinshuok"], "subject": "About the doc"}),
    ("meeting_scheduler", "/meeting-proposals", {"attendees": ["Kinshuok", "Priya"], "when": "Thursday"}),
    ("jira_draft", "/jira-drafts", {"project": "WEB", "summary": "Login crash"}),
)


def _invocation_input(i: int, trace_id: str) -> dict[str, Any]:
    """The input Bedrock traces before an action-group call (arguments as [{name, type, value}])."""
    group, path, arguments = _ARGUMENTS[i % 3]
    properties = [
        {"name": name, "type": "array" if isinstance(value, list) else "string", "value": json.dumps(value)}
        for name, value in arguments.items()
    ]
    return _trace(
        {
            "invocationInput": {
                "traceId": trace_id,
                "invocationType": "ACTION_GROUP",
                "actionGroupInvocationInput": {
                    "actionGroupName": group,
                    "apiPath": path,
                    "verb": "post",
                    "executionType": "LAMBDA",
                    "requestBody": {"content": {"application/json": properties}},
                },
            }
        }
    )


def build_stream(size: int, actions: int, *, inputs: bool | None = None) -> list[dict[str, Any]]:
    """Completion events of about ``size`` JSON bytes holding ``actions`` action outputs.

    ``inputs``: whether each output follows its invocation input, as in a real trace; by default
    only when the budget allows (tight budgets, 1000 actions in 1 MB, keep only the outputs).
    """
    per_action = size // actions
    # Roomy budgets add each step's rationale and the outputs' inputs, and pad with prompts.
    full_steps = per_action >= 2_500
    with_inputs = full_steps if inputs is None else inputs
    body_chars = min(10_000, per_action // 4) if full_steps else 60
    events: list[dict[str, Any]] = []
    for i in range(actions):
        trace_id = f"step-{i // 3}-0"
        if full_steps:
            events.append(
                _trace({"rationale": {"traceId": trace_id, "text": f"The user asked for action {i}."}})
            )
        if with_inputs:
            events.append(_invocation_input(i, trace_id))
        text = json.dumps(_payload(i, body_chars))
        events.append(
            _trace(
                {
                    "observation": {
                        "traceId": trace_id,
                        "type": "ACTION_GROUP",
                        "actionGroupInvocationOutput": {"text": text},
                    }
                }
            )
        )
    events.append({"chunk": {"bytes": "I prepared your drafts for review."}})
    used = len(json.dumps(events))
    # The rest of a real trace: the prompts sent to the model at each step.
    steps = max(1, actions // 3)
    filler = max(0, size - used) // steps
    prompt = (
        "You are an assistant. Human: Email Kinshuok about the doc and schedule a sync. " * (filler // 80 + 1)
    )[: max(0, filler - 200)]
    for step in range(steps if filler > 400 else 0):
        events.insert(
            step * 10,
            _trace(
                {
                    "modelInvocationInput": {
                        "traceId": f"step-{step}-0",
                        "type": "ORCHESTRATION",
                        "text": prompt,
                    }
                }
            ),
        )
    return events


def _as_boto3_yields(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chunk bytes as bytes, as the EventStream yields them."""
    return [{"chunk": {"bytes": e["chunk"]["bytes"].encode()}} if "chunk" in e else e for e in events]


def _cpu_medians(*fns: Callable[[], object]) -> list[float]:
    """Median CPU time of REPEATS runs of each function, runs interleaved, GC paused as timeit does.

    CPU time rather than wall time, and interleaved runs, because the machines that run
    this are shared and busy: a slow spell hits both sides alike. Every run of either side
    starts from a collected heap with the collector paused, so neither pays for collections.
    """
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(REPEATS):
        for fn, runs in zip(fns, times, strict=True):
            gc.collect()
            gc.disable()
            try:
                started = time.process_time()
                fn()
                runs.append(time.process_time() - started)
            finally:
                gc.enable()
    return [statistics.median(runs) for runs in times]


def _output_texts(events: list[dict[str, Any]]) -> list[str]:
    observations = (
        e.get("trace", {}).get("trace", {}).get("orchestrationTrace", {}).get("observation", {})
        for e in events
    )
    return [
        o["actionGroupInvocationOutput"]["text"] for o in observations if "actionGroupInvocationOutput" in o
    ]


def _loads_each(texts: list[str]) -> None:
    for text in texts:
        json.loads(text)


def _cards_floor(work: list[tuple[Callable[[str], Any], str]]) -> None:
    """The per-card work the results need, with nothing else: validate, dedupe, caption."""
    seen: set[object] = set()
    cards = []
    for validate, text in work:
        card = validate(text)
        kind = card.type
        action = (kind, FINGERPRINTS[kind](card))
        if action not in seen:
            seen.add(action)
            cards.append(card)
    [CAPTIONS[card.type](card) for card in cards]


def _measure(label: str, events: list[dict[str, Any]], actions: int) -> dict[str, float]:
    raw = json.dumps(events).encode()
    boto_events = _as_boto3_yields(events)
    results = extract_tool_results(boto_events)
    assert len(results.client_actions) == actions, (len(results.client_actions), actions)
    assert len(results.messages) == actions, (len(results.messages), actions)
    texts = _output_texts(events)
    assert len(texts) == actions, (len(texts), actions)
    work = [(JSON_VALIDATORS[json.loads(text)["action"]], text) for text in texts]
    loads, outputs, floor, extract = _cpu_medians(
        partial(json.loads, raw),
        partial(_loads_each, texts),
        partial(_cards_floor, work),
        partial(extract_tool_results, boto_events),
    )
    print(
        f"{label:>6} {actions:>7} {len(raw):>10} {loads * 1000:>9.1f}ms "
        f"{outputs * 1000:>7.1f}ms {floor * 1000:>6.1f}ms {floor / loads:>5.2f}x "
        f"{extract * 1000:>7.1f}ms {extract / loads:>5.2f}x "
        f"{extract / actions * 1e6:>9.1f} {len(raw) / MB / extract:>7.0f}"
    )
    return {
        "actions": actions,
        "bytes": len(raw),
        "loads": loads,
        "outputs": outputs,
        "floor": floor,
        "extract": extract,
    }


def run() -> list[dict[str, float]]:
    rows: list[dict[str, float]] = []
    print(
        f"{'size':>6} {'actions':>7} {'bytes':>10} {'json.loads':>11} {'outputs':>9} {'floor':>8} "
        f"{'ratio':>6} {'extract':>9} {'ratio':>6} {'µs/action':>9} {'MB/s':>7}"
    )
    for size in (1 * MB, 10 * MB):
        for actions in (10, 100, 1000):
            row = _measure(f"{size // MB}MB", build_stream(size, actions), actions)
            rows.append({"size": size, **row})
    for actions in (10, 100, 1000):
        small = next(r for r in rows if r["size"] == MB and r["actions"] == actions)
        large = next(r for r in rows if r["size"] == 10 * MB and r["actions"] == actions)
        print(
            f"linearity, {actions} actions: bytes x{large['bytes'] / small['bytes']:.1f}, "
            f"extraction time x{large['extract'] / small['extract']:.1f}"
        )
    # The densest stream again, with the invocation input a real trace has before every output.
    print("1000 actions in 1 MB, each output after its invocation input (the shape of a real trace):")
    real = _measure("1MB+in", build_stream(MB, 1000, inputs=True), 1000)
    rows.append({"size": MB, "inputs": 1, **real})
    return rows


if __name__ == "__main__":
    run()
