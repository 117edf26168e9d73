"""A function's init: its modules load with the cyclic garbage collector off, and their objects are frozen.

Everything a handler module creates while it loads (boto3's, pydantic's and Powertools' modules,
multitool's models and tool registry) lives as long as the execution environment. The collector's
passes over those objects while they load find almost nothing to free (about 500 objects, 160 KB, at
this stack's init), yet cost a cold start about 18 ms of CPU before the first request, and more in it:
the passes of the first request walk them again (13 ms of the orchestrator's first turn, 4 ms once
they are frozen). So a handler loads inside :func:`init_phase`:

- the collector is off while the block runs (reference counting still frees everything else);
- at its end, :func:`gc.freeze` moves every tracked object into the permanent generation, which later
  collections skip, and the collector is on again for the requests.

This is the use the ``gc.freeze`` documentation gives ("to speed up collection",
https://docs.python.org/3/library/gc.html#gc.freeze). The cyclic garbage frozen with the rest stays
until the environment ends, once per environment.

It applies only in a Lambda runtime, told by ``AWS_EXECUTION_ENV`` (the runtime identifier,
``AWS_Lambda_python3.13``:
https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime):
a test run, the local server or a notebook importing a handler keeps its collector as it was.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator

LAMBDA_RUNTIME_PREFIX = "AWS_Lambda_"
"""How ``AWS_EXECUTION_ENV`` starts in a Lambda managed runtime."""


def in_lambda_runtime() -> bool:
    """Whether this process is a Lambda managed runtime's (``AWS_EXECUTION_ENV=AWS_Lambda_…``)."""
    return os.environ.get("AWS_EXECUTION_ENV", "").startswith(LAMBDA_RUNTIME_PREFIX)


@contextlib.contextmanager
def init_phase() -> Iterator[None]:
    """Load a handler's modules with the collector off, then freeze what they made (see the module)."""
    if not in_lambda_runtime() or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
