"""What every ``multitool`` command shares: the exit statuses, the one-line error, the user check."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2


class CliError(Exception):
    """Something the command line reports in one line on stderr, with an exit status."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def check_user(user: str, known: Sequence[str]) -> str:
    if user not in known:
        raise CliError(f"unknown user {user!r}; use --user with one of: {', '.join(known)}", EXIT_USAGE)
    return user


def decode(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return {"message": raw.decode("utf-8", "replace")}
