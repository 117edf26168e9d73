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

Prompt caching: the Converse loop calls the default model's id, so its requests carry
the cache points a deployment sends (:mod:`multitool.runtimes.converse`). Each request
goes through a real ``bedrock-runtime`` client with botocore's Stubber, so it is
validated against the Converse input shape, and the answer's ``usage`` (validated
against the output shape) says what a prompt cache keyed on the bytes before each
cache point would have read (``cacheReadInputTokens``) and written
(``cacheWriteInputTokens``), the rest being ``inputTokens``: Bedrock's rules as its
prompt-caching page gives them (a prefix must be byte-identical to hit, and counts
only from the model's minimum; https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html).
One cache serves every conversation of a row, as one account's cache serves all its
users; the first call of a row writes it. The harness offers no cache point
(InvokeHarness's system prompt blocks hold text only, in botocore's model), so its
rows read and write nothing.

Linked turns ("file a bug and email Priya about it": the mail names the ticket the other card
creates, :mod:`multitool.toolkit.links`): the Converse loop makes every card, the mail linked to the
ticket, in ONE model call; beside it, in the same run, the approve-inside-the-loop pattern of agent
frameworks (one tool call per step, the user approves it, its result goes back to the model, which
makes the next call; a last call writes the answer): one model call per approval and one more, each
reading the history so far. The offline stand-in reads a grammar, not a conversation, so that loop
takes the k-th call of the stand-in's first answer as step k's one call; what is counted is what such
a loop sends (the requests, their input), with each tool's card drafted by the same tools.

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
    ("move + email", "Move my sync with Priya to Friday and email her why"),
    ("cancel", "Cancel tomorrow's sync with Priya, say I'm sick"),
    ("series + email", "Set up a weekly 1:1 with Priya every monday at 11am and email her the agenda"),
    ("agenda + email", "what do I have tomorrow and email Priya about the launch"),
    ("comment + email", "Add a comment to WEB-12: fixed in build 42 and email Priya about it"),
    (
        "reply + jira",
        "Reply to Priya's email about the budget: sounds good, let's do Thursday, "
        "and file a Jira bug in WEB for the login crash she reported",
    ),
)
USER = "jordan"  # the demo's meetings are theirs (multitool.local.sandbox.demo_meetings)
LINKED: tuple[tuple[str, str], ...] = (
    ("ticket + mail naming it", "File a WEB bug for the login crash and email Priya about it"),
    ("meeting + mail of its time", "set up a sync with Priya on Thursday and email her the details"),
)
FOLLOW_UP = "Thanks, that's all"
NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
CHARS_PER_TOKEN = 4


# The smallest minimum per cache checkpoint the prompt-caching page lists for a Claude model (Claude
# 3.7 Sonnet); a shorter prefix is not cached.
MIN_CACHED_TOKENS = 1024
# What a cached token costs against an uncached input token: a 5-minute cache write 1.25x, a cache
# read 0.1x (Anthropic's price list for Claude Sonnet 5.5: $2 input, $2.50 5m cache write, $0.20
# cache read per million tokens; https://platform.claude.com/docs/en/models/sonnet-5-5/overview).
CACHE_WRITE_PRICE = 1.25
CACHE_READ_PRICE = 0.1


@dataclass
class Count:
    """What the model was asked in one turn, and what its answers' usage said."""

    calls: int = 0
    tokens: int = 0
    uncached: int = 0
    cache_read: int = 0
    cache_write: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)

    def add(self, usage: dict[str, Any]) -> None:
        self.uncached += int(usage.get("inputTokens") or 0)
        self.cache_read += int(usage.get("cacheReadInputTokens") or 0)
        self.cache_write += int(usage.get("cacheWriteInputTokens") or 0)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _estimated_tokens(request: dict[str, Any]) -> int:
    read = {key: request.get(key) for key in ("system", "toolConfig", "messages")}
    return len(_compact(read)) // CHARS_PER_TOKEN


def _prefixes(request: dict[str, Any]) -> list[str]:
    """The prompt before each cache point, in the order a Claude prompt is read: tools, system, messages."""
    parts = [
        ("tools", (request.get("toolConfig") or {}).get("tools") or []),
        ("system", request.get("system") or []),
        ("messages", [block for message in request.get("messages") or [] for block in message["content"]]),
    ]
    prefixes: list[str] = []
    read: list[Any] = []
    for _name, blocks in parts:
        for block in blocks:
            read.append(block)
            if "cachePoint" in block:
                prefixes.append(_compact(read))
    return prefixes


class PromptCache:
    """What Bedrock's prompt cache reads and writes for a request: one cache, shared by every caller."""

    def __init__(self) -> None:
        self.cached: set[str] = set()

    def usage(self, request: dict[str, Any]) -> dict[str, int]:
        total = _estimated_tokens(request)
        prefixes = [p for p in _prefixes(request) if len(p) // CHARS_PER_TOKEN >= MIN_CACHED_TOKENS]
        hit = max((len(p) for p in prefixes if p in self.cached), default=0) // CHARS_PER_TOKEN
        longest = max((len(p) for p in prefixes), default=0) // CHARS_PER_TOKEN
        self.cached.update(prefixes)
        written = longest - hit
        return {
            "inputTokens": total - hit - written,
            "cacheReadInputTokens": hit,
            "cacheWriteInputTokens": written,
        }


def _counting_model(cache: PromptCache) -> tuple[Any, Count]:
    import boto3
    from botocore.stub import Stubber
    from multitool.runtimes import OfflineModel

    count = Count()
    # A real client (fake credentials, never sent: the Stubber answers) checks every request against
    # bedrock-runtime's Converse input shape and every answer against its output shape.
    client = boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    stubber = Stubber(client)
    stubber.activate()

    class CountingModel(OfflineModel):
        def converse(self, **kwargs: Any) -> dict[str, Any]:
            count.calls += 1
            count.tokens += _estimated_tokens(kwargs)
            answer = {k: v for k, v in super().converse(**kwargs).items() if k != "ResponseMetadata"}
            usage = cache.usage(kwargs)
            output = int(answer["usage"]["outputTokens"])
            answer["usage"] = {**usage, "outputTokens": output, "totalTokens": sum(usage.values()) + output}
            stubber.add_response("converse", answer, expected_params=kwargs)
            response: dict[str, Any] = dict(client.converse(**kwargs))
            count.add(response["usage"])
            return response

    return CountingModel(), count


def _seeded_jira() -> Any:
    """The sandbox's Jira (its demo issues) over loopback: the comment's card finds WEB-12 there."""
    import urllib3
    from multitool.local.standins.jira_server import start_fake_jira
    from multitool.ports.atlassian.jira_cloud import JiraCloudClient

    jira = start_fake_jira(seeded=True)
    return JiraCloudClient(jira.url, jira.email, jira.api_token, urllib3.PoolManager())


def _runtimes(direct_answers: bool) -> dict[str, Callable[[], tuple[Any, Count]]]:
    from multitool.local.sandbox.demo_meetings import demo_meetings
    from multitool.local.sandbox.embedded import load_seed
    from multitool.local.sandbox.memory import (
        MemoryCalendar,
        MemoryDirectory,
        MemoryDraftStore,
        MemoryMailbox,
    )
    from multitool.models import DEFAULT_MODEL_ID
    from multitool.runtimes import AgentCoreRuntime, ConverseRuntime, OfflineHarness
    from multitool.runtimes.carryover import MemoryCarryOver
    from multitool.runtimes.offline_harness import OFFLINE_HARNESS_ARN
    from multitool.runtimes.product import product_flows
    from multitool.tools import ToolPorts

    seed = load_seed()
    people = seed.people
    jira = _seeded_jira()
    # Alex Müller's mailbox: the seed's mail as if Alex had received it (the reply's request names it).
    mail = [{**m, "to": [*m.get("to", ()), "alex.mueller@example.com"]} for m in seed.mail]

    def flows() -> Any:
        box = MemoryMailbox.seeded("alex.mueller@example.com", mail, NOW)
        calendar = MemoryCalendar(demo_meetings(people, NOW.date()))
        ports = ToolPorts(
            MemoryDirectory(list(people)),
            calendar,
            MemoryDraftStore(),
            jira=jira,
            mailboxes=lambda _address: box,
        )
        return product_flows(ports, direct_answers=direct_answers)

    converse_cache, harness_cache = PromptCache(), PromptCache()

    def converse() -> tuple[Any, Count]:
        model, count = _counting_model(converse_cache)
        return ConverseRuntime(model, DEFAULT_MODEL_ID, flows(), service="offline model"), count

    def harness() -> tuple[Any, Count]:
        model, count = _counting_model(harness_cache)
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
class Usage:
    """A turn's input tokens as the model's usage reports them."""

    uncached: int
    cache_read: int
    cache_write: int

    @property
    def cost(self) -> float:
        """The turn's input price in uncached input tokens (cache writes and reads at their ratios)."""
        return self.uncached + CACHE_WRITE_PRICE * self.cache_write + CACHE_READ_PRICE * self.cache_read


@dataclass(frozen=True)
class Turns:
    first_calls: int
    first_tokens: int
    next_tokens: int
    message: str
    first_usage: Usage
    next_usage: Usage


def _conversation(make: Callable[[], tuple[Any, Count]], text: str) -> Turns:
    from multitool.chat.service import ChatRequest, ChatService
    from multitool.local.sandbox.memory import MemorySessionStore

    runtime, count = make()
    chat = ChatService(runtime, MemorySessionStore(), default_timezone="Europe/Berlin", clock=lambda: NOW)
    email = _email(USER)
    first = chat.reply(USER, ChatRequest(message=text), user_email=email)
    first_calls, first_tokens = count.calls, count.tokens
    first_usage = Usage(count.uncached, count.cache_read, count.cache_write)
    chat.reply(USER, ChatRequest(message=FOLLOW_UP, session_id=first.session_id), user_email=email)
    next_usage = Usage(
        count.uncached - first_usage.uncached,
        count.cache_read - first_usage.cache_read,
        count.cache_write - first_usage.cache_write,
    )
    return Turns(
        first_calls, first_tokens, count.tokens - first_tokens, first.message, first_usage, next_usage
    )


def _email(user_id: str) -> str:
    from multitool.local.sandbox.embedded import load_seed

    person = load_seed().person(user_id)
    assert person is not None
    return person.email


def measure() -> dict[str, dict[str, list[Turns]]]:
    """{runtime: {"before" | "after": one Turns per request}}."""
    figures: dict[str, dict[str, list[Turns]]] = {}
    for label, direct_answers in (("before", False), ("after", True)):
        for name, make in _runtimes(direct_answers).items():
            figures.setdefault(name, {})[label] = [_conversation(make, text) for _, text in REQUESTS]
    return figures


@dataclass(frozen=True)
class Linked:
    """One linked request: in one response (cards, the links among them) and approved inside the loop."""

    one_call_calls: int
    one_call_tokens: int
    links: int
    """Links the turn's cards carry (a mail naming the ticket's key and link: 2)."""
    loop_calls: int
    loop_tokens: int
    approvals: int


def _one_response(text: str) -> tuple[int, int, int]:
    """The Converse loop as deployed: every card, and the links between them, from one model call."""
    from multitool.chat.service import ChatRequest, ChatService
    from multitool.local.sandbox.memory import MemorySessionStore

    runtime, count = _runtimes(direct_answers=True)["converse"]()
    chat = ChatService(runtime, MemorySessionStore(), default_timezone="Europe/Berlin", clock=lambda: NOW)
    reply = chat.reply("alex-muller", ChatRequest(message=text))
    links = sum(len(action.get("links") or ()) for action in reply.to_wire().get("clientActions") or ())
    return count.calls, count.tokens, links


def _approve_in_the_loop(text: str) -> tuple[int, int, int]:
    """One tool call per model call, approved before the next: (model calls, input tokens, approvals)."""
    from multitool.local.sandbox.embedded import load_seed
    from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
    from multitool.runtimes.prompts import system_prompt
    from multitool.toolkit.model_specs import tool_specs
    from multitool.tools import REGISTRY, ToolContext, ToolPorts, run_calls

    model, count = _counting_model(PromptCache())
    ports = ToolPorts(MemoryDirectory(list(load_seed().people)), MemoryCalendar(), MemoryDraftStore())
    ctx = ToolContext(owner="alex-muller", session_id="loop", now=NOW, timezone="Europe/Berlin")
    request = {
        "modelId": "offline",
        "system": [{"text": system_prompt(timezone="Europe/Berlin", now=NOW)}],
        "toolConfig": {"tools": tool_specs(REGISTRY.values())},
    }
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"text": text}]}]
    first = model.converse(**request, messages=list(messages))
    planned = [b["toolUse"] for b in first["output"]["message"]["content"] if "toolUse" in b]
    for step, use in enumerate(planned):
        if step:  # the model is asked again for the next step, reading every result so far
            model.converse(**request, messages=list(messages))
        # One call of the step; a framework interrupts here until the user approves it.
        arguments = {k: v for k, v in use["input"].items() if k != "label"}
        [outcome] = run_calls([(use["name"], arguments)], ctx, ports)
        messages.append({"role": "assistant", "content": [{"toolUse": {**use, "input": arguments}}]})
        result = {"toolUseId": use["toolUseId"], "content": [{"json": outcome.body}], "status": "success"}
        messages.append({"role": "user", "content": [{"toolResult": result}]})
    model.converse(**request, messages=list(messages))  # the answer, after the last approval
    return count.calls, count.tokens, len(planned)


def measure_linked() -> list[Linked]:
    """Each linked request, both ways, in the same run."""
    return [Linked(*_one_response(text), *_approve_in_the_loop(text)) for _, text in LINKED]


def _mean(values: list[int]) -> float:
    return sum(values) / len(values)


HEADER = f"{'runtime':9} {'calls before':>12} {'calls after':>11} {'tokens before':>13} {'tokens after':>12}"


def run() -> None:
    from multitool.observability import logger

    level = logger.log_level
    logger.setLevel("WARNING")  # a turn logs a line; 48 turns would bury the table
    try:
        figures = measure()
        linked = measure_linked()
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
    print()
    print("input tokens by the usage the model reports (after): uncached / cache read / cache write,")
    print(f"and the input price in uncached tokens (write {CACHE_WRITE_PRICE}x, read {CACHE_READ_PRICE}x)")
    print(f"{'turn (mean)':24} {'runtime':9} {'uncached':>9} {'read':>7} {'write':>7} {'price':>7}")
    for name, runs in figures.items():
        turns = runs["after"]
        rows = (
            ("very first turn", [turns[0].first_usage]),
            ("first turns after it", [t.first_usage for t in turns[1:]]),
            ("next turns", [t.next_usage for t in turns]),
        )
        for label, usages in rows:
            uncached, read = _mean([u.uncached for u in usages]), _mean([u.cache_read for u in usages])
            written, price = _mean([u.cache_write for u in usages]), sum(u.cost for u in usages) / len(usages)
            print(f"{label:24} {name:9} {uncached:>9.0f} {read:>7.0f} {written:>7.0f} {price:>7.0f}")
    print()
    print("linked turns (a card's text names what another card of the turn produces once confirmed):")
    print("one response with links vs. approving each tool inside the loop before the next model call")
    one, loop = (
        f"{'links':>5} {'calls':>5} {'tokens':>7}",
        f"{'loop approvals':>14} {'calls':>5} {'tokens':>7}",
    )
    print(f"{'request':28} {one} {loop}")
    for (label, _text), row in zip(LINKED, linked, strict=True):
        print(
            f"{label:28} {row.links:>5} {row.one_call_calls:>5} {row.one_call_tokens:>7} "
            f"{row.approvals:>14} {row.loop_calls:>5} {row.loop_tokens:>7}"
        )
    example = figures["converse"]["after"][0].message
    print(f"\nanswer composed for '{REQUESTS[0][1]}':\n  {example}")


if __name__ == "__main__":
    run()
