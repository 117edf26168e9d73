"""Model calls and input tokens per turn: answering from the cards vs. the model's summary.

Each combined request runs as the first turn of a fresh session, then a follow-up
("Thanks, that's all") runs in the same session, on the two loops a deployment
uses: the Converse loop (the orchestrator keeps a text-only history) and the
AgentCore harness runtime (the harness keeps the conversation; a step answered
from the cards is carried into the next turn). Both run against the offline
model (the harness behind the offline harness), with the seeded directory,
``before`` (``direct_answers=False``: every tool turn ends with a model call
that reads the results and writes the answer) and ``after`` (the answer is
composed from the cards when every call made a draft).

Counted per turn at the model's door (every request the offline model answers):
model calls, and input tokens estimated as the characters of what the model reads
(system prompt, tool specs, every message) divided by 4, the usual rule of thumb
for English text and JSON; the offline stand-in has no tokenizer, so the figures
compare the two paths, they are not a bill. Tool specs are counted once per call,
as the service counts them.

Run with ``python -m benchmarks model_calls`` or through ``make bench``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

REQUESTS: tuple[tuple[str, str], ...] = (
    ("email + meeting", "Email Kinshuok about the doc and schedule a sync for Thursday"),
    ("jira + email about it", "File a Jira bug in WEB for the login crash and email Priya about it"),
    (
        "email + meeting + jira",
        "Email Priya about the launch, schedule a review with Kinshuok next Tuesday "
        "and file a Jira task in WEB for the release notes",
    ),
    ("meeting + email", "Book a sync with Priya tomorrow at 3pm and email Kinshuok about the agenda"),
    ("ambiguous name", "Schedule a sync with Alex on Friday and email Kinshuok about the budget"),
    ("refused call", "Email Kinshuok about the doc and file a Jira bug in NOPE for the crash"),
)
FOLLOW_UP = "Thanks, that's all"
NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
CHARS_PER_TOKEN = 4


@dataclass
class Count:
    """What the model was asked in one turn."""

    calls: int = 0
    tokens: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)


def _estimated_tokens(request: dict[str, Any]) -> int:
    read = {key: request.get(key) for key in ("system", "toolConfig", "messages")}
    return len(json.dumps(read, ensure_ascii=False, separators=(",", ":"), default=str)) // CHARS_PER_TOKEN


def _counting_model() -> tuple[Any, Count]:
    from multitool.runtimes import OfflineModel

    count = Count()

    class CountingModel(OfflineModel):
        def converse(self, **kwargs: Any) -> dict[str, Any]:
            count.calls += 1
            count.tokens += _estimated_tokens(kwargs)
            return super().converse(**kwargs)

    return CountingModel(), count


def _runtimes(direct_answers: bool) -> dict[str, Callable[[], tuple[Any, Count]]]:
    from multitool.local.embedded import load_seed
    from multitool.local.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
    from multitool.runtimes import AgentCoreRuntime, ConverseRuntime, OfflineHarness
    from multitool.runtimes.carryover import MemoryCarryOver
    from multitool.runtimes.offline_harness import OFFLINE_HARNESS_ARN
    from multitool.runtimes.product import product_flows
    from multitool.tools import ToolPorts

    people = load_seed().people

    def flows() -> Any:
        ports = ToolPorts(MemoryDirectory(list(people)), MemoryCalendar(), MemoryDraftStore())
        return product_flows(ports, direct_answers=direct_answers)

    def converse() -> tuple[Any, Count]:
        model, count = _counting_model()
        return ConverseRuntime(model, "offline", flows(), service="offline model"), count

    def harness() -> tuple[Any, Count]:
        model, count = _counting_model()
        runtime = AgentCoreRuntime(
            OfflineHarness(model),
            OFFLINE_HARNESS_ARN,
            flows(),
            service="offline harness",
            carry=MemoryCarryOver(),
        )
        return runtime, count

    return {"converse": converse, "harness": harness}


@dataclass(frozen=True)
class Turns:
    first_calls: int
    first_tokens: int
    next_tokens: int
    message: str


def _conversation(make: Callable[[], tuple[Any, Count]], text: str) -> Turns:
    from multitool.chat import ChatRequest, ChatService
    from multitool.local.memory import MemorySessionStore

    runtime, count = make()
    chat = ChatService(runtime, MemorySessionStore(), default_timezone="Europe/Berlin", clock=lambda: NOW)
    first = chat.reply("alex-muller", ChatRequest(message=text))
    first_calls, first_tokens = count.calls, count.tokens
    chat.reply("alex-muller", ChatRequest(message=FOLLOW_UP, session_id=first.session_id))
    return Turns(first_calls, first_tokens, count.tokens - first_tokens, first.message)


def measure() -> dict[str, dict[str, list[Turns]]]:
    """{runtime: {"before" | "after": one Turns per request}}."""
    figures: dict[str, dict[str, list[Turns]]] = {}
    for label, direct_answers in (("before", False), ("after", True)):
        for name, make in _runtimes(direct_answers).items():
            figures.setdefault(name, {})[label] = [_conversation(make, text) for _, text in REQUESTS]
    return figures


def _mean(values: list[int]) -> float:
    return sum(values) / len(values)


HEADER = f"{'runtime':9} {'calls before':>12} {'calls after':>11} {'tokens before':>13} {'tokens after':>12}"


def run() -> None:
    from multitool.observability import logger

    level = logger.log_level
    logger.setLevel("WARNING")  # a turn logs a line; 48 turns would bury the table
    try:
        figures = measure()
    finally:
        logger.setLevel(level)
    print(f"{len(REQUESTS)} combined requests, each a first turn then '{FOLLOW_UP}' in the same session")
    print("input tokens: characters the model reads / 4 (an estimate; the offline model has no tokenizer)")
    print(f"{'request':24} {HEADER}")
    for index, (label, _text) in enumerate(REQUESTS):
        for name, runs in figures.items():
            before, after = runs["before"][index], runs["after"][index]
            print(
                f"{label:24} {name:9} {before.first_calls:>12} {after.first_calls:>11} "
                f"{before.first_tokens:>13} {after.first_tokens:>12}"
            )
    print()
    print(f"{'first turn (mean)':24} {HEADER} {'next turn tokens b/a':>21}")
    for name, runs in figures.items():
        calls = [_mean([t.first_calls for t in runs[k]]) for k in ("before", "after")]
        tokens = [_mean([t.first_tokens for t in runs[k]]) for k in ("before", "after")]
        later = [_mean([t.next_tokens for t in runs[k]]) for k in ("before", "after")]
        print(
            f"{'all requests':24} {name:9} {calls[0]:>12.2f} {calls[1]:>11.2f} {tokens[0]:>13.0f} "
            f"{tokens[1]:>12.0f} {later[0]:>10.0f}/{later[1]:<10.0f}"
        )
    example = figures["converse"]["after"][0].message
    print(f"\nanswer composed for '{REQUESTS[0][1]}':\n  {example}")


if __name__ == "__main__":
    run()
