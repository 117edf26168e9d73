"""The part of Slack's published Web API description the Slack app calls, extracted reproducibly.

Source: github.com/slackapi/slack-api-specs, ``web-api/slack_web_openapi_v2_without_examples.json``
(Swagger 2.0, "Slack Web API" 1.7.0; the examples-free twin of ``slack_web_openapi_v2.json``). That
repository is Slack's own and no longer updated (its README says so), so the commit below is its
last; the subset keeps each method the app calls, with its parameters and responses exactly as
published, every definition they refer to (``#/definitions/...``, followed transitively), and the
one security scheme with only the scopes those methods name. Nothing is rewritten: whatever the
stand-in needs beyond the description (Slack accepting every method's arguments as a query, a form
or, for write methods, JSON) is in :mod:`.slack_contract`, in words with its source.

Reproduce (from a clone of slack-api-specs, or the commit's file)::

    python -m multitool.local.standins.slack_openapi /path/to/slack-api-specs > \\
        shared/python/multitool/local/standins/slack_openapi.json

``tests/unit/local/test_slack_contract.py`` rebuilds the subset from the recorded source file (committed
compressed in ``tests/support/``, checked against the recorded git blob id) and asserts it equals the
committed one.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

SUBSET = Path(__file__).with_name("slack_openapi.json")

REPOSITORY = "https://github.com/slackapi/slack-api-specs"
COMMIT = "bc08db49625630e3585bf2f1322128ea04f2a7f3"
SOURCE_PATH = "web-api/slack_web_openapi_v2_without_examples.json"
SOURCE_BLOB = "f7b1affd1fb34f9473cd87980428883019b29c07"
"""The git blob id of ``SOURCE_PATH`` at ``COMMIT`` (``git rev-parse COMMIT:SOURCE_PATH``)."""

METHODS = (
    "auth.test",
    "chat.postEphemeral",
    "chat.postMessage",
    "chat.update",
    "conversations.open",
    "conversations.replies",
    "users.info",
    "views.open",
    "views.update",
)
"""The Web API methods the Slack app calls (and the stand-in answers)."""

_DEFINITIONS = "#/definitions/"


def git_blob_id(data: bytes) -> str:
    """The id git gives a file's bytes (``git hash-object``): SHA-1 of ``blob <size>\\0<data>``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def build_subset(source: bytes) -> dict[str, Any]:
    """The committed subset, made from the bytes of the recorded source file."""
    if git_blob_id(source) != SOURCE_BLOB:
        raise ValueError(f"not {SOURCE_PATH} at {COMMIT[:12]} (its git blob id differs)")
    document = json.loads(source)
    paths = {f"/{method}": document["paths"][f"/{method}"] for method in METHODS}
    definitions = document["definitions"]
    wanted: set[str] = set()
    pending = list(_references(paths))
    while pending:
        name = pending.pop()
        if name not in wanted:
            wanted.add(name)
            pending.extend(_references(definitions[name]))
    scheme = document["securityDefinitions"]["slackAuth"]
    used = {scope for path in paths.values() for op in path.values() for scope in _scopes(op)}
    return {
        "swagger": document["swagger"],
        "info": {
            **document["info"],
            "x-source": {
                "repository": REPOSITORY,
                "commit": COMMIT,
                "path": SOURCE_PATH,
                "blob": SOURCE_BLOB,
                "module": "multitool.local.standins.slack_openapi",
            },
        },
        "host": document["host"],
        "basePath": document["basePath"],
        "schemes": document["schemes"],
        "securityDefinitions": {
            "slackAuth": {
                **scheme,
                "scopes": {k: v for k, v in scheme["scopes"].items() if k in used},
            }
        },
        "paths": paths,
        "definitions": {name: definitions[name] for name in sorted(wanted)},
    }


def render(subset: Mapping[str, Any]) -> str:
    """The subset as committed: sorted keys, two-space indent, a final newline."""
    return json.dumps(subset, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _references(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_DEFINITIONS):
            yield ref.removeprefix(_DEFINITIONS)
        for value in node.values():
            yield from _references(value)
    elif isinstance(node, list):
        for value in node:
            yield from _references(value)


def _scopes(operation: Mapping[str, Any]) -> Iterator[str]:
    for requirement in operation.get("security", ()):
        yield from requirement.get("slackAuth", ())


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(
            "usage: python -m multitool.local.standins.slack_openapi <slack-api-specs clone>", file=sys.stderr
        )
        return 2
    source = subprocess.run(  # noqa: S603 - git, on the clone named on the command line
        ["git", "-C", argv[0], "show", f"{COMMIT}:{SOURCE_PATH}"],  # noqa: S607 - git from PATH
        capture_output=True,
        check=True,
    ).stdout
    sys.stdout.write(render(build_subset(source)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
