"""One synth per distinct stack context for the whole session, handed out as copies.

A synth of the stack takes seconds of jsii calls; many test modules assert on the same deploy (cdk.json's
context, the Agents Classic variant, ...). The first request for a context synthesizes it; every later
request, from any module in any order, gets the same stack and a deep copy of its template, so no test
can see what another changed in its copy.
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.infra.synth import Synthesized


@dataclass
class SynthCount:
    """What this process synthesized: distinct contexts and the seconds their synths took."""

    synths: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        return f"stack synths: {self.synths} ({self.seconds:.0f} s)"


COUNT = SynthCount()


def context_key(context: dict[str, Any]) -> str:
    """The same overrides in any order are the same deploy."""
    return json.dumps(context, sort_keys=True)


class StackSynths:
    """Synthesized stacks by context, under ``root`` (each in its own assembly directory)."""

    def __init__(self, root: Path, count: SynthCount = COUNT) -> None:
        self._root = root
        self._count = count
        self._made: dict[str, Synthesized] = {}

    def get(self, **context: Any) -> Synthesized:
        """cdk.json's context with ``context`` over it, synthesized once; the template a copy of its own."""
        key = context_key(context)
        made = self._made.get(key)
        if made is None:
            from tests.infra.synth import synthesize

            started = time.monotonic()
            made = synthesize(self._root / f"synth-{len(self._made)}", **context)
            self._count.synths += 1
            self._count.seconds += time.monotonic() - started
            self._made[key] = made
        return replace(made, data=copy.deepcopy(made.data))

    def __len__(self) -> int:
        return len(self._made)
