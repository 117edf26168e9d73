"""Directory port: raw names -> people.

Table layout (``multitool.ports.tables.DIRECTORY``, keys ``pk``/``sk``) is built so
that resolving every name of a request is ONE ``BatchGetItem``:

- ``pk="NAME#<normalized name>"``, ``sk="NAME"``: an index item per name a
  person answers to (full name, first name, last name, each alias, email
  address), holding ``people``: the list of matching people as maps.
- ``pk="PERSON#<id>"``, ``sk="PROFILE"``: the person record itself.

Normalization is case- and accent-insensitive (NFKD, combining marks dropped,
casefold, whitespace collapsed): "Zoë", "ZOE" and " zoe " are the same key.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from multitool.people import NameResolution, Person, Resolution

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

NAME_PREFIX = "NAME#"
NAME_SORT_KEY = "NAME"
PERSON_PREFIX = "PERSON#"
PERSON_SORT_KEY = "PROFILE"
BATCH_GET_LIMIT = 100
MAX_KEY_BYTES = 2048  # DynamoDB's limit on a partition key value
_MAX_UNPROCESSED_RETRIES = 5
_SPACES = re.compile(r"\s+")
NAMES_LIMIT = 5000
"""The most names :meth:`DynamoDirectory.names` reads (a suggestion list, not a listing)."""


class Directory(Protocol):
    def resolve(self, names: Sequence[str]) -> Mapping[str, NameResolution]:
        """Resolve every name of a request in ONE backend read.

        Keys are the names exactly as given. Matching is case- and
        accent-insensitive; several matches are ``ambiguous``, none ``unknown``.
        """
        ...


def normalize_name(raw: str) -> str:
    """The lookup key for a name: accents dropped, case folded, whitespace collapsed."""
    decomposed = unicodedata.normalize("NFKD", raw)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _SPACES.sub(" ", stripped.casefold()).strip()


def name_keys(person: Person) -> set[str]:
    """Every normalized name a person answers to."""
    keys = {normalize_name(person.display_name), normalize_name(person.email)}
    parts = normalize_name(person.display_name).split(" ")
    if len(parts) > 1:
        keys.update({parts[0], parts[-1]})
    keys.update(normalize_name(alias) for alias in person.aliases)
    keys.discard("")
    return keys


def resolution_for(query: str, matches: Iterable[Person]) -> NameResolution:
    """One person -> resolved; several -> ambiguous (sorted by name); none -> unknown."""
    unique = sorted({p.id: p for p in matches}.values(), key=lambda p: (p.display_name, p.id))
    if len(unique) == 1:
        return NameResolution(query=query, status=Resolution.RESOLVED, person=unique[0])
    if unique:
        return NameResolution(query=query, status=Resolution.AMBIGUOUS, candidates=tuple(unique))
    return NameResolution(query=query, status=Resolution.UNKNOWN)


def name_index(people: Iterable[Person]) -> dict[str, list[Person]]:
    """normalized name -> people answering to it (what the table's index items hold)."""
    index: dict[str, list[Person]] = {}
    for person in people:
        for key in name_keys(person):
            index.setdefault(key, []).append(person)
    return index


def _person_to_attr(person: Person) -> dict[str, Any]:
    wire = person.to_wire()
    return {
        "M": {
            "id": {"S": wire["id"]},
            "displayName": {"S": wire["displayName"]},
            "email": {"S": wire["email"]},
            "timezone": {"S": wire["timezone"]},
            "aliases": {"L": [{"S": a} for a in wire["aliases"]]},
            **({"locale": {"S": person.locale}} if person.locale else {}),
        }
    }


def _person_from_attr(value: Mapping[str, Any]) -> Person:
    data = value["M"]
    return Person(
        id=data["id"]["S"],
        display_name=data["displayName"]["S"],
        email=data["email"]["S"],
        timezone=data.get("timezone", {}).get("S", "UTC"),
        aliases=tuple(a["S"] for a in data.get("aliases", {}).get("L", [])),
        locale=data.get("locale", {}).get("S") or None,
    )


class DynamoDirectory:
    """The directory in DynamoDB; every :meth:`resolve` is one ``BatchGetItem``."""

    def __init__(self, table_name: str, client: DynamoDBClient) -> None:
        self._table = table_name
        self._client = client

    def resolve(self, names: Sequence[str]) -> Mapping[str, NameResolution]:
        keys = {name: normalize_name(name) for name in names}
        # A key DynamoDB cannot hold names no one (NFKD can expand a short name past the limit);
        # asking for it would fail the whole read with a ValidationException.
        wanted = sorted({k for k in keys.values() if k and len((NAME_PREFIX + k).encode()) <= MAX_KEY_BYTES})
        found: dict[str, list[Person]] = {}
        # More than 100 distinct names cannot happen within the tools' limits; chunk anyway.
        for start in range(0, len(wanted), BATCH_GET_LIMIT):
            found.update(self._batch_get(wanted[start : start + BATCH_GET_LIMIT]))
        return {name: resolution_for(name, found.get(key, ())) for name, key in keys.items()}

    def names(self, limit: int = NAMES_LIMIT) -> tuple[str, ...]:
        """Every name the directory answers to, normalized, up to ``limit`` (a Scan of the name
        items, for the offline model's "did you mean" on a mistyped name: a development aid).

        A role without ``dynamodb:Scan`` on the table (the deployed functions only read items by
        key) gets no names, and the offline model then suggests none; nothing else depends on it.
        """
        from botocore.exceptions import ClientError

        found: list[str] = []
        params: dict[str, Any] = {
            "TableName": self._table,
            "ProjectionExpression": "pk",
            "FilterExpression": "begins_with(pk, :prefix)",
            "ExpressionAttributeValues": {":prefix": {"S": NAME_PREFIX}},
        }
        try:
            while len(found) < limit:
                page = self._client.scan(**params)
                found += [item["pk"]["S"].removeprefix(NAME_PREFIX) for item in page.get("Items", [])]
                if not page.get("LastEvaluatedKey"):
                    break
                params["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        except ClientError:
            return ()
        return tuple(sorted(found)[:limit])

    def _batch_get(self, normalized: Sequence[str]) -> dict[str, list[Person]]:
        request: dict[str, Any] = {
            self._table: {
                "Keys": [{"pk": {"S": NAME_PREFIX + key}, "sk": {"S": NAME_SORT_KEY}} for key in normalized],
                "ProjectionExpression": "pk, people",
            }
        }
        found: dict[str, list[Person]] = {}
        for _ in range(_MAX_UNPROCESSED_RETRIES):
            response = self._client.batch_get_item(RequestItems=request)
            for item in response.get("Responses", {}).get(self._table, []):
                key = item["pk"]["S"].removeprefix(NAME_PREFIX)
                people = item.get("people", {}).get("L", [])
                found[key] = [_person_from_attr(p) for p in people]
            unprocessed = response.get("UnprocessedKeys") or {}
            if not unprocessed:
                return found
            request = dict(unprocessed)
        raise RuntimeError("The directory kept returning unprocessed keys; try again.")


def directory_items(people: Iterable[Person]) -> list[dict[str, Any]]:
    """The table items (DynamoDB attribute-value form) describing ``people``."""
    people = list(people)
    items: list[dict[str, Any]] = [
        {"pk": {"S": PERSON_PREFIX + p.id}, "sk": {"S": PERSON_SORT_KEY}, "person": _person_to_attr(p)}
        for p in people
    ]
    for key, matches in sorted(name_index(people).items()):
        items.append(
            {
                "pk": {"S": NAME_PREFIX + key},
                "sk": {"S": NAME_SORT_KEY},
                "people": {"L": [_person_to_attr(p) for p in matches]},
            }
        )
    return items


def seed_people(client: DynamoDBClient, table_name: str, people: Iterable[Person]) -> int:
    """Write ``people`` (profiles and name-index items) to the directory table; returns items written.

    Rewrites the index items for the given people as a whole: seed the full
    directory at once (tests, the local demo, an import job).
    """
    items = directory_items(people)
    for start in range(0, len(items), 25):
        batch: dict[str, Any] = {table_name: [{"PutRequest": {"Item": i}} for i in items[start : start + 25]]}
        for _ in range(_MAX_UNPROCESSED_RETRIES):
            response = client.batch_write_item(RequestItems=batch)
            batch = dict(response.get("UnprocessedItems") or {})
            if not batch:
                break
        else:
            raise RuntimeError("The directory table kept returning unprocessed items.")
    return len(items)
