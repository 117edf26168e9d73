"""Running a case: a turn in this process or over HTTP, the model calls and tokens it took, its score."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from multitool.local.evaluation.cases import Case
from multitool.local.evaluation.scoring import Score, score_cards

CHARS_PER_TOKEN = 4
"""The estimate's divisor: what a model reads, in characters of compact JSON, per token."""


def estimated_tokens(request: Mapping[str, Any], keys: Sequence[str]) -> int:
    """What a request asks the model to read (prompt, tool specs, messages), as characters / 4.

    The offline model has no tokenizer: this estimate, the same for every runtime, is what prices a
    Bedrock run before making one (benchmarks/bench_model_calls.py counts the same way).
    """
    read = {key: request.get(key) for key in keys}
    return len(json.dumps(read, ensure_ascii=False, separators=(",", ":"), default=str)) // CHARS_PER_TOKEN


@dataclass
class Usage:
    """What the model calls of one turn cost, as the model reported it, and the estimate.

    ``input_tokens`` are the uncached ones; ``cached_tokens`` were read from the prompt cache and
    ``cache_write_tokens`` written to it, each billed at its own rate (Converse's and InvokeHarness's
    usage report the three apart: cacheReadInputTokens, cacheWriteInputTokens).
    """

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    estimated_input_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.calls + other.calls,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_tokens + other.cached_tokens,
            self.estimated_input_tokens + other.estimated_input_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    def add(self, usage: Mapping[str, Any] | None) -> None:
        usage = usage or {}
        self.input_tokens += int(usage.get("inputTokens") or 0)
        self.output_tokens += int(usage.get("outputTokens") or 0)
        self.cached_tokens += int(usage.get("cacheReadInputTokens") or 0)
        self.cache_write_tokens += int(usage.get("cacheWriteInputTokens") or 0)


class MeteredClient:
    """A model client (Converse's, the harness's, or the offline model) that counts calls and tokens.

    ``harness_model_id``: each ``InvokeHarness`` names that model (its ``model`` override), so one
    deployed harness is measured with several models. The override applies to that call only, the
    harness keeps its defaults:
    https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/harness-models.html
    (the harness's execution role must still be allowed to invoke the model named).
    """

    def __init__(self, client: Any, *, harness_model_id: str | None = None) -> None:
        self._client = client
        self._harness_model_id = harness_model_id
        self.usage = Usage()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def take(self) -> Usage:
        used, self.usage = self.usage, Usage()
        return used

    def converse(self, **params: Any) -> Any:
        self.usage.calls += 1
        self.usage.estimated_input_tokens += estimated_tokens(params, ("system", "toolConfig", "messages"))
        response = self._client.converse(**params)
        self.usage.add(response.get("usage"))
        return response

    def invoke_harness(self, **params: Any) -> Any:
        self.usage.calls += 1
        self.usage.estimated_input_tokens += estimated_tokens(params, ("systemPrompt", "tools", "messages"))
        if self._harness_model_id and "model" not in params:
            params["model"] = {"bedrockModelConfig": {"modelId": self._harness_model_id}}
        response = self._client.invoke_harness(**params)
        stream = response.get("stream") if isinstance(response, Mapping) else None
        if stream is None or isinstance(stream, str | bytes | Mapping):
            return response
        return {**response, "stream": self._metered(stream)}

    def _metered(self, stream: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
        for event in stream:
            metadata = event.get("metadata") if isinstance(event, Mapping) else None
            if isinstance(metadata, Mapping):
                self.usage.add(metadata.get("usage"))
            yield event


@dataclass(frozen=True, slots=True)
class TurnAnswer:
    status: int
    body: Any
    seconds: float
    usage: Usage | None
    """None where the target cannot see the model calls (over HTTP)."""

    @property
    def cards(self) -> list[Mapping[str, Any]]:
        if self.status >= 400 or not isinstance(self.body, Mapping):
            return []
        return [c for c in self.body.get("clientActions") or [] if isinstance(c, Mapping)]

    @property
    def error(self) -> str | None:
        if self.status < 400:
            return None
        error = self.body.get("error") if isinstance(self.body, Mapping) else None
        if isinstance(error, Mapping):
            return f"{self.status} {error.get('code')}: {error.get('message')}"
        return f"{self.status}: {self.body}"


class Target(Protocol):
    """Where turns run: in this process, or a server's HTTP API."""

    label: str

    def turn(self, user: str, session_id: str, message: str) -> TurnAnswer: ...
    def discard(self, user: str, card_id: str) -> bool: ...
    def zone_of(self, user: str) -> str | None: ...


@dataclass
class InProcessTarget:
    """The orchestrator's and the review's HTTP apps in this process, handed the services to run.

    Each request is the HTTP API event API Gateway would send
    (:func:`multitool.local.sandbox.api_gateway.http_api_event`)
    resolved by :func:`multitool.api.chat_app.chat_app` and :func:`multitool.api.review_app.review_app`,
    so an answer, and every error's mapping, is what the deployed functions answer.
    """

    label: str
    service: Any  # multitool.chat.service.ChatService
    reviewer: Any  # multitool.review.Reviewer
    seed: Any  # multitool.local.sandbox.embedded.Seed
    meter: MeteredClient | None = None
    _apps: dict[str, Any] = field(default_factory=dict, repr=False)

    def zone_of(self, user: str) -> str | None:
        person = self.seed.person(user)
        return person.timezone if person is not None else None

    def _app(self, function: str) -> Any:
        if function not in self._apps:
            from multitool.api.chat_app import chat_app
            from multitool.api.review_app import review_app

            service, reviewer = self.service, self.reviewer
            self._apps[function] = (
                chat_app(lambda: service, lambda: None)
                if function == "orchestrator"
                else review_app(lambda: reviewer)
            )
        return self._apps[function]

    def call(self, method: str, path: str, body: Any, user: str) -> tuple[int, Any]:
        from multitool.local.sandbox.api_gateway import API_ROUTES, http_api_event, jwt_claims, proxy_response
        from multitool.local.sandbox.lambdas import LambdaContext

        person = self.seed.person(user)
        if person is None:
            return 401, {"message": "Unauthorized"}
        route, params = next(
            (route, found) for route in API_ROUTES if (found := route.match(method, path)) is not None
        )
        event = http_api_event(
            method=method,
            raw_path=path,
            raw_query="",
            headers={"content-type": "application/json"},
            body=json.dumps(body).encode(),
            route=route,
            path_parameters=params,
            claims=jwt_claims(person.id, person.email, person.timezone, person.display_name, person.locale),
            source_ip="127.0.0.1",
        )
        answer = proxy_response(self._app(route.function).resolve(event, LambdaContext(route.function)))
        return answer.status, _json(answer.body)

    def turn(self, user: str, session_id: str, message: str) -> TurnAnswer:
        if self.meter is not None:
            self.meter.take()
        started = time.perf_counter()
        status, body = self.call("POST", "/chat", {"message": message, "sessionId": session_id}, user)
        seconds = time.perf_counter() - started
        return TurnAnswer(status, body, seconds, self.meter.take() if self.meter is not None else None)

    def discard(self, user: str, card_id: str) -> bool:
        from urllib.parse import quote

        return _settled(*self.call("POST", f"/actions/{quote(card_id, safe='')}/discard", {}, user))


@dataclass
class HttpTarget:
    """A running ``multitool serve`` (local sign-in as the case's user) or a deployed API (a token)."""

    label: str
    base: str
    token: str | None = None
    timeout: float = 120.0
    zones: dict[str, str] = field(default_factory=dict)

    def _headers(self, user: str) -> dict[str, str]:
        from multitool.local.sandbox.api_gateway import LOCAL_USER_HEADER

        headers = {"content-type": "application/json"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        else:
            headers[LOCAL_USER_HEADER] = user
        return headers

    def call(self, method: str, path: str, body: Any, user: str) -> tuple[int, Any]:
        import urllib.error
        import urllib.request

        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(  # noqa: S310 - the scheme is checked by the command line
            f"{self.base.rstrip('/')}{path}", data=data, method=method, headers=self._headers(user)
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:  # noqa: S310
                return answer.status, _json(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, _json(error.read())

    def zone_of(self, user: str) -> str | None:
        if not self.zones and not self.token:
            status, directory = self.call("GET", "/local/users", None, user)
            if status == 200 and isinstance(directory, Mapping):
                self.zones = {str(u["id"]): str(u["timezone"]) for u in directory.get("users", [])}
        return self.zones.get(user)

    def turn(self, user: str, session_id: str, message: str) -> TurnAnswer:
        started = time.perf_counter()
        status, body = self.call("POST", "/chat", {"message": message, "sessionId": session_id}, user)
        return TurnAnswer(status, body, time.perf_counter() - started, None)

    def discard(self, user: str, card_id: str) -> bool:
        from urllib.parse import quote

        return _settled(*self.call("POST", f"/actions/{quote(card_id, safe='')}/discard", {}, user))


def _settled(status: int, body: Any) -> bool:
    """Whether a discard left the card settled: discarded, or replaced by a revision (discarded in turn)."""
    error = body.get("error") if isinstance(body, Mapping) else None
    return status < 400 or (isinstance(error, Mapping) and error.get("code") == "superseded")


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return {"message": raw.decode("utf-8", "replace")}


@dataclass(frozen=True, slots=True)
class CaseResult:
    case: Case
    model: str
    score: Score
    answer: TurnAnswer
    discarded: int
    undiscarded: int
    setup_error: str | None = None
    history_usage: Usage | None = None
    """What the history's turns cost (they are not the case's measure, but they are on the bill)."""

    def to_json(self) -> dict[str, Any]:
        usage = self.answer.usage
        return {
            "id": self.case.id,
            "model": self.model,
            "exact": self.score.exact,
            "silentlyWrong": self.score.silently_wrong,
            "asked": self.score.asked,
            "expectedCards": self.score.expected,
            "foundCards": self.score.found,
            "cards": [c.to_json() for c in self.score.checks],
            "unexpectedCards": list(self.score.unexpected),
            "made": [str(c.get("type")) for c in self.answer.cards],
            "reply": self.answer.body.get("message") if isinstance(self.answer.body, Mapping) else None,
            "error": self.setup_error or self.answer.error,
            "modelCalls": usage.calls if usage else None,
            "inputTokens": usage.input_tokens if usage else None,
            "outputTokens": usage.output_tokens if usage else None,
            "cachedTokens": usage.cached_tokens if usage else None,
            "cacheWriteTokens": usage.cache_write_tokens if usage else None,
            "estimatedInputTokens": usage.estimated_input_tokens if usage else None,
            "historyModelCalls": self.history_usage.calls if self.history_usage else None,
            "latencyMs": round(self.answer.seconds * 1000, 1),
            "discarded": self.discarded,
            "notDiscarded": self.undiscarded,
        }


def run_case(target: Target, case: Case, *, run_id: str, clock: Callable[[], datetime]) -> CaseResult:
    """History and message as turns of one new session; the last turn scored; every card discarded."""
    session_id = f"eval-{run_id}-{re.sub(r'[^A-Za-z0-9._:-]', '-', case.id)}"[:100]
    made: list[str] = []
    setup_error: str | None = None
    history_usage: Usage | None = None
    for earlier in case.earlier_messages:
        previous = target.turn(case.user, session_id, earlier)
        if previous.usage is not None:
            history_usage = previous.usage + (history_usage or Usage())
        made.extend(str(c.get("id")) for c in previous.cards)
        if previous.error:
            setup_error = f"history turn failed: {previous.error}"
            break
    answer = target.turn(case.user, session_id, case.message)
    made.extend(str(c.get("id")) for c in answer.cards)
    zone = target.zone_of(case.user) or _first_zone(answer.cards) or "UTC"
    today = clock().astimezone(ZoneInfo(zone)).date()
    score = score_cards(case.expect, answer.cards, zone=zone, today=today)
    if setup_error or answer.error:
        # A failed turn is never exact, and it made nothing silently.
        score = Score(False, score.expected, 0, False, score.asked, score.checks, ())
    discarded = sum(1 for card_id in dict.fromkeys(made) if target.discard(case.user, card_id))
    undiscarded = len(set(made)) - discarded
    return CaseResult(case, target.label, score, answer, discarded, undiscarded, setup_error, history_usage)


def _first_zone(cards: Sequence[Mapping[str, Any]]) -> str | None:
    return next((str(c["timezone"]) for c in cards if c.get("timezone")), None)
