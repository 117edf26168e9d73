"""The model-calls benchmark measures what it says: one call where the cards say it all, two elsewhere."""

from __future__ import annotations

from benchmarks import bench_model_calls as bench


def test_the_benchmark_counts_one_model_call_only_where_every_call_made_a_settled_draft() -> None:
    figures = bench.measure()

    labels = [label for label, _ in bench.REQUESTS]
    for runs in figures.values():
        before = dict(zip(labels, runs["before"], strict=True))
        after = dict(zip(labels, runs["after"], strict=True))
        assert {turns.first_calls for turns in before.values()} == {2}
        settled = ("email + meeting", "jira + email about it", "email + meeting + jira", "meeting + email")
        for label in settled:
            assert after[label].first_calls == 1
            assert after[label].first_tokens < before[label].first_tokens
            assert after[label].message.startswith("I drafted") or after[label].message.startswith("I found")
        for label in ("ambiguous name", "refused call"):
            assert after[label].first_calls == 2
            assert after[label].first_tokens == before[label].first_tokens
