"""Findings of the runtime review in the ports: names whose lookup key DynamoDB cannot hold."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from multitool.ports.directory import NAME_PREFIX, DynamoDirectory, normalize_name
from multitool.tools.base import MAX_NAME_CHARS

MAX_KEY_BYTES = 2048  # DynamoDB's limit on a partition key value


class KeyCheckingDynamo:
    """batch_get_item as DynamoDB answers it: a key over 2048 bytes fails the whole request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(RequestItems)
        for table in RequestItems.values():
            for key in table["Keys"]:
                if len(key["pk"]["S"].encode()) > MAX_KEY_BYTES:
                    raise ClientError(
                        {"Error": {"Code": "ValidationException", "Message": "Key too large"}}, "BatchGetItem"
                    )
        return {"Responses": {name: [] for name in RequestItems}, "UnprocessedKeys": {}}


@pytest.mark.parametrize("name", ["\ufdfa" * MAX_NAME_CHARS, "\u3300" * MAX_NAME_CHARS])
def test_a_name_whose_normalized_key_is_too_long_for_dynamodb_is_unknown(name: str) -> None:
    # Given a name within the tools' length limit whose NFKD form expands past DynamoDB's key limit
    assert len((NAME_PREFIX + normalize_name(name)).encode()) > MAX_KEY_BYTES
    client = KeyCheckingDynamo()
    # When it is resolved with an ordinary name in one read
    found = DynamoDirectory("directory", client).resolve(["Kinshuok", name])  # type: ignore[arg-type]
    # Then it is simply unknown (no person can answer to it), and the other name is still looked up
    assert found[name].status.value == "unknown"
    assert found["Kinshuok"].status.value == "unknown"
    [request] = client.requests
    assert request["directory"]["Keys"] == [{"pk": {"S": "NAME#kinshuok"}, "sk": {"S": "NAME"}}]
