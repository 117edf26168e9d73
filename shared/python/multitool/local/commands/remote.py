"""A running ``multitool serve`` as the commands reach it: its address, its local users, its answers."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from multitool.local.commands.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CliError, check_user, decode

DEFAULT_URL = "http://127.0.0.1:8000"
URL_VARIABLE = "MULTITOOL_URL"
"""Where the running ``multitool serve`` is, when not at :data:`DEFAULT_URL` (``--url`` wins)."""


def server_url() -> str:
    """The running server the commands talk to: ``$MULTITOOL_URL``, else :data:`DEFAULT_URL`."""
    return os.environ.get(URL_VARIABLE) or DEFAULT_URL


def print_answer(what: str, status: int, payload: Any) -> int:
    """The answer's JSON on stdout; on an error, also one line on stderr with its code and message."""
    json.dump(payload, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    if status < 400:
        return EXIT_OK
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        detail = f"{error.get('code', status)}: {error.get('message', '')}"
    else:
        message = payload.get("message") if isinstance(payload, dict) else None
        detail = f"{status}: {message or 'no details'}"
    print(f"multitool: {what} failed with HTTP {status}, {detail}", file=sys.stderr)
    return EXIT_ERROR


class Remote:
    """A running ``multitool serve``: requests signed in as a local user, refusals in one line."""

    def __init__(self, url: str, timeout: float = 120) -> None:
        base = url.rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise CliError(f"--url must start with http:// or https://, got {url!r}", EXIT_USAGE)
        self.base = base
        self.timeout = timeout

    def user(self, wanted: str | None) -> str:
        """``wanted`` if the server knows it (else the valid ids), or the server's default user."""
        directory = self._directory()
        return check_user(wanted or str(directory.get("defaultUser")), self.users(directory))

    def users(self, directory: dict[str, Any] | None = None) -> list[str]:
        """The ids of the users the server signs in locally."""
        listed = directory if directory is not None else self._directory()
        return [str(u.get("id")) for u in listed.get("users", []) if isinstance(u, dict)]

    def _directory(self) -> dict[str, Any]:
        status, directory = self.call("GET", "/local/users", None, None)
        if status != 200 or not isinstance(directory, dict):
            raise CliError(
                f"{self.base} did not list its local users (HTTP {status}): is it `multitool serve`?"
            )
        return directory

    def call(self, method: str, path: str, body: bytes | None, user: str | None) -> tuple[int, Any]:
        import urllib.error
        import urllib.request

        from multitool.local.sandbox.api_gateway import LOCAL_USER_HEADER

        headers = {"content-type": "application/json"} if body is not None else {}
        if user is not None:
            headers[LOCAL_USER_HEADER] = user
        request = urllib.request.Request(  # noqa: S310 - the scheme is checked in __init__
            f"{self.base}{path}", data=body, method=method, headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:  # noqa: S310
                return answer.status, decode(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, decode(error.read())
        except (urllib.error.URLError, OSError) as error:
            raise CliError(f"cannot reach multitool at {self.base}: is `make demo` running?") from error
