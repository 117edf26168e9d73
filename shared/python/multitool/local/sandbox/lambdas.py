"""The Lambda stand-in: a handler loaded by file path, its context, and warm execution environments.

``functions/<name>/handler.py`` is loaded as the deployed code is, never through ``import functions``;
each execution environment is a separate module instance (its own resolver ``app``), used by one
request at a time, up to ``MAX_INSTANCES`` per function.
"""

from __future__ import annotations

import base64
import binascii
import importlib.util
import json
import os
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

FUNCTION_TIMEOUT_SECONDS = 30
# Execution environments per function at most (Lambda's reserved concurrency); more requests wait.
# All of them share this process's GIL with the embedded moto server: past a few, CPU-bound turns
# (the offline model) only contend; turns waiting on Bedrock overlap up to this many.
MAX_INSTANCES = 8
REGION = "us-east-1"
ACCOUNT = "000000000000"

_FUNCTION_NAME = re.compile(r"[A-Za-z0-9_-]+")
"""A function's folder name under ``functions/``."""

Handler = Callable[[dict[str, Any], Any], Any]
MAX_CLIENT_CONTEXT_BYTES = 3583
"""Lambda's limit on ``Invoke``'s ``ClientContext`` (base64 JSON)."""


class ClientContext:
    """``context.client_context`` as the Lambda Python runtime builds it: ``custom``, ``env``, ``client``."""

    __slots__ = ("client", "custom", "env")

    def __init__(self, custom: Any = None, env: Any = None, client: Any = None) -> None:
        self.custom = custom
        self.env = env
        self.client = client

    @classmethod
    def from_invoke(cls, encoded: str) -> ClientContext:
        """Decode ``Invoke``'s ``ClientContext`` parameter (base64 of a JSON object), as Lambda does."""
        if len(encoded) > MAX_CLIENT_CONTEXT_BYTES:
            raise ValueError(f"ClientContext is longer than {MAX_CLIENT_CONTEXT_BYTES} bytes")
        try:
            decoded = json.loads(base64.b64decode(encoded, validate=True))
        except (binascii.Error, ValueError) as error:
            raise ValueError("ClientContext must be base64-encoded JSON") from error
        if not isinstance(decoded, dict):
            raise ValueError("ClientContext must encode a JSON object")
        return cls(decoded.get("custom"), decoded.get("env"), decoded.get("client"))


def encode_client_context(custom: dict[str, str]) -> str:
    """``Invoke``'s ``ClientContext`` carrying ``custom``: base64 of ``{"custom": {...}}``."""
    return base64.b64encode(json.dumps({"custom": custom}).encode()).decode()


class LambdaContext:
    """What Lambda hands a handler as ``context`` (the attributes Powertools reads)."""

    def __init__(
        self,
        function_name: str,
        timeout_seconds: int = FUNCTION_TIMEOUT_SECONDS,
        *,
        client_context: ClientContext | None = None,
    ) -> None:
        self.function_name = function_name
        self.client_context = client_context
        self.identity = None
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{function_name}"
        self.memory_limit_in_mb = 512
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = time.strftime("%Y/%m/%d/[$LATEST]local")
        self._deadline = time.monotonic() + timeout_seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class _PerThread:
    """A Powertools router's class-wide request state, kept per thread.

    Powertools' resolvers put the request being served on the ``BaseRouter`` class itself
    (``BaseRouter.current_event = ...`` and ``BaseRouter.lambda_context = ...`` in ``resolve``), which
    is sound in Lambda, where a process serves one request at a time. Here every function's instances
    share one process and serve requests on concurrent threads, so one request could read another's
    event (its claims and headers). The same descriptor answers on the class (through its metaclass)
    and on every resolver and router instance, from the thread's own value.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._local = threading.local()

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        try:
            return self._local.value
        except AttributeError:
            raise AttributeError(self._name) from None

    def __set__(self, obj: object, value: Any) -> None:
        self._local.value = value


_PATCHING = threading.Lock()


def _router_state_per_thread() -> None:
    from aws_lambda_powertools.event_handler.api_gateway import BaseRouter

    with _PATCHING:
        meta = type(BaseRouter)
        if getattr(meta, "_multitool_per_thread", False):
            return
        per_thread = {name: _PerThread(name) for name in ("current_event", "lambda_context")}
        for name, descriptor in per_thread.items():
            setattr(BaseRouter, name, descriptor)  # what an instance reads (a data descriptor)
        # What the class itself reads and sets: only a metaclass's data descriptor sees ``Class.x = ...``.
        BaseRouter.__class__ = type(  # type: ignore[method-assign]
            "PerThreadRouterMeta", (meta,), {**per_thread, "_multitool_per_thread": True}
        )


TOOL_CODE = "tool"
"""The folder every tool's function runs (``functions/tool/handler.py``), told its tool by ``TOOL_MODULE``
as the stack tells each deployed tool function (``infra.components.functions.tool_environment``)."""
_tool_environment = threading.Lock()  # the environment is the process's: one tool's import at a time


def load_handler(functions_dir: Path, name: str, instance: int = 0) -> Handler:
    """``functions/<name>/handler.py``'s ``handler``, loaded by file path (never ``import functions``);
    a tool's action group without a folder of its own runs ``functions/tool/handler.py`` for that tool.

    Each ``instance`` is a separate module: its own module-level state (the resolver
    ``app``), as each Lambda execution environment has its own.
    """
    if not _FUNCTION_NAME.fullmatch(name):  # a name, never a path (``..``, ``/``)
        raise FileNotFoundError(f"No function named {name!r}")
    _router_state_per_thread()
    path = functions_dir / name / "handler.py"
    tool_module = None if path.is_file() else _tool_module(name)
    if tool_module is not None:
        path = functions_dir / TOOL_CODE / "handler.py"
    if not path.is_file():
        raise FileNotFoundError(f"No handler for function {name!r} at {path}")
    module_name = f"_multitool_local_{name}_handler" + (f"_{instance}" if instance else "")
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"Cannot load {path}")
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    if tool_module is None:
        spec.loader.exec_module(module)
    else:
        with _tool_environment:  # what the stack sets on the tool's function, for its import only
            before = os.environ.get("TOOL_MODULE")
            os.environ["TOOL_MODULE"] = tool_module
            try:
                spec.loader.exec_module(module)
            finally:
                if before is None:
                    del os.environ["TOOL_MODULE"]
                else:
                    os.environ["TOOL_MODULE"] = before
    handler = getattr(module, "handler", None)
    if not callable(handler):
        raise ImportError(f"{path} has no callable 'handler'")
    return handler  # type: ignore[no-any-return]


def _tool_module(group: str) -> str | None:
    """The module of the tool whose action group ``group`` is, if one is declared."""
    from multitool.tools import REGISTRY

    return REGISTRY.module(group)


class Instances:
    """The warm execution environments of one function, as Lambda keeps them.

    A request takes an idle instance, or loads a new one when all are busy (Lambda
    scales out the same way), up to ``limit``; then it waits for one to be free.
    One instance serves one request at a time: the handler module's resolver keeps
    the current event on itself, so it is never shared between concurrent requests.

    What instances do share is this process's ``multitool`` package, as one Lambda
    environment's modules would be shared by nothing: the chat service and the
    reviewer (``multitool.wiring``'s ``aws_chat_service``/``aws_reviewer``, built once; boto3 clients and
    urllib3 pools are thread-safe, the runtimes keep no per-turn state), and the
    Powertools logger and metrics (appended log keys may name a concurrent
    request's id; metrics are disabled locally).
    """

    def __init__(self, load: Callable[[int], Handler], limit: int = MAX_INSTANCES) -> None:
        self._load = load
        self._idle: list[Handler] = []
        self._all: list[Handler] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(limit)

    @property
    def loaded(self) -> tuple[Handler, ...]:
        with self._lock:
            return tuple(self._all)

    def first(self) -> Handler:
        """An instance (loaded if none is): for callers that only need the function's code."""
        with self._lock:
            if self._all:
                return self._all[0]
        with self.acquire() as handler:
            return handler

    @contextmanager
    def acquire(self) -> Iterator[Handler]:
        with self._slots:
            with self._lock:
                handler = self._idle.pop() if self._idle else None
                number = len(self._all)
            if handler is None:
                handler = self._load(number)
                with self._lock:
                    self._all.append(handler)
            try:
                yield handler
            finally:
                with self._lock:
                    self._idle.append(handler)
