"""``multitool``: run the whole system locally, or talk to it from a script.

    multitool serve [--host 127.0.0.1] [--port 8000]          # page + API on embedded AWS
    multitool serve --agent-id AGENT --alias-id ALIAS          # a real Bedrock agent
    multitool serve --runtime converse --model-id MODEL        # Converse with a real model
    multitool chat "Email Kinshuok about the doc" [--user ID] [--session ID] [--url URL]

Both run on embedded defaults (a moto server on loopback, a seeded directory,
the SES and Jira sandboxes, the offline model) unless told otherwise. This
module stays import-light: the local server and moto load only when used.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multitool.local.embedded import Embedded, RuntimeChoice
    from multitool.local.server import LocalApi

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="multitool",
        description="One chat message, several intents, one reviewed card per action.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")

    serve = commands.add_parser(
        "serve",
        help="serve the chat page and the API locally",
        description="Serve the chat page and the API (the real handlers) on embedded AWS: no account needed.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    serve.add_argument(
        "--port", type=int, default=8000, help="port; 0 picks a free one (default: %(default)s)"
    )
    _add_backend_options(serve)
    serve.add_argument("--web-dir", type=Path, help="the page's folder (default: <repo>/web)")
    serve.add_argument("--verbose", action="store_true", help="log each request (method, path, status)")

    chat = commands.add_parser(
        "chat",
        help="send one message and print the /chat response JSON",
        description="Send one message to /chat and print the response JSON (for scripts).",
    )
    chat.add_argument("message", help="what you would type in the chat drawer")
    chat.add_argument("--user", help="local user id to sign in as (default: the seed's default user)")
    chat.add_argument("--session", help="session id, to continue a conversation (default: a new one)")
    chat.add_argument(
        "--url", help="a running `multitool serve`, e.g. http://127.0.0.1:8000 (default: in-process)"
    )
    _add_backend_options(chat)
    return parser


def _add_backend_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("model runtime (default: the offline model)")
    group.add_argument(
        "--runtime", choices=("offline", "converse", "agent"), help="how a turn reaches a model"
    )
    group.add_argument("--agent-id", help="Bedrock agent id (with --alias-id): RUNTIME=agent")
    group.add_argument("--alias-id", help="Bedrock agent alias id")
    group.add_argument("--model-id", help="Bedrock model or inference profile id: RUNTIME=converse")
    group.add_argument("--region", help="AWS region for Bedrock (default: your profile's, else us-east-1)")
    group.add_argument(
        "--functions-dir",
        type=Path,
        help="where functions/<name>/handler.py live (default: <repo>/functions)",
    )
    group.add_argument(
        "--log-level", default="WARNING", help="the handlers' POWERTOOLS_LOG_LEVEL (default: %(default)s)"
    )


def _runtime_choice(args: argparse.Namespace) -> RuntimeChoice:
    from multitool.local.embedded import RuntimeChoice

    return RuntimeChoice.from_options(
        runtime=args.runtime, agent_id=args.agent_id, agent_alias_id=args.alias_id, model_id=args.model_id
    )


def _local_api(args: argparse.Namespace) -> tuple[Embedded, LocalApi]:
    """Start embedded AWS, apply its environment, and put the API Gateway stand-in before the handlers."""
    from multitool.local.embedded import start_embedded
    from multitool.local.server import LocalApi, repo_root, sandbox_outbox_reader
    from multitool.observability import use_console_logs

    running = start_embedded(_runtime_choice(args), region=args.region, log_level=args.log_level)
    use_console_logs()  # a terminal, not CloudWatch: one readable line per record
    functions_dir = args.functions_dir or repo_root() / "functions"
    api = LocalApi(functions_dir, running.seed, outbox=sandbox_outbox_reader(running))
    return running, api


def serve(args: argparse.Namespace) -> int:
    from multitool.local.server import is_loopback, make_server

    running, api = _local_api(args)
    try:
        try:
            server = make_server(
                api, host=args.host, port=args.port, web_dir=args.web_dir, quiet=not args.verbose
            )
        except OSError as error:
            print(
                f"multitool: cannot listen on {args.host}:{args.port} ({error.strerror or error}); "
                "try another --port (0 picks a free one).",
                file=sys.stderr,
            )
            return EXIT_ERROR
        model = {
            "offline": "the offline model",
            "converse": f"Bedrock Converse ({running.runtime.model_id})",
            "agent": f"Bedrock agent {running.runtime.agent_id}/{running.runtime.agent_alias_id}",
        }[running.runtime.runtime.value]
        print(f"multitool is running on {model} with sandboxed AWS (moto at {running.endpoint}).")
        print(f"  Open {server.url} in your browser. Press Ctrl+C to stop.", flush=True)
        if not is_loopback(str(server.server_address[0])):
            print(
                "  Local sign-in, the directory and the sandbox outbox answer this machine only; "
                "other machines get the page and a 401.",
                flush=True,
            )
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("\nStopped.")
        finally:
            server.server_close()
    finally:
        running.close()
    return EXIT_OK


def chat(args: argparse.Namespace) -> int:
    session = args.session or f"cli-{uuid.uuid4()}"
    body = json.dumps({"message": args.message, "sessionId": session}).encode()
    if args.url:
        status, payload = _post_remote(args.url, body, args.user)
    else:
        status, payload = _post_in_process(args, body)
    json.dump(payload, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    if status >= 400:
        print(f"multitool: /chat answered {status}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def _post_in_process(args: argparse.Namespace, body: bytes) -> tuple[int, Any]:
    # Handler logs go to stderr so stdout holds exactly the response JSON.
    with contextlib.redirect_stdout(sys.stderr):
        running, api = _local_api(args)
        try:
            user = args.user or running.seed.default_user
            response = api.invoke(
                "POST", "/chat", headers={"content-type": "application/json", "x-local-user": user}, body=body
            )
        finally:
            running.close()
    return response.status, _decode(response.body)


def _post_remote(url: str, body: bytes, user: str | None) -> tuple[int, Any]:
    import urllib.error
    import urllib.request

    from multitool.local.server import LOCAL_USER_HEADER

    base = url.rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise SystemExit(f"multitool: --url must start with http:// or https://, got {url!r}")
    if user is None:
        with urllib.request.urlopen(f"{base}/local/users", timeout=10) as answer:  # noqa: S310 - scheme checked
            user = str(json.load(answer)["defaultUser"])
    request = urllib.request.Request(  # noqa: S310 - scheme checked above
        f"{base}/chat",
        data=body,
        method="POST",
        headers={"content-type": "application/json", LOCAL_USER_HEADER: user},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:  # noqa: S310
            return answer.status, _decode(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, _decode(error.read())


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return {"message": raw.decode("utf-8", "replace")}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from multitool.local.embedded import LocalSetupError

    try:
        if args.command == "serve":
            return serve(args)
        return chat(args)
    except LocalSetupError as error:
        print(f"multitool: {error}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:
        print(f"multitool: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
