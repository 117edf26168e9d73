"""A function's cold start: its modules load, and its first invocation runs, with the cyclic
garbage collector off; then everything they made is frozen.

Everything a handler module creates while it loads (boto3's, pydantic's and Powertools' modules,
multitool's models and tool registry) lives as long as the execution environment, and so does most of
what its first invocation adds: the SDK clients, the validators pydantic builds on first use, the tool
modules a turn imports, the compiled patterns. The collector's passes over those objects find almost
nothing to free (about 500 objects, 160 KB, at this stack's init; about 1,500 in the orchestrator's
first turn), yet cost a cold start about 18 ms of CPU before the first request, and 4-7 ms in it (the
orchestrator's first turn, ten passes through its clients' service models). So:

- a handler loads inside :func:`init_phase`: the collector is off while the block runs (reference
  counting still frees everything else), and stays off;
- the handler is decorated with :func:`first_invocation`: when its first invocation returns (or
  raises), :func:`gc.freeze` moves every tracked object into the permanent generation, which later
  collections skip, and the collector is on again for the requests that follow.

And the modules a handler names to :func:`init_phase` (the entry of its app, whose imports carry the
weight) load first on a thread of their own, which the block then finds loaded. Python 3.13 keeps
its frames in 16 KiB chunks and frees a chunk as soon as the stack returns below it (CPython 3.13,
``Python/pystate.c``: ``push_chunk``, ``_PyThreadState_PopFrame``), so code that calls in and out
at a chunk's edge maps and unmaps it each time (about 7 us a call, measured). Where that edge falls
in an import tree depends on how deep the importer already is: the orchestrator's init did it
530-1,720 times under the bench's importer and 16-3,600 times under 0-30 more frames of it, which the
Lambda runtime's own importer has some of. A new thread starts its stack at the bottom of its first
chunk: the same init did it once, at every depth, and took about 9 ms less CPU (384 -> 375 ms, the
medians of 30 alternating fresh processes each). The thread is joined before the block runs; an
error it meets is raised here.

This is the use the ``gc.freeze`` documentation gives ("to speed up collection",
https://docs.python.org/3/library/gc.html#gc.freeze). The cyclic garbage frozen with the rest stays
until the environment ends, once per environment: one init's and one request's.

It applies only in a Lambda runtime, told by ``AWS_EXECUTION_ENV`` (the runtime identifier,
``AWS_Lambda_python3.13``:
https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime):
a test run, the local server or a notebook importing a handler keeps its collector as it was.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import os
import threading
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

Params = ParamSpec("Params")
Result = TypeVar("Result")

FIRST = ("boto3",)
"""Loaded first on the fresh stack, from its bottom: the deepest import tree every function has
(botocore's), so that its calls stay far below a chunk's edge."""

LAMBDA_RUNTIME_PREFIX = "AWS_Lambda_"
"""How ``AWS_EXECUTION_ENV`` starts in a Lambda managed runtime."""


def in_lambda_runtime() -> bool:
    """Whether this process is a Lambda managed runtime's (``AWS_EXECUTION_ENV=AWS_Lambda_…``)."""
    return os.environ.get("AWS_EXECUTION_ENV", "").startswith(LAMBDA_RUNTIME_PREFIX)


_cold = False
"""Whether the collector is off for a cold start that its first invocation has yet to end."""


def _load_on_fresh_stack(modules: tuple[str, ...]) -> None:
    """Import ``modules`` on a thread of their own (the bottom of a new frame stack), then return."""
    failed: list[BaseException] = []

    def load() -> None:
        try:
            for name in (*FIRST, *modules):
                importlib.import_module(name)
        except BaseException as error:  # raised again in the importing thread
            failed.append(error)

    loader = threading.Thread(target=load, name="init")
    loader.start()
    loader.join()
    if failed:
        raise failed[0]


@contextlib.contextmanager
def init_phase(*modules: str) -> Iterator[None]:
    """Load ``modules`` on a fresh stack, then the handler's block, with the collector off, and leave it
    off for the first invocation (:func:`first_invocation` ends the cold start; see the module)."""
    global _cold
    if _cold or not in_lambda_runtime() or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        if modules:
            _load_on_fresh_stack(modules)
        yield
    except BaseException:
        gc.enable()  # an init that fails leaves nothing to freeze
        raise
    _cold = True


def end_cold_start() -> None:
    """Freeze what the init and the first invocation made, and turn the collector on; then a no-op."""
    global _cold
    if _cold:
        _cold = False
        gc.freeze()
        gc.enable()


def first_invocation(handler: Callable[Params, Result]) -> Callable[Params, Result]:
    """Decorate a handler (outermost): the cold start ends when its first invocation returns or raises."""

    @functools.wraps(handler)
    def invoke(*args: Params.args, **kwargs: Params.kwargs) -> Result:
        try:
            return handler(*args, **kwargs)
        finally:
            end_cold_start()

    return invoke
