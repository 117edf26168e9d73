"""``multitool slack``: act as a member of the local Slack workspace of ``multitool serve --slack``.

    multitool slack say --as priya "Email Kinshuok about the doc and schedule a sync with Priya on Thursday"
    multitool slack show --as priya                     # the DM: messages, buttons, ephemerals, modals
    multitool slack click --as priya Confirm --card 1   # a button (by its text or action_id) of a card
    multitool slack click --as priya "Choose a time" --choose "Thu 10:00"   # an option of a select
    multitool slack submit --as priya --field e:subject="Notes, v2"          # the open modal
    multitool slack state                               # members, refused Web API calls

Each sends what Slack sends the app (a signed ``message.im``/``app_mention`` event, a
``block_actions`` or ``view_submission`` payload) through the stand-in, waits for the app's answers
(``--wait``), and prints the conversation as that member sees it. ``--channel general`` writes in
``#general`` (a mention) instead of the DM; ``--url`` (or ``$MULTITOOL_SLACK_URL``) finds the stand-in.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from multitool.local.commands.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CliError
from multitool.local.commands.remote import Remote

URL_VARIABLE = "MULTITOOL_SLACK_URL"
DEFAULT_URL = "http://127.0.0.1:8025"


def add_parser(commands: Any) -> None:
    """The ``slack`` command and its actions."""
    parser = commands.add_parser(
        "slack",
        help="act as a member of the local Slack workspace (multitool serve --slack)",
        description="Write, click and submit as a member of the local Slack stand-in, as Slack would.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="action")
    say = actions.add_parser("say", help="write a message (a DM to the app, or a mention in a channel)")
    say.add_argument("text")
    say.add_argument("--thread", help="the ts of the thread to reply in")
    show = actions.add_parser("show", help="print a conversation as the member sees it")
    click = actions.add_parser("click", help="click a button or choose an option of a card")
    click.add_argument("element", help="the button's text (Confirm, Edit, Discard) or an action_id")
    click.add_argument("--card", type=int, help="which card (1 = the first) when several have it")
    click.add_argument("--message", help="the message's ts, instead of --card")
    click.add_argument("--choose", help="for a select: the option's text or value")
    submit = actions.add_parser("submit", help="submit the modal the app opened")
    submit.add_argument(
        "--field",
        action="append",
        default=[],
        metavar="INPUT=VALUE",
        help="an input's new value, the input named by its block id (`show` lists them); repeatable",
    )
    submit.add_argument("--view", help="the view id (default: the only open one)")
    state = actions.add_parser("state", help="the members, and every Web API call the stand-in refused")
    for action in (say, show, click, submit, state):
        action.add_argument(
            "--url",
            default=os.environ.get(URL_VARIABLE) or DEFAULT_URL,
            help=f"the Slack stand-in (default: ${URL_VARIABLE} or %(default)s)",
        )
    for action in (say, show, click, submit):
        action.add_argument("--as", dest="who", required=True, help="the member: a person id or email")
        action.add_argument("--channel", help="a channel name (general) instead of the member's DM")
        action.add_argument(
            "--wait", type=float, default=30.0, help="seconds to wait for the app's answer (default: 30)"
        )
    parser.set_defaults(run=slack)


def slack(args: argparse.Namespace) -> int:
    remote = Remote(args.url, timeout=30)
    if args.action == "state":
        status, answer = remote.call("GET", "/local/state", None, None)
        _check(status, answer)
        json.dump(answer, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return EXIT_OK if not answer.get("violations") else EXIT_ERROR
    before = _conversation(remote, args)
    if args.action == "show":
        print(render(before))
        return EXIT_OK
    request: dict[str, Any] = {"as": args.who, "channel": args.channel}
    if args.action == "say":
        request |= {"text": args.text, "thread_ts": args.thread}
    elif args.action == "click":
        ts, action_id = pick_element(before, args.element, card=args.card, message=args.message)
        request |= {"ts": ts, "action_id": action_id, "value": _option(before, ts, action_id, args.choose)}
    else:
        request |= {"view_id": args.view or _only_view(before), "values": _fields(args.field)}
    status, answer = remote.call("POST", f"/local/{args.action}", json.dumps(request).encode(), None)
    _check(status, answer)
    delivered = answer["delivered"]
    if not 200 <= delivered["status"] < 300:
        print(f"multitool: the app answered HTTP {delivered['status'] or 'nothing in time'}", file=sys.stderr)
    print(render(_settled(remote, args, before)))
    return EXIT_OK if 200 <= delivered["status"] < 300 else EXIT_ERROR


def _check(status: int, answer: Any) -> None:
    if status != 200 or not isinstance(answer, dict):
        message = answer.get("message") if isinstance(answer, dict) else answer
        raise CliError(
            f"the Slack stand-in answered HTTP {status}: {message}",
            EXIT_USAGE if status < 500 else EXIT_ERROR,
        )


def _conversation(remote: Remote, args: argparse.Namespace) -> dict[str, Any]:
    from urllib.parse import urlencode

    query = urlencode({"as": args.who, **({"channel": args.channel} if args.channel else {})})
    status, answer = remote.call("GET", f"/local/conversation?{query}", None, None)
    _check(status, answer)
    return answer  # type: ignore[no-any-return]


def _settled(remote: Remote, args: argparse.Namespace, before: dict[str, Any]) -> dict[str, Any]:
    """The conversation once the app has answered (a message of its own, an edit, an ephemeral, a
    modal) and nothing more changed for 1.5 seconds; as it is after ``--wait`` seconds otherwise."""
    deadline = time.monotonic() + args.wait
    seen, quiet_since = _conversation(remote, args), time.monotonic()
    while time.monotonic() < deadline:
        if _apps(seen) != _apps(before) and time.monotonic() - quiet_since >= 1.5:
            break
        time.sleep(0.25)
        now = _conversation(remote, args)
        if now != seen:
            seen, quiet_since = now, time.monotonic()
    return seen


def _apps(conversation: dict[str, Any]) -> Any:
    """What the app has shown in a conversation: its messages as they are now, ephemerals, modals."""
    mine = [(m["ts"], m["text"], m["blocks"]) for m in conversation["messages"] if m["bot"]]
    return mine, conversation["ephemerals"], conversation["views"]


def _fields(fields: list[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for field in fields:
        name, equals, value = field.partition("=")
        if not equals:
            raise CliError(f"--field {field!r}: write INPUT=VALUE", EXIT_USAGE)
        values[name] = value
    return values


def _only_view(conversation: dict[str, Any]) -> str:
    views = conversation["views"]
    if len(views) != 1:
        raise CliError(f"{len(views)} modals are open: name one with --view", EXIT_USAGE)
    return str(views[0]["id"])


def _elements(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for block in blocks:
        found += block.get("elements", []) if block.get("type") == "actions" else []
        found += [block[k] for k in ("accessory",) if isinstance(block.get(k), dict)]
    return found


def _label(element: dict[str, Any]) -> str:
    text = element.get("text") or element.get("placeholder") or {}
    return str(text.get("text", "")) if isinstance(text, dict) else str(text)


def pick_element(
    conversation: dict[str, Any], wanted: str, *, card: int | None, message: str | None
) -> tuple[str, str]:
    """The message ts and action_id of the element ``wanted`` (its text or action_id)."""
    matches = []
    for m in conversation["messages"]:
        for element in _elements(m["blocks"]):
            if (
                wanted in (element.get("action_id"), _label(element))
                or wanted.lower() == _label(element).lower()
            ):
                matches.append((m["ts"], str(element["action_id"])))
                break
    if message is not None:
        matches = [match for match in matches if match[0] == message]
    elif card is not None:
        if not 1 <= card <= len(matches):
            raise CliError(f"--card {card}: {len(matches)} cards have {wanted!r}", EXIT_USAGE)
        matches = [matches[card - 1]]
    if len(matches) != 1:
        raise CliError(
            f"{len(matches)} messages have {wanted!r}: pick one with --card N or --message TS", EXIT_USAGE
        )
    return matches[0]


def _option(conversation: dict[str, Any], ts: str, action_id: str, choose: str | None) -> str | None:
    message = next(m for m in conversation["messages"] if m["ts"] == ts)
    element = next(e for e in _elements(message["blocks"]) if e.get("action_id") == action_id)
    if element.get("type") == "button":
        return None
    options = [o for g in element.get("option_groups", ()) for o in g["options"]] + element.get("options", [])
    for option in options:
        if choose in (option.get("value"), option["text"]["text"]):
            return str(option["value"])
    choices = ", ".join(repr(o["text"]["text"]) for o in options)
    raise CliError(f"choose one of {choices} with --choose", EXIT_USAGE)


def render(conversation: dict[str, Any]) -> str:
    """A conversation as text: each message with its fields and its buttons' and selects' labels."""
    lines = [f"#{conversation['name']} ({conversation['channel']})"]
    for m in conversation["messages"]:
        who = "multitool" if m["bot"] else m["user"]
        text = "" if m["blocks"] else f" {m['text']}"
        thread = f" in thread {m['thread_ts']}" if m["thread_ts"] else ""
        lines.append(f"[{m['ts']}{' edited' if m['edited'] else ''}{thread}] {who}:{text}")
        lines += ["    " + line for block in m["blocks"] for line in _block_lines(block)]
    lines += [f"(only you) multitool: {e['text']}" for e in conversation["ephemerals"]]
    for view in conversation["views"]:
        inputs = [
            f"{b.get('block_id')}={b['element'].get('initial_value', '')!r}"
            for b in view["view"].get("blocks", [])
            if b.get("type") == "input"
        ]
        lines.append(f"(modal {view['id']}) {view['view']['title']['text']}: " + ", ".join(inputs))
    return "\n".join(lines)


def _block_lines(block: dict[str, Any]) -> list[str]:
    texts = []
    if isinstance(block.get("text"), dict):
        texts.append(block["text"]["text"])
    texts += [f["text"] for f in block.get("fields", [])]
    texts += [e.get("text", "") for e in block.get("elements", []) if block.get("type") == "context"]
    controls = [f"[{_label(e)}]" for e in _elements([block])]
    return [t for text in texts for t in str(text).splitlines()] + ([" ".join(controls)] if controls else [])
