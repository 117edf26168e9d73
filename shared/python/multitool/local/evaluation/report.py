"""The report: the measures per model over the cases, the table printed and the floors of ``make eval``."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from multitool.local.evaluation.targets import CaseResult, Usage


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
