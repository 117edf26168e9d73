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
        settled = (
            "email + meeting",
            "jira + email about it",
            "email + meeting + jira",
            "meeting + email",
            "move + email",
            "cancel",
        )
        for label in settled:
            assert after[label].first_calls == 1
            assert after[label].first_tokens < before[label].first_tokens
            assert after[label].message.startswith(("I drafted", "I found", "I prepared"))
        for label in ("ambiguous name", "refused call"):
            assert after[label].first_calls == 2
            assert after[label].first_tokens == before[label].first_tokens


def test_after_the_first_call_every_converse_turn_reads_the_standing_prefix_from_the_cache() -> None:
    figures = bench.measure()

    turns = figures["converse"]["after"]
    # The first call of all writes the tools and the standing system prompt; nothing is there to read.
    first = turns[0].first_usage
    assert first.cache_read == 0
    assert first.cache_write >= bench.MIN_CACHED_TOKENS
    # Every later call, another user's first turn or a follow-up, reads exactly what was written.
    for later in [t.first_usage for t in turns[1:]] + [t.next_usage for t in turns]:
        assert later.cache_write == 0
        assert later.cache_read > 0
        assert later.cache_read % first.cache_write == 0  # one prefix per model call
    # The harness takes no cache point: its usage reads and writes nothing.
    for t in figures["harness"]["after"]:
        assert (t.first_usage.cache_read, t.first_usage.cache_write, t.next_usage.cache_write) == (0, 0, 0)


def test_the_stand_in_cache_hits_only_on_the_same_bytes_and_from_the_minimum() -> None:
    point = {"cachePoint": {"type": "default"}}
    spec = {"toolSpec": {"name": "t", "description": "x" * 5000, "inputSchema": {"json": {}}}}
    request = {
        "toolConfig": {"tools": [spec, point]},
        "system": [{"text": "rules"}, point, {"text": "zone A"}],
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
    }
    cache = bench.PromptCache()

    written = cache.usage(request)
    again = cache.usage({**request, "system": [{"text": "rules"}, point, {"text": "zone B"}]})
    changed = cache.usage({**request, "system": [{"text": "other rules"}, point, {"text": "zone A"}]})
    short = bench.PromptCache().usage({**request, "toolConfig": {"tools": [point]}})

    assert written["cacheReadInputTokens"] == 0
    assert written["cacheWriteInputTokens"] > bench.MIN_CACHED_TOKENS
    assert again["cacheReadInputTokens"] == written["cacheWriteInputTokens"]
    assert again["cacheWriteInputTokens"] == 0
    # A changed system prompt still reads the tools' checkpoint and writes the rest.
    assert 0 < changed["cacheReadInputTokens"] < written["cacheWriteInputTokens"]
    assert changed["cacheWriteInputTokens"] > 0
    assert (short["cacheReadInputTokens"], short["cacheWriteInputTokens"]) == (0, 0)


def test_a_linked_turn_is_one_model_call_where_approving_inside_the_loop_takes_one_per_approval() -> None:
    rows = bench.measure_linked()

    assert len(rows) == len(bench.LINKED)
    for row in rows:
        assert row.links >= 1  # the mail's card waits for the other card
        assert row.one_call_calls == 1
        assert row.approvals == 2
        assert row.loop_calls == row.approvals + 1  # a call per approval, and one for the answer
        assert row.loop_tokens > 2 * row.one_call_tokens
