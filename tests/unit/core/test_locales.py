"""The locale a user writes dates in: the directory's, the sign-in's, else their zone's country's."""

from __future__ import annotations

from datetime import UTC, datetime

import boto3
import pytest
from moto import mock_aws
from multitool.local.standins.oidc import LocalOidc
from multitool.people import Person
from multitool.ports.directory import DynamoDirectory, seed_people
from multitool.ports.tables import create_all
from multitool.runtimes.base import TurnRequest
from multitool.runtimes.prompts import time_context
from multitool.zones import DateOrder, date_order, valid_locale

PRIYA = Person(
    id="priya",
    display_name="Priya Natarajan",
    email="priya@example.com",
    timezone="Europe/London",
    locale="en-GB",
)


@pytest.mark.parametrize(
    ("locale", "timezone", "order"),
    [
        ("en-GB", "America/New_York", DateOrder(True, "en-GB")),
        ("en-US", "Europe/London", DateOrder(False, "en-US")),
        ("zh-Hant-TW", "UTC", DateOrder(False, "zh-Hant-TW")),
        (None, "Europe/London", DateOrder(True, "GB, the country of your time zone Europe/London")),
        (None, "America/Chicago", DateOrder(False, "US, the country of your time zone America/Chicago")),
        (None, "Pacific/Guam", DateOrder(False, "GU, the country of your time zone Pacific/Guam")),
        (None, "UTC", DateOrder(None, "your time zone UTC names no country")),
        (None, "Asia/Manila", DateOrder(None, "PH, the country of your time zone Asia/Manila")),
        ("en", "Europe/Paris", DateOrder(True, "FR, the country of your time zone Europe/Paris")),
    ],
)
def test_the_order_of_day_and_month_comes_from_the_locale_else_the_zones_country(
    locale: str | None, timezone: str, order: DateOrder
) -> None:
    assert date_order(locale, timezone) == order


@pytest.mark.parametrize("tag", ["en-GB", "en_US", "fr", "zh-Hant-TW", "und-GB"])
def test_language_tags_are_valid_locales(tag: str) -> None:
    assert valid_locale(tag) == tag


@pytest.mark.parametrize("tag", ["", "e", "english please", "en-GB; drop table", 42, None, "x" * 40])
def test_anything_else_is_no_locale(tag: object) -> None:
    assert valid_locale(tag) is None


def test_the_directory_keeps_a_persons_locale_and_reads_none_where_absent() -> None:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        table = create_all(client)["DIRECTORY_TABLE_NAME"]
        seed_people(client, table, [PRIYA, Person(id="mei", display_name="Mei", email="mei@example.com")])
        found = DynamoDirectory(table, client).resolve(["Priya", "Mei"])
    priya, mei = found["Priya"].person, found["Mei"].person
    assert priya is not None
    assert priya.locale == "en-GB"
    assert mei is not None
    assert mei.locale is None


def test_the_local_sign_in_says_the_persons_locale_as_the_standard_claim() -> None:
    profile = LocalOidc._profile(PRIYA)
    assert profile["locale"] == "en-GB"
    assert "locale" not in LocalOidc._profile(Person(id="m", display_name="Mei", email="mei@example.com"))


def test_the_locale_travels_to_the_action_groups_and_the_prompt() -> None:
    turn = TurnRequest("u", "s", "hi", "America/New_York", datetime(2026, 12, 7, tzinfo=UTC), locale="en-GB")
    assert turn.session_attributes()["locale"] == "en-GB"
    prompt = time_context(timezone="America/New_York", locale="en-GB")
    assert "The user's locale is en-GB." in prompt
    assert "day/month (3/1 is 3 January)" in prompt
    assert "month/day (3/1 is 1 March)" in time_context(timezone="America/New_York")
