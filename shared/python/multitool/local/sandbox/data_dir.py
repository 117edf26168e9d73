"""Where ``multitool serve`` keeps the local data across restarts, and the lock that keeps it one server's.

The folder holds moto's state (``aws.pickle``: the tables, the mail SES accepted, the sender
identity, the Jira secret; see :mod:`multitool.local.sandbox.moto_process`) and the Jira sandbox's
issues (``jira.json``). Deleting the folder starts the next run empty. One server at a time
uses it: a second one would read the same data and the last to stop would overwrite the other's,
so it is refused. The lock is an advisory ``flock`` on ``lock``, released by the system when the
holder exits however it exits.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

LOCK_WAIT_SECONDS = 15.0
"""How long a start waits for the folder: a server just stopped may still be writing its state."""
AWS_STATE = "aws.pickle"
JIRA_STATE = "jira.json"


class DataDirInUse(RuntimeError):
    """Another running server holds the folder; the message says what to do."""


@dataclass
class DataDir:
    """An open data folder, locked for this process until :meth:`release`."""

    path: Path
    _lock: IO[str] | None = field(default=None, repr=False)

    @classmethod
    def open(cls, path: Path, wait_seconds: float = LOCK_WAIT_SECONDS) -> DataDir:
        """Create ``path`` if needed (private to this user) and lock it; :class:`DataDirInUse` if it
        stays held for ``wait_seconds``."""
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock = open(path / "lock", "a+", encoding="utf-8")  # noqa: SIM115 - held until release()
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock, the folder is still used
            return cls(path, lock)
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() < deadline:
                    time.sleep(0.1)
                    continue
            lock.close()
            raise DataDirInUse(
                f"Another multitool serve is using {path}: stop it, or give this one another "
                "--data-dir (or --ephemeral to keep nothing)."
            ) from None
        lock.seek(0)
        lock.truncate()
        lock.write(f"{os.getpid()}\n")
        lock.flush()
        return cls(path, lock)

    @property
    def lock_fd(self) -> int | None:
        """The lock's descriptor: a child holding it open keeps the folder locked until it exits."""
        return self._lock.fileno() if self._lock is not None else None

    @property
    def aws_state(self) -> Path:
        return self.path / AWS_STATE

    @property
    def jira_state(self) -> Path:
        return self.path / JIRA_STATE

    def release(self) -> None:
        if self._lock is not None:
            self._lock.close()  # closing the file releases the flock
            self._lock = None
