"""The Slack stand-in's pages: act as a workspace member without Slack.

``/`` lists the members (who the directory knows, who it does not) and the conversations;
``/c/<id>?as=<member>`` shows a conversation as that member sees it: every message with its blocks
drawn simply (sections, fields, context, headers, and each button or select as a form that sends the
app a ``block_actions`` payload), the ephemeral messages only they see, a box to write as them, and
the form of each modal the app opened for them (submitting it sends a ``view_submission``). Plain
HTML, no script; every text is escaped; the forms post back to the stand-in (its ``Origin``), which
the stand-in accepts from its own pages only.
"""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import quote

from multitool.local.standins.slack_delivery import elements
from multitool.local.standins.slack_workspace import BOT_USER, Member, SlackWorkspace

_STYLE = """
body{font:15px/1.4 system-ui,sans-serif;max-width:60rem;margin:1rem auto;padding:0 1rem;color:#1d1c1d}
.msg{border-left:3px solid #ddd;padding:.3rem .6rem;margin:.6rem 0}.bot{border-color:#4a154b}
.eph{border-color:#e8912d;background:#fff8ef}.who{font-weight:600}.ts{color:#777;font-size:.8em}
.block{margin:.3rem 0}.fields{display:grid;grid-template-columns:1fr 1fr;gap:.2rem 1rem}
.ctx{color:#616061;font-size:.85em}form.inline{display:inline}.modal{border:2px solid #4a154b;padding:.8rem}
.warn{color:#b00}
"""


def _page(title: str, body: str) -> bytes:
    return (
        f"<!doctype html><meta charset=utf-8><title>{html.escape(title)}</title><style>{_STYLE}</style>"
        f"<p><strong>Local Slack stand-in: not Slack.</strong> <a href='/'>Members and conversations</a></p>"
        f"{body}"
    ).encode()


def home(workspace: SlackWorkspace) -> bytes:
    rows = []
    for member in workspace.members.values():
        known = "" if member.person.id != "sam-guest" else " <em>(not in the directory)</em>"
        rows.append(
            f"<li>{html.escape(member.person.display_name)} "
            f"&lt;{html.escape(member.person.email)}&gt;{known}: "
            f"<a href='/c/{member.dm}?as={quote(member.person.id)}'>DM with the app</a>, "
            f"<a href='/c/C0GENERAL01?as={quote(member.person.id)}'>#general</a></li>"
        )
    problems = "".join(
        f"<li class=warn>{html.escape(r.method)}: {html.escape(r.error)} ({html.escape(r.detail)})</li>"
        for r in (*workspace.violations, *workspace.errors)
    )
    return _page(
        "Slack stand-in",
        "<h1>Workspace members</h1><ul>"
        + "".join(rows)
        + "</ul>"
        + (f"<h2>Refused calls</h2><ul>{problems}</ul>" if problems else "<p>No refused Web API call.</p>"),
    )


def conversation(workspace: SlackWorkspace, channel: str, member: Member) -> bytes:
    name = workspace.channels[channel]
    parts = [f"<h1>{html.escape(name)} <small>as {html.escape(member.person.display_name)}</small></h1>"]
    for message in list(workspace.messages[channel]):
        who = "multitool (app)" if message.user == BOT_USER else _name(workspace, message.user)
        thread = f" <span class=ts>in thread {message.thread_ts}</span>" if message.thread_ts else ""
        edited = " <span class=ts>(edited)</span>" if message.edited else ""
        parts.append(
            f"<div class='msg{' bot' if message.user == BOT_USER else ''}'>"
            f"<span class=who>{html.escape(who)}</span> <span class=ts>{message.ts}</span>{thread}{edited}"
            f"{_blocks(message.blocks, message.text, channel, message.ts, member)}"
            + _reply_form(channel, member, message.thread_ts or message.ts)
            + "</div>"
        )
    for eph in [e for e in workspace.ephemerals if e.channel == channel and e.user == member.id]:
        parts.append(
            "<div class='msg eph'><span class=who>multitool (only you can see this)</span>"
            f"{_blocks(eph.blocks, eph.text, channel, None, member)}</div>"
        )
    for opened in workspace.views_of(member.id):
        parts.append(_modal(opened.id, opened.view, member, channel))
    parts.append(
        f"<form method=post action='/ui/say'>{_hidden(member, channel)}"
        "<textarea name=text rows=2 cols=70 required></textarea><br><button>Send</button></form>"
    )
    return _page(name, "".join(parts))


def _hidden(member: Member, channel: str, **fields: str) -> str:
    """The hidden fields of a form: who acts, where, and the form's own."""
    values = {"as": member.person.id, "channel": channel, **fields}
    return "".join(
        f"<input type=hidden name={name} value='{html.escape(value)}'>" for name, value in values.items()
    )


def _name(workspace: SlackWorkspace, user: str) -> str:
    member = workspace.members.get(user)
    return member.person.display_name if member else user


def _reply_form(channel: str, member: Member, thread_ts: str) -> str:
    return (
        "<details><summary class=ts>Reply in thread</summary><form method=post action='/ui/say'>"
        + _hidden(member, channel, thread_ts=thread_ts)
        + "<input name=text size=60 required><button>Reply</button></form></details>"
    )


def _text(obj: Any) -> str:
    if isinstance(obj, dict):
        return html.escape(str(obj.get("text", ""))).replace("\n", "<br>")
    return html.escape(str(obj or ""))


def _blocks(blocks: list[dict[str, Any]], text: str, channel: str, ts: str | None, member: Member) -> str:
    if not blocks:
        return f"<div class=block>{_text({'text': text})}</div>"
    out = []
    for block in blocks:
        kind = block.get("type")
        if kind == "header":
            out.append(f"<h3 class=block>{_text(block.get('text'))}</h3>")
        elif kind == "section":
            out.append(f"<div class=block>{_text(block.get('text'))}</div>")
            if block.get("fields"):
                out.append(
                    "<div class='block fields'>"
                    + "".join(f"<div>{_text(f)}</div>" for f in block["fields"])
                    + "</div>"
                )
        elif kind == "context":
            out.append(
                "<div class='block ctx'>" + " ".join(_text(e) for e in block.get("elements", [])) + "</div>"
            )
        elif kind == "divider":
            out.append("<hr>")
        if ts is not None and kind != "input":
            out.extend(_element_form(element, channel, ts, member) for _, element in elements([block]))
    return "".join(out)


def _element_form(element: dict[str, Any], channel: str, ts: str, member: Member) -> str:
    hidden = _hidden(member, channel, ts=ts, action_id=str(element.get("action_id", "")))
    if element.get("type") == "button":
        if str(element.get("url", "")).startswith(("https://", "http://")):  # never a javascript: link
            return f" <a href='{html.escape(element['url'])}'>{_text(element.get('text'))}</a>"
        button = f"<button>{_text(element.get('text'))}</button>"
        return f"<form class=inline method=post action='/ui/click'>{hidden}{button}</form> "
    options = [o for g in element.get("option_groups", ()) for o in g["options"]] + list(
        element.get("options", ())
    )
    if not options:
        return ""
    choices = "".join(
        f"<option value='{html.escape(str(o.get('value', '')))}'>{_text(o.get('text'))}</option>"
        for o in options
    )
    return (
        f"<form class=inline method=post action='/ui/click'>{hidden}<select name=value>{choices}</select>"
        f"<button>{_text(element.get('placeholder') or {'text': 'Choose'})}</button></form> "
    )


def _modal(view_id: str, view: dict[str, Any], member: Member, channel: str) -> str:
    fields = []
    for block in view.get("blocks", []):
        if block.get("type") != "input":
            fields.append(_blocks([block], "", channel, None, member))
            continue
        element = block.get("element", {})
        name = f"f:{html.escape(str(block.get('block_id', '')))}"
        label = _text(block.get("label"))
        kind = element.get("type")
        if kind == "plain_text_input":
            value = html.escape(str(element.get("initial_value", "")))
            tag = (
                f"<textarea name='{name}' rows=4 cols=60>{value}</textarea>"
                if element.get("multiline")
                else f"<input name='{name}' value='{value}' size=60>"
            )
        elif kind in ("static_select", "radio_buttons"):
            initial = (element.get("initial_option") or {}).get("value")
            opts = "".join(
                f"<option value='{html.escape(str(o['value']))}'"
                f"{' selected' if o['value'] == initial else ''}>{_text(o.get('text'))}</option>"
                for o in element.get("options", [])
            )
            tag = f"<select name='{name}'>{opts}</select>"
        elif kind == "datepicker":
            tag = (
                f"<input type=date name='{name}' value='{html.escape(str(element.get('initial_date', '')))}'>"
            )
        else:
            tag = f"<em>({html.escape(str(kind))} not drawn here)</em>"
        fields.append(f"<p><label>{label}<br>{tag}</label></p>")
    submit = _text(view.get("submit") or {"text": "Submit"})
    return (
        f"<div class=modal><h3>{_text(view.get('title'))}</h3><form method=post action='/ui/submit'>"
        + _hidden(member, channel, view_id=view_id)
        + "".join(fields)
        + f"<button>{submit}</button></form></div>"
    )
