"""Google's APIs as the adapters' HTTP client sees them in unit tests, held to Google's own descriptions.

:class:`ScriptedGoogle` takes the place of the ``urllib3.PoolManager`` the adapters are built
with. Every request is checked against the discovery documents google-api-python-client ships
(:mod:`multitool.local.standins.google_discovery`): the method and path template, each parameter, the
body by its schema. Each answer the test scripts names the method it answers and is checked
against that method's response schema (or Google's error format) before the adapter sees it.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any, cast

import urllib3
from multitool.local.standins.google_discovery import CheckedRequest, Discovery, error_body, load_discovery
from multitool.ports.tokens import Account, Provider

_DISCOVERY = load_discovery()


def discovery() -> Discovery:
    if _DISCOVERY is None:
        raise RuntimeError(
            "google-api-python-client (a dev dependency) is not installed: pip install -e '.[dev]'"
        )
    return _DISCOVERY


@dataclass
class FakeResponse:
    status: int
    data: bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Scripted:
    method_id: str
    status: int
    body: Any
    headers: dict[str, str]


@dataclass(frozen=True)
class Sent:
    checked: CheckedRequest
    headers: dict[str, str]

    @property
    def method_id(self) -> str:
        return self.checked.operation.id

    @property
    def body(self) -> Any:
        return self.checked.body

    def param(self, name: str) -> str | None:
        values = self.checked.query.get(name)
        return values[0] if values else None


class ScriptedGoogle:
    """A PoolManager stand-in answering from a script, in order; see the module docstring."""

    def __init__(self) -> None:
        self.sent: list[Sent] = []
        self._script: deque[Scripted] = deque()

    @property
    def http(self) -> urllib3.PoolManager:
        return cast(urllib3.PoolManager, self)

    def answer(
        self, method_id: str, body: Any = None, *, status: int = 200, headers: dict[str, str] | None = None
    ) -> None:
        operation = discovery().operation(method_id)
        discovery().check_response(operation, status, body)
        self._script.append(Scripted(method_id, status, body, headers or {}))

    def error(self, method_id: str, status: int, reason: str, message: str = "", **headers: str) -> None:
        self.answer(method_id, error_body(status, reason, message or reason), status=status, headers=headers)

    def request(
        self, method: str, url: str, body: bytes | None = None, headers: Any = None, **_: Any
    ) -> FakeResponse:
        checked = discovery().check_request(method, url, body)
        sent_headers = dict(headers or {})
        assert sent_headers.get("Authorization", "").startswith("Bearer "), (
            "every call carries a bearer token"
        )
        self.sent.append(Sent(checked, sent_headers))
        assert self._script, f"unexpected request {checked.operation.id}"
        scripted = self._script.popleft()
        assert scripted.method_id == checked.operation.id, (
            f"sent {checked.operation.id}, expected {scripted.method_id}"
        )
        data = b"" if scripted.body is None else json.dumps(scripted.body).encode()
        return FakeResponse(scripted.status, data, scripted.headers)

    def done(self) -> bool:
        return not self._script


class FixedTokens:
    """A token source that records the scopes each call asked for."""

    def __init__(self, token: str = "ya29.test-token") -> None:
        self.token = token
        self.asked: list[tuple[Provider, Account, tuple[str, ...]]] = []

    def access_token(self, provider: Provider, account: Account, scopes: Any) -> str:
        self.asked.append((provider, account, tuple(scopes)))
        return self.token


def person(resource: str, name: str, email: str, *more_emails: str) -> dict[str, Any]:
    """A People API Person as searchDirectoryPeople answers it (names, emailAddresses)."""
    return {
        "resourceName": resource,
        "etag": "%EgUBAi43PRoEAQIFByIMR0xRVzNrUjRuaDQ9",
        "names": [
            {
                "metadata": {
                    "primary": True,
                    "source": {"type": "DOMAIN_PROFILE", "id": resource.split("/")[-1]},
                },
                "displayName": name,
                "givenName": name.split(" ")[0],
                "familyName": name.split(" ")[-1],
            }
        ],
        "emailAddresses": [
            {"metadata": {"primary": True}, "value": email},
            *({"metadata": {}, "value": e} for e in more_emails),
        ],
    }
