"""``multitool eval``: combined requests against a runtime and model, scored on the cards a user reviews.

A dataset is JSON Lines, one case a line::

    {"id": "email-and-sync", "user": "jordan", "message": "Email Kinshuok and set up a sync Thursday",
     "history": ["earlier message", ...],
     "expect": {"cards": [{"type": "show_new_email_draft", "to": ["kinshuok"]},
                          {"type": "show_meeting_scheduler", "attendees": ["kinshuok"], "day": "thursday"}],
                "asks": false}}

People are directory ids, an address for someone outside, or ``"?"`` where the card must offer a
choice (the name is ambiguous); ``day`` is a weekday (the next one after today in the user's zone),
``today``, ``+N`` days or an ISO date. ``asks: true``: no card is right, the reply must ask or
decline. Only the listed fields are compared, and the set of cards must match exactly.

A case is *silently wrong* when a card was made with a wrong field the card does not flag, or a
card was made that no expected card accounts for: the user could confirm it without a word that
it is not what they asked. A wrong person the card leaves unsettled (a name to choose between,
or one not in the directory) is flagged: the card cannot be confirmed until the user settles it.
Asking, or saying what it cannot do, is never silently wrong.

Every case runs as a new session of its user: the history's messages are sent first, as earlier
turns, then the message; only the last turn is scored and measured. A turn runs in this process
(:class:`InProcessTarget`: the chat service the orchestrator builds, on embedded AWS) or over HTTP
(:class:`HttpTarget`: a running ``multitool serve`` or a deployed stack's API). Nothing is ever
confirmed: every card a case made is discarded once it is scored.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from itertools import permutations
from pathlib import Path
from typing import Any, Literal, Protocol
from zoneinfo import ZoneInfo

from pydantic import ConfigDict, Field, ValidationError, field_validator

from multitool.wire import WireModel

CARD_TYPES = ("show_new_email_draft", "show_meeting_scheduler", "show_jira_ticket_draft")
PEOPLE_FIELDS = frozenset({"to", "cc", "attendees", "assignee"})
AMBIGUOUS = "?"
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RELATIVE_DAY = re.compile(r"^\+(\d{1,3})$")


class DatasetError(ValueError):
    """A dataset line that cannot be a case: ``file:line: what to change``."""


# -- the dataset -----------------------------------------------------------------------------------


def _check_day(value: str) -> str:
    text = value.strip().casefold()
    if text in WEEKDAYS or text == "today" or _RELATIVE_DAY.match(text):
        return text
    try:
        date.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"day must be a weekday name, 'today', '+N' or an ISO date (2026-12-03), not {value!r}"
        ) from None
    return text


class ExpectedCard(WireModel):
    """One card the message must produce; every field besides ``type`` is compared as listed."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    type: Literal["show_new_email_draft", "show_meeting_scheduler", "show_jira_ticket_draft"]

    @property
    def fields(self) -> dict[str, Any]:
        """The listed fields (wire names), ``type`` left out."""
        return dict(self.model_extra or {})

    @field_validator("type", mode="before")
    @classmethod
    def _known_type(cls, value: Any) -> Any:
        if value not in CARD_TYPES:
            raise ValueError(f"type must be one of {', '.join(CARD_TYPES)}, not {value!r}")
        return value

    def model_post_init(self, _context: Any) -> None:
        for name, value in self.fields.items():
            if name in PEOPLE_FIELDS:
                people = [value] if name == "assignee" and isinstance(value, str) else value
                if not isinstance(people, list) or not all(isinstance(p, str) and p for p in people):
                    raise ValueError(f"{name} must be a list of directory ids, addresses or '?'")
            elif name == "day":
                if not isinstance(value, str):
                    raise ValueError("day must be a string")
                _check_day(value)
            elif name == "durationMinutes" and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError("durationMinutes must be a whole number of minutes")


class Expectation(WireModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    cards: tuple[ExpectedCard, ...] = ()
    asks: bool = False

    def model_post_init(self, _context: Any) -> None:
        if self.asks and self.cards:
            raise ValueError("asks: true means no card is right; list no cards with it")
        if not self.asks and not self.cards:
            raise ValueError("list the cards the message must produce, or set asks: true")


class HistoryMessage(WireModel):
    """An earlier user message as an object (a plain string is the same)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    role: Literal["user"] = "user"
    text: str = Field(min_length=1)


class Case(WireModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str = Field(min_length=1, max_length=100)
    user: str = Field(min_length=1)
    message: str = Field(min_length=1)
    history: tuple[str | HistoryMessage, ...] = ()
    expect: Expectation
    note: str | None = Field(default=None, description="Why the case expects what it does (not scored)")

    @property
    def earlier_messages(self) -> tuple[str, ...]:
        return tuple(m if isinstance(m, str) else m.text for m in self.history)


def load_cases(paths: Sequence[Path]) -> tuple[Case, ...]:
    """Every case of every file, in order; :class:`DatasetError` names the file, line and field."""
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as error:
            raise DatasetError(f"{path}: cannot read it ({error.strerror or error})") from None
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                case = Case.model_validate_json(line)
            except ValidationError as error:
                first = error.errors()[0]
                place = ".".join(str(p) for p in first["loc"]) or "line"
                message = first["msg"].removeprefix("Value error, ")
                raise DatasetError(f"{where}: {place}: {message}") from None
            if case.id in seen:
                raise DatasetError(f"{where}: id {case.id!r} is already used at {seen[case.id]}")
            seen[case.id] = where
            cases.append(case)
    if not cases:
        raise DatasetError(f"{', '.join(map(str, paths))}: no cases")
    return tuple(cases)


# -- scoring ---------------------------------------------------------------------------------------


def expected_day(spec: str, today: date) -> date:
    """The date a ``day`` value means, seen from ``today`` (the user's date)."""
    text = spec.strip().casefold()
    if text == "today":
        return today
    relative = _RELATIVE_DAY.match(text)
    if relative:
        return today + timedelta(days=int(relative.group(1)))
    if text in WEEKDAYS:
        ahead = (WEEKDAYS.index(text) - today.weekday()) % 7
        return today + timedelta(days=ahead or 7)  # the next one after today
    return date.fromisoformat(text)


def _person_matches(expected: str, resolution: Mapping[str, Any]) -> bool:
    want = expected.strip().casefold()
    status = resolution.get("status")
    if want == AMBIGUOUS:
        return status == "ambiguous"
    person = resolution.get("person") if status == "resolved" else None
    if isinstance(person, Mapping):
        return want in (str(person.get("id", "")).casefold(), str(person.get("email", "")).casefold())
    return status != "ambiguous" and want == str(resolution.get("query", "")).strip().casefold()


def _people_match(expected: Sequence[str], actual: Any) -> bool:
    resolutions = [actual] if isinstance(actual, Mapping) else list(actual or [])
    if len(expected) != len(resolutions):
        return False
    return any(
        all(_person_matches(e, r) for e, r in zip(expected, order, strict=True))
        for order in permutations(resolutions)
    )


def _card_day(card: Mapping[str, Any], zone: str) -> date | None:
    slots = card.get("slots") or []
    if not slots:
        return None
    start = datetime.fromisoformat(str(slots[0]["start"]))
    return start.astimezone(ZoneInfo(zone)).date()


def _person_seen(resolution: Mapping[str, Any]) -> str:
    """A resolution as the dataset would write it: the person's id, '?' (ambiguous), or the raw query."""
    person = resolution.get("person")
    if resolution.get("status") == "resolved" and isinstance(person, Mapping):
        return str(person.get("id"))
    return AMBIGUOUS if resolution.get("status") == "ambiguous" else str(resolution.get("query"))


def field_seen(name: str, card: Mapping[str, Any], *, zone: str) -> Any:
    """What the card holds for a listed field, in the dataset's terms (for the report)."""
    if name in PEOPLE_FIELDS:
        value = card.get(name)
        resolutions = [value] if isinstance(value, Mapping) else list(value or [])
        return [_person_seen(r) for r in resolutions if isinstance(r, Mapping)]
    if name == "day":
        day = _card_day(card, zone)
        return day.isoformat() if day else None
    return card.get(name)


def field_matches(name: str, expected: Any, card: Mapping[str, Any], *, zone: str, today: date) -> bool:
    """Whether one listed field of an expected card holds on the card the turn made."""
    if name in PEOPLE_FIELDS:
        people = [expected] if isinstance(expected, str) else list(expected)
        return _people_match(people, card.get(name))
    if name == "day":
        return _card_day(card, zone) == expected_day(str(expected), today)
    actual = card.get(name)
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.strip().casefold() == actual.strip().casefold()
    return bool(expected == actual)


def wrong_fields(expected: ExpectedCard, card: Mapping[str, Any], *, zone: str, today: date) -> list[str]:
    return [
        name
        for name, value in expected.fields.items()
        if not field_matches(name, value, card, zone=zone, today=today)
    ]


@dataclass(frozen=True, slots=True)
class CardCheck:
    """One expected card and the card paired with it (None: not made)."""

    type: str
    card_id: str | None
    wrong: tuple[str, ...]
    seen: Mapping[str, Any] = field(default_factory=dict)
    """What the card holds in each wrong field."""
    flagged: tuple[str, ...] = ()
    """The wrong fields the card itself flags: people it leaves unsettled for the user."""

    @property
    def silent(self) -> tuple[str, ...]:
        """The wrong fields the card does not flag: a user could confirm them unaware."""
        return tuple(name for name in self.wrong if name not in self.flagged)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "cardId": self.card_id,
            "found": self.card_id is not None,
            "wrong": list(self.wrong),
            "flagged": list(self.flagged),
            "got": dict(self.seen),
        }


@dataclass(frozen=True, slots=True)
class Score:
    exact: bool
    expected: int
    found: int
    silently_wrong: bool
    asked: bool
    checks: tuple[CardCheck, ...]
    unexpected: tuple[str, ...]
    """The types of cards made that no expected card accounts for."""


def unsettled(name: str, card: Mapping[str, Any]) -> bool:
    """Whether a people field of a card holds someone it has not settled (ambiguous or not found):
    the card shows it as a question, and cannot be confirmed until the user answers it."""
    if name not in PEOPLE_FIELDS:
        return False
    value = card.get(name)
    resolutions = [value] if isinstance(value, Mapping) else list(value or [])
    return any(isinstance(r, Mapping) and r.get("status") != "resolved" for r in resolutions)


def _check(expected: ExpectedCard, card: Mapping[str, Any] | None, *, zone: str, today: date) -> CardCheck:
    if card is None:
        return CardCheck(expected.type, None, ())
    wrong = wrong_fields(expected, card, zone=zone, today=today)
    seen = {name: field_seen(name, card, zone=zone) for name in wrong}
    flagged = tuple(name for name in wrong if unsettled(name, card))
    return CardCheck(expected.type, str(card.get("id")), tuple(wrong), seen, flagged)


def score_cards(expect: Expectation, cards: Sequence[Mapping[str, Any]], *, zone: str, today: date) -> Score:
    """Pair the expected cards with the cards made (per type, the pairing with fewest wrong fields)."""
    checks: list[CardCheck] = []
    unexpected: list[str] = []
    for kind in CARD_TYPES:
        wanted = [e for e in expect.cards if e.type == kind]
        made = [c for c in cards if c.get("type") == kind]
        slots: list[Mapping[str, Any] | None] = [*made, *([None] * max(0, len(wanted) - len(made)))]
        best: list[CardCheck] | None = None
        best_cost = math.inf
        for order in permutations(slots, len(wanted)):
            trial = [_check(e, card, zone=zone, today=today) for e, card in zip(wanted, order, strict=True)]
            cost = sum(len(c.wrong) + (100 if c.card_id is None else 0) for c in trial)
            if cost < best_cost:
                best, best_cost = trial, cost
            if cost == 0:
                break
        checks.extend(best or [])
        unexpected.extend([kind] * max(0, len(made) - len(wanted)))
    found = sum(1 for c in checks if c.card_id is not None)
    any_wrong = any(c.wrong for c in checks)
    return Score(
        exact=found == len(expect.cards) and not any_wrong and not unexpected,
        expected=len(expect.cards),
        found=found,
        silently_wrong=any(c.silent for c in checks) or bool(unexpected),
        asked=not cards,
        checks=tuple(checks),
        unexpected=tuple(unexpected),
    )


# -- running a case --------------------------------------------------------------------------------


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

    Each request is the HTTP API event API Gateway would send (:func:`multitool.local.gateway.http_api_event`)
    resolved by :func:`multitool.api.chat_app.chat_app` and :func:`multitool.api.review_app.review_app`,
    so an answer, and every error's mapping, is what the deployed functions answer.
    """

    label: str
    service: Any  # multitool.chat.service.ChatService
    reviewer: Any  # multitool.review.Reviewer
    seed: Any  # multitool.local.embedded.Seed
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
        from multitool.local.gateway import API_ROUTES, http_api_event, jwt_claims, proxy_response
        from multitool.local.lambdas import LambdaContext

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
        from multitool.local.gateway import LOCAL_USER_HEADER

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


# -- the report ------------------------------------------------------------------------------------


def percentile(values: Sequence[float], share: float) -> float | None:
    """The nearest-rank percentile (``share`` in 0..1) of ``values``; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


def summary(results: Sequence[CaseResult]) -> dict[str, Any]:
    """The overall measures of one model's run."""
    cases = len(results)
    expected = sum(r.score.expected for r in results)
    latencies = [r.answer.seconds * 1000 for r in results]
    metered = [r.answer.usage for r in results if r.answer.usage is not None]
    asks = [r for r in results if r.case.expect.asks]

    def total(read: Callable[[Usage], int]) -> int | None:
        return sum(read(u) for u in metered) if metered else None

    everything = [u for r in results for u in (r.answer.usage, r.history_usage) if u is not None]
    calls = total(lambda u: u.calls)
    tokens_in = total(lambda u: u.input_tokens)
    tokens_out = total(lambda u: u.output_tokens)
    return {
        "model": results[0].model if results else None,
        "cases": cases,
        "exact": sum(r.score.exact for r in results),
        "exactRate": _ratio(sum(r.score.exact for r in results), cases),
        "intentRecall": _ratio(sum(r.score.found for r in results), expected),
        "silentlyWrong": sum(r.score.silently_wrong for r in results),
        "flagged": sum(
            1 for r in results if not r.score.silently_wrong and any(c.flagged for c in r.score.checks)
        ),
        "silentlyWrongRate": _ratio(sum(r.score.silently_wrong for r in results), cases),
        "asked": sum(r.score.asked for r in results),
        "askedWhenRight": _ratio(sum(r.score.asked for r in asks), len(asks)),
        "errors": sum(1 for r in results if r.setup_error or r.answer.error),
        "modelCalls": calls,
        "inputTokens": tokens_in,
        "outputTokens": tokens_out,
        "cachedTokens": total(lambda u: u.cached_tokens),
        "cacheWriteTokens": total(lambda u: u.cache_write_tokens),
        "tokensPerCase": round((tokens_in + tokens_out) / len(metered), 1)
        if metered and tokens_in is not None and tokens_out is not None
        else None,
        "estimatedInputTokensPerCase": round(sum(u.estimated_input_tokens for u in metered) / len(metered), 1)
        if metered
        else None,
        "allTurns": {  # the bill: every turn the run made, the history's too
            "modelCalls": sum(u.calls for u in everything),
            "inputTokens": sum(u.input_tokens for u in everything),
            "outputTokens": sum(u.output_tokens for u in everything),
            "cachedTokens": sum(u.cached_tokens for u in everything),
            "cacheWriteTokens": sum(u.cache_write_tokens for u in everything),
            "estimatedInputTokens": sum(u.estimated_input_tokens for u in everything),
        }
        if everything
        else None,
        "latencyP50Ms": _round(percentile(latencies, 0.50)),
        "latencyP95Ms": _round(percentile(latencies, 0.95)),
        "notDiscarded": sum(r.undiscarded for r in results),
    }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _round(value: float | None) -> float | None:
    return round(value, 1) if value is not None else None


def report(runs: Sequence[Sequence[CaseResult]], *, runtime: str, datasets: Sequence[Path]) -> dict[str, Any]:
    """The JSON report: one summary per model, and one entry per case and model."""
    return {
        "runtime": runtime,
        "datasets": [str(p) for p in datasets],
        "models": [run[0].model for run in runs if run],
        "summary": [summary(run) for run in runs],
        "cases": [result.to_json() for run in runs for result in run],
    }


_ROWS: tuple[tuple[str, str], ...] = (
    ("cases", "cases"),
    ("exactRate", "exact"),
    ("intentRecall", "intent recall"),
    ("silentlyWrongRate", "silently wrong"),
    ("flagged", "wrong, flagged on the card"),
    ("asked", "asked (no card)"),
    ("askedWhenRight", "asked when it should"),
    ("errors", "errors"),
    ("modelCalls", "model calls"),
    ("inputTokens", "uncached input tokens"),
    ("outputTokens", "output tokens"),
    ("cachedTokens", "cache-read tokens"),
    ("cacheWriteTokens", "cache-write tokens"),
    ("tokensPerCase", "tokens per case"),
    ("estimatedInputTokensPerCase", "est. input tokens/case"),
    ("latencyP50Ms", "latency p50 ms"),
    ("latencyP95Ms", "latency p95 ms"),
    ("notDiscarded", "cards not discarded"),
)
_RATES = frozenset({"exactRate", "intentRecall", "silentlyWrongRate", "askedWhenRight"})


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "-"
    if key in _RATES:
        return f"{value * 100:.1f}%"
    return str(value)


def render_table(document: Mapping[str, Any], *, failures: int = 20) -> str:
    """The terminal table: one column per model, then each model's cases that were not exact."""
    summaries = document["summary"]
    header = ["", *(str(s["model"]) for s in summaries)]
    rows = [header, *([label, *(_cell(key, s[key]) for s in summaries)] for key, label in _ROWS)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for model in document["models"]:
        missed = [c for c in document["cases"] if c["model"] == model and not c["exact"]]
        if not missed:
            continue
        lines.append("")
        lines.append(
            f"{model}: {len(missed)} not exact" + (f" (first {failures})" if len(missed) > failures else "")
        )
        lines.extend(f"  {_miss(c)}" for c in missed[:failures])
    return "\n".join(lines)


def _miss(case: Mapping[str, Any]) -> str:
    parts: list[str] = []
    if case["error"]:
        parts.append(f"error {case['error']}")
    for check in case["cards"]:
        if not check["found"]:
            parts.append(f"missing {check['type']}")
        elif check["wrong"]:
            got = ", ".join(f"{name} {json.dumps(check['got'].get(name))}" for name in check["wrong"])
            parts.append(f"{check['type']} got {got}")
    parts.extend(f"unexpected {kind}" for kind in case["unexpectedCards"])
    flagged = any(check.get("flagged") for check in case["cards"])
    flag = " SILENTLY WRONG" if case["silentlyWrong"] else " (flagged on the card)" if flagged else ""
    return f"{case['id']}: {'; '.join(parts) or 'no card'}{flag}"


def floor_failure(
    document: Mapping[str, Any], min_exact: float | None, max_silently_wrong: float | None = None
) -> str | None:
    """Why the run fails its floors (a model's exact rate under ``min_exact``, or its silently
    wrong rate over ``max_silently_wrong``), or None."""
    reasons: list[str] = []
    for s in document["summary"]:
        if min_exact is not None and (s["exactRate"] or 0.0) < min_exact:
            reasons.append(
                f"{s['model']} scored {s['exactRate'] * 100:.1f}% exact, "
                f"under the floor of {min_exact * 100:.1f}%"
            )
        if max_silently_wrong is not None and (s["silentlyWrongRate"] or 0.0) > max_silently_wrong:
            reasons.append(
                f"{s['model']} was silently wrong on {s['silentlyWrong']} of {s['cases']} cases "
                f"({s['silentlyWrongRate'] * 100:.1f}%), over the ceiling of {max_silently_wrong * 100:.1f}%"
            )
    return "; ".join(reasons) or None


# -- the run ---------------------------------------------------------------------------------------

PINNED_HOUR_UTC = 12


def run_clock(spec: str, today: datetime | None = None) -> datetime:
    """The instant a run is pinned to: an ISO 8601 time with its offset, or a weekday name (the latest
    such day up to today, at 12:00 UTC), so the days a dataset names are read the same every week.

    A weekday stays within the drafts' week of life: what the run makes can still be discarded.
    """
    text = spec.strip()
    if text.casefold() in WEEKDAYS:
        now = (today or datetime.now(UTC)).astimezone(UTC)
        back = (now.weekday() - WEEKDAYS.index(text.casefold())) % 7
        return (now - timedelta(days=back)).replace(hour=PINNED_HOUR_UTC, minute=0, second=0, microsecond=0)
    try:
        pinned = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--now must be a weekday name or an ISO 8601 time, not {spec!r}") from None
    if pinned.tzinfo is None:
        raise ValueError(f"--now needs an offset or Z (2026-12-01T12:00:00Z), got {spec!r}")
    return pinned


ClientFactory = Callable[[str | None], Any]
"""A model id -> the model client to meter in place of the one the runtime made (tests: a Stubber's)."""


@contextmanager
def embedded_targets(
    runtime: str,
    model_ids: Sequence[str] = (),
    *,
    harness_arn: str | None = None,
    region: str | None = None,
    log_level: str = "WARNING",
    client_for: ClientFactory | None = None,
    now: datetime | None = None,
) -> Iterator[list[InProcessTarget]]:
    """One in-process target per model, all on one embedded AWS (``start_embedded``).

    Each service is the one the orchestrator builds (``aws_chat_service``) for that model's environment;
    its model client is wrapped in a :class:`MeteredClient`. The offline model answers for any id given.
    ``now`` pins the turns' clock (what "Thursday" and "tomorrow" mean to the model and the tools).
    """
    import os

    from multitool.api.chat_app import aws_chat_service
    from multitool.api.review_app import aws_reviewer
    from multitool.local.embedded import BackendChoice, start_embedded

    saved = dict(os.environ)  # start_embedded sets the handlers' environment here; put it back after
    labels: Sequence[str | None] = list(model_ids) or [None]
    first = BackendChoice.from_options(
        runtime=runtime,
        model_id=None if runtime == "offline" else labels[0],
        harness_arn=harness_arn,
    )
    from multitool.observability import logger

    running = start_embedded(first, region=region, log_level=log_level)
    level = logger.log_level
    logger.setLevel(log_level)  # the handlers' records would drown the table (it was read at import)
    try:
        aws_reviewer.cache_clear()
        reviewer = aws_reviewer()
        targets: list[InProcessTarget] = []
        for model_id in labels:
            if model_id and first.runtime.value == "converse":
                os.environ["MODEL_ID"] = model_id
            aws_chat_service.cache_clear()
            service = aws_chat_service()
            # ConverseRuntime and AgentCoreRuntime (the offline runtimes too) call the model as .client.
            model_runtime: Any = service.runtime
            client = client_for(model_id) if client_for is not None else model_runtime.client
            harness_model = model_id if first.runtime.value == "agentcore" else None
            meter = MeteredClient(client, harness_model_id=harness_model)
            model_runtime.client = meter
            if now is not None:
                service.clock = lambda: now
            label = model_id or ("offline model" if not first.uses_aws else first.runtime.value)
            targets.append(InProcessTarget(label, service, reviewer, running.seed, meter))
        aws_chat_service.cache_clear()
        yield targets
    finally:
        aws_chat_service.cache_clear()
        aws_reviewer.cache_clear()
        running.close()
        logger.setLevel(level)
        os.environ.clear()
        os.environ.update(saved)


def run_all(
    targets: Sequence[Target],
    cases: Sequence[Case],
    *,
    clock: Callable[[], datetime] | None = None,
    progress: Callable[[CaseResult], None] | None = None,
) -> list[list[CaseResult]]:
    """Every case on every target (the targets one after another), in the dataset's order."""
    now = clock or (lambda: datetime.now().astimezone())
    run_id = f"{int(time.time()):x}"
    runs: list[list[CaseResult]] = []
    for number, target in enumerate(targets):
        results: list[CaseResult] = []
        for case in cases:
            result = run_case(target, case, run_id=f"{run_id}-{number}", clock=now)
            if progress is not None:
                progress(result)
            results.append(result)
        runs.append(results)
    return runs
