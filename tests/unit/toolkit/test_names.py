"""Name resolution: case- and accent-insensitive, resolved / ambiguous / unknown, external addresses."""

from __future__ import annotations

import pytest
from multitool.local.sandbox.memory import MemoryDirectory
from multitool.people import Resolution
from multitool.ports.directory import directory_items, name_keys, normalize_name
from multitool.toolkit.common import resolve_recipient

from tests.support.bedrock_events import sample_people


@pytest.fixture
def directory() -> MemoryDirectory:
    return MemoryDirectory(sample_people())


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("Zoë", "zoe"),
        ("ZOE", "zoe"),
        ("  zoe  ", "zoe"),
        ("Zoë   Müller", "zoe muller"),
        ("Straße", "strasse"),
    ],
)
def test_normalization_ignores_case_accents_and_spacing(raw: str, key: str) -> None:
    assert normalize_name(raw) == key


def test_a_person_answers_to_full_first_last_alias_and_email() -> None:
    priya = sample_people()[3]
    assert name_keys(priya) == {"priya raman", "priya", "raman", "pr", "pri", "priya@example.com"}


def test_unique_first_name_resolves(directory: MemoryDirectory) -> None:
    result = directory.resolve(["kinshuok"])["kinshuok"]
    assert result.status is Resolution.RESOLVED
    assert result.person is not None
    assert result.person.email == "kinshuok@example.com"
    assert result.query == "kinshuok"


def test_shared_first_name_is_ambiguous_with_every_candidate(directory: MemoryDirectory) -> None:
    result = directory.resolve(["Zoe"])["Zoe"]
    assert result.status is Resolution.AMBIGUOUS
    assert result.person is None
    assert [p.id for p in result.candidates] == ["p-zoe-p", "p-zoe-m"]  # sorted by display name


def test_accented_full_name_typed_without_accents_resolves(directory: MemoryDirectory) -> None:
    result = directory.resolve(["zoe muller"])["zoe muller"]
    assert result.status is Resolution.RESOLVED
    assert result.person is not None
    assert result.person.id == "p-zoe-m"


def test_alias_and_email_resolve(directory: MemoryDirectory) -> None:
    found = directory.resolve(["pri", "PRIYA@example.com"])
    assert {r.person.id for r in found.values() if r.person} == {"p-pri"}


def test_unknown_name_is_unknown_not_guessed(directory: MemoryDirectory) -> None:
    result = directory.resolve(["Bob"])["Bob"]
    assert result.status is Resolution.UNKNOWN
    assert result.person is None
    assert result.candidates == ()


def test_all_names_resolve_in_one_read(directory: MemoryDirectory) -> None:
    directory.resolve(["Kinshuok", "Zoe", "Bob", "pri"])
    assert directory.reads == 1


def test_address_outside_the_directory_is_an_external_recipient(directory: MemoryDirectory) -> None:
    people = directory.resolve(["guest@partner.org", "Bob"])
    external = resolve_recipient("guest@partner.org", people)
    assert external.status is Resolution.RESOLVED
    assert external.person is not None
    assert external.person.id == "external:guest@partner.org"
    assert resolve_recipient("Bob", people).status is Resolution.UNKNOWN


def test_directory_items_hold_one_index_item_per_name_with_every_match() -> None:
    items = directory_items(sample_people())
    zoe = next(i for i in items if i["pk"]["S"] == "NAME#zoe")
    assert len(zoe["people"]["L"]) == 2
    profiles = [i for i in items if i["pk"]["S"].startswith("PERSON#")]
    assert len(profiles) == 4
