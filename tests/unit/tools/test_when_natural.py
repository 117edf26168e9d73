"""ISO 8601, a day named by one word, and parsedatetime's reading pinned to the request's now
(:mod:`multitool.tools.meeting.when.natural`)."""

from __future__ import annotations

import random
import time as time_module
from datetime import UTC, date, datetime, time, timedelta

import pytest
from multitool.tools.meeting.when import RequestedTime, natural, read_phrase, reader, resolve_when

from tests.support.meeting_when import TOKENS, ctx, readings


def test_weekday_name_is_the_coming_one() -> None:
    assert resolve_when("Thursday", ctx()).day == date(2026, 12, 3)
    assert resolve_when("Thursday", ctx()).time is None


def test_weekday_named_on_that_weekday_is_next_week() -> None:
    thursday = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
    assert resolve_when("Thursday", ctx(thursday)).day == date(2026, 12, 10)


def test_today_is_today() -> None:
    assert resolve_when("today", ctx()).day == date(2026, 12, 1)


def test_tomorrow_at_3pm_carries_the_time() -> None:
    requested = resolve_when("tomorrow at 3pm", ctx())
    assert (requested.day, requested.time) == (date(2026, 12, 2), time(15, 0))


def test_next_tuesday_is_the_coming_tuesday() -> None:
    assert resolve_when("next Tuesday", ctx()).day == date(2026, 12, 8)


def test_relative_days_use_the_users_zone_not_utc() -> None:
    # 23:30 UTC on Monday is already Tuesday 08:30 in Tokyo: "tomorrow" is Wednesday there.
    late_monday_utc = datetime(2026, 11, 30, 23, 30, tzinfo=UTC)
    assert resolve_when("tomorrow", ctx(late_monday_utc, "Asia/Tokyo")).day == date(2026, 12, 2)
    assert resolve_when("tomorrow", ctx(late_monday_utc, "UTC")).day == date(2026, 12, 1)


@pytest.mark.parametrize(
    ("text", "day", "at"),
    [
        ("2026-12-04", date(2026, 12, 4), None),
        ("2026-12-04T14:30", date(2026, 12, 4), time(14, 30)),
        ("2026-12-04T13:30:00Z", date(2026, 12, 4), time(14, 30)),  # converted into Berlin time
        ("20261204T143000", date(2026, 12, 4), time(14, 30)),
    ],
)
def test_iso_8601(text: str, day: date, at: time | None) -> None:
    requested = resolve_when(text, ctx())
    assert (requested.day, requested.time) == (day, at)


_ONE_WORD_DAYS = [*natural._PLAIN_DAYS, "Thursday", "FRIDAY", " Mon "]


@pytest.mark.parametrize("offset", range(7))
@pytest.mark.parametrize("word", _ONE_WORD_DAYS)
def test_a_day_named_by_one_word_reads_as_parsedatetime_reads_it(word: str, offset: int) -> None:
    # Given each weekday of a week as today, just after midnight in the user's zone (still the day
    # before in UTC)
    today = ctx(datetime(2026, 11, 29, 23, 30, tzinfo=UTC) + timedelta(days=offset))

    # When the word is read without parsedatetime, and by parsedatetime itself
    plain = natural._plain_day(word, today)
    parsed, status = natural._calendar().parseDT(word, sourceTime=today.local_now.replace(tzinfo=None))

    # Then both name the same day, with no time
    assert status == 1
    assert plain == RequestedTime(parsed.date())


@pytest.mark.parametrize("offset", range(7))
@pytest.mark.parametrize("word", _ONE_WORD_DAYS)
def test_a_one_word_phrase_reads_as_the_whole_phrase_reading_reads_it(
    word: str, offset: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given each weekday of a week as today
    today = ctx(datetime(2026, 11, 29, 23, 30, tzinfo=UTC) + timedelta(days=offset))

    # When the phrase is read with its one-word shortcut, and with no word known as a plain day (every
    # pattern for zones, negations, alternatives and times run, then parsedatetime)
    short = read_phrase(word, today)
    monkeypatch.setattr(natural, "_PLAIN_DAYS", {})
    monkeypatch.setattr(reader, "_PLAIN_DAYS", {})
    whole = read_phrase(word, today)

    # Then both readings are the same, the note on which weekday was meant included
    assert short == whole
    assert short.request is not None
    assert len(short.request.options) == 1


def test_a_phrase_of_more_than_one_day_word_is_left_to_parsedatetime() -> None:
    assert natural._plain_day("next Thursday", ctx()) is None
    assert natural._plain_day("Thursday 3pm", ctx()) is None


def test_a_reading_depends_on_the_requests_time_alone_not_the_machines_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """parsedatetime falls back to the process's clock in places ("from midnight" was the machine's
    tomorrow, "14 january next" the machine's today): the same phrases at the same request time read
    the same whatever the machine's clock says."""
    rng = random.Random(11)
    phrases = [" ".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 7))) for _ in range(1500)]
    phrases += ["from midnight", "14 january next"]
    real = time_module.localtime

    def read_at(clock: float) -> list[object]:
        monkeypatch.setattr(time_module, "localtime", lambda secs=None: real(clock if secs is None else secs))
        return readings(phrases)

    assert read_at(1_577_836_830.0) == read_at(1_907_502_479.0)  # 2020-01-01, 2030-06-12
