"""Concurrent requests in the local server each read their own event, as each Lambda process would.

Powertools keeps the request being served on its ``BaseRouter`` class, and the local server runs every
function's handlers in one process on concurrent threads: without per-thread state, a request that
waits reads the event (claims, headers) of whichever request resolved after it.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from multitool.local.sandbox.lambdas import LambdaContext, load_handler

HANDLER = """
import threading
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

app = APIGatewayHttpResolver()
router = APIGatewayHttpRouter()
entered = threading.Event()
release = threading.Event()


@app.get("/wait")
def wait():
    entered.set()
    release.wait(10)
    return {"app": app.current_event.raw_path, "router": router.current_event.raw_path,
            "user": app.current_event.request_context.authorizer.jwt_claim["sub"],
            "function": app.lambda_context.function_name}


@router.get("/quick")
def quick():
    return {"router": router.current_event.raw_path}


app.include_router(router)


def handler(event, context):
    return app.resolve(event, context)
"""


def event(path: str, sub: str) -> dict[str, Any]:
    return {
        "version": "2.0",
        "routeKey": f"GET {path}",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {},
        "requestContext": {
            "http": {"method": "GET", "path": path, "sourceIp": "127.0.0.1"},
            "authorizer": {"jwt": {"claims": {"sub": sub}, "scopes": None}},
            "stage": "$default",
        },
        "isBase64Encoded": False,
    }


def test_a_waiting_request_reads_its_own_event_while_another_is_served(tmp_path: Path) -> None:
    for name in ("slow", "fast"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "handler.py").write_text(HANDLER, encoding="utf-8")
    slow = load_handler(tmp_path, "slow")
    fast = load_handler(tmp_path, "fast")
    slow_module = __import__("sys").modules["_multitool_local_slow_handler"]
    answers: dict[str, Any] = {}

    def serve_slow() -> None:
        answers["slow"] = slow(event("/wait", "alice"), LambdaContext("slow"))

    waiting = threading.Thread(target=serve_slow)
    waiting.start()
    assert slow_module.entered.wait(10)
    answers["fast"] = fast(event("/quick", "bob"), LambdaContext("fast"))  # resolved meanwhile
    slow_module.release.set()
    waiting.join(10)

    assert json.loads(answers["fast"]["body"]) == {"router": "/quick"}
    assert json.loads(answers["slow"]["body"]) == {
        "app": "/wait",
        "router": "/wait",
        "user": "alice",
        "function": "slow",
    }
