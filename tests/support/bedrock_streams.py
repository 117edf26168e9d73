"""InvokeAgent completion events and tool payloads in their recorded wire shapes.

Builders for the ``completion`` stream boto3 yields from
``bedrock-agent-runtime.invoke_agent`` (design.md "Wire formats"): ``chunk``,
``trace`` (orchestration, failure, multi-agent with ``callerChain``) and
``returnControl``; and payloads as the action groups return them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

REGION = "us-east-1"
ACCOUNT = "123456789012"
SUPERVISOR = ("SUPAGENT01", "TSTALIASID")
COLLABORATOR = ("DRAFTAGENT", "ALIASDRAFT")


def alias_arn(agent: tuple[str, str]) -> str:
    return f"arn:aws:bedrock:{REGION}:{ACCOUNT}:agent-alias/{agent[0]}/{agent[1]}"


# --------------------------------------------------------------------------- people and payloads


def person(name: str, email: str, pid: str | None = None, tz: str = "Europe/Berlin") -> dict[str, Any]:
    return {
        "id": pid or email.split("@")[0],
        "displayName": name,
        "email": email,
        "timezone": tz,
        "aliases": [],
    }


KINSHUOK = person("Kinshuok Sharma", "kinshuok.sharma@example.com", "p-kinshuok")
PRIYA = person("Priya Natarajan", "priya.natarajan@example.com", "p-priya")
PRIYA_K = person("Priya Kapoor", "priya.kapoor@example.com", "p-priya-k")


def resolved(query: str, who: dict[str, Any]) -> dict[str, Any]:
    return {"query": query, "status": "resolved", "person": who, "candidates": []}


def ambiguous(query: str, *candidates: dict[str, Any]) -> dict[str, Any]:
    return {"query": query, "status": "ambiguous", "person": None, "candidates": list(candidates)}


def unknown(query: str) -> dict[str, Any]:
    return {"query": query, "status": "unknown", "person": None, "candidates": []}


def email_payload(
    draft_id: str = "d_email1",
    to: list[dict[str, Any]] | None = None,
    subject: str = "About the doc",
    body: str = "Hi Kinshuok,\n\nCould you have a look at the doc?\n\nThanks",
) -> dict[str, Any]:
    return {
        "action": "show_new_email_draft",
        "draftId": draft_id,
        "to": to if to is not None else [resolved("Kinshuok", KINSHUOK)],
        "cc": [],
        "subject": subject,
        "body": body,
    }


def meeting_payload(
    draft_id: str = "d_meet1",
    attendees: list[dict[str, Any]] | None = None,
    title: str = "Sync",
    requested: str = "Thursday",
    starts: tuple[str, ...] = (
        "2026-12-03T09:00:00+01:00",
        "2026-12-03T10:00:00+01:00",
        "2026-12-03T11:00:00+01:00",
    ),
    duration: int = 30,
) -> dict[str, Any]:
    slots = []
    for start in starts:
        begin = datetime.fromisoformat(start)
        end = begin + timedelta(minutes=duration)
        slots.append({"start": begin.isoformat(), "end": end.isoformat()})
    return {
        "action": "show_meeting_scheduler",
        "draftId": draft_id,
        "title": title,
        "attendees": attendees if attendees is not None else [resolved("Kinshuok", KINSHUOK)],
        "requested": requested,
        "durationMinutes": duration,
        "timezone": "Europe/Berlin",
        "slots": slots,
    }


def jira_payload(
    draft_id: str = "d_jira1",
    project: str = "WEB",
    summary: str = "Login crash",
    issue_type: str = "Bug",
    assignee: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "action": "show_jira_ticket_draft",
        "draftId": draft_id,
        "project": project,
        "issueType": issue_type,
        "summary": summary,
        "description": "The app crashes on login.",
        "priority": "Medium",
        "assignee": assignee,
    }


# --------------------------------------------------------------------------- completion events


def chunk(text: str) -> dict[str, Any]:
    return {"chunk": {"bytes": text.encode("utf-8")}}


def trace_event(
    inner: dict[str, Any],
    *,
    chain: tuple[tuple[str, str], ...] = (SUPERVISOR,),
    collaborator: str | None = None,
    session_id: str = "sess-1",
) -> dict[str, Any]:
    agent = chain[-1]
    part: dict[str, Any] = {
        "agentId": agent[0],
        "agentAliasId": agent[1],
        "agentVersion": "1",
        "sessionId": session_id,
        "eventTime": datetime(2026, 12, 1, 9, 0, tzinfo=UTC),
        "callerChain": [{"agentAliasArn": alias_arn(link)} for link in chain],
        "trace": inner,
    }
    if collaborator is not None:
        part["collaboratorName"] = collaborator
    return {"trace": part}


def properties(args: dict[str, Any]) -> list[dict[str, str]]:
    """Bedrock's [{name, type, value}] rendering of request body arguments."""
    rendered = []
    for name, value in args.items():
        kind = "array" if isinstance(value, list) else "integer" if isinstance(value, int) else "string"
        rendered.append(
            {"name": name, "type": kind, "value": json.dumps(value) if kind == "array" else str(value)}
        )
    return rendered


def invocation_input(
    trace_id: str,
    group: str,
    api_path: str,
    args: dict[str, Any] | None = None,
    *,
    execution_type: str = "LAMBDA",
    **kwargs: Any,
) -> dict[str, Any]:
    return trace_event(
        {
            "orchestrationTrace": {
                "invocationInput": {
                    "traceId": trace_id,
                    "invocationType": "ACTION_GROUP",
                    "actionGroupInvocationInput": {
                        "actionGroupName": group,
                        "apiPath": api_path,
                        "verb": "post",
                        "executionType": execution_type,
                        "requestBody": {"content": {"application/json": properties(args or {})}},
                    },
                }
            }
        },
        **kwargs,
    )


def observation(trace_id: str, body: Any, **kwargs: Any) -> dict[str, Any]:
    """An action-group output; ``body`` is dumped to JSON unless it is already a string."""
    text = body if isinstance(body, str) else json.dumps(body)
    return trace_event(
        {
            "orchestrationTrace": {
                "observation": {
                    "traceId": trace_id,
                    "type": "ACTION_GROUP",
                    "actionGroupInvocationOutput": {"text": text},
                }
            }
        },
        **kwargs,
    )


def rationale(trace_id: str, text: str, **kwargs: Any) -> dict[str, Any]:
    return trace_event({"orchestrationTrace": {"rationale": {"traceId": trace_id, "text": text}}}, **kwargs)


def model_input(trace_id: str, text: str, **kwargs: Any) -> dict[str, Any]:
    return trace_event(
        {
            "orchestrationTrace": {
                "modelInvocationInput": {"traceId": trace_id, "type": "ORCHESTRATION", "text": text}
            }
        },
        **kwargs,
    )


def final_response(trace_id: str, text: str, **kwargs: Any) -> dict[str, Any]:
    return trace_event(
        {
            "orchestrationTrace": {
                "observation": {"traceId": trace_id, "type": "FINISH", "finalResponse": {"text": text}}
            }
        },
        **kwargs,
    )


def collaborator_output(trace_id: str, name: str, text: str, **kwargs: Any) -> dict[str, Any]:
    return trace_event(
        {
            "orchestrationTrace": {
                "observation": {
                    "traceId": trace_id,
                    "type": "AGENT_COLLABORATOR",
                    "agentCollaboratorInvocationOutput": {
                        "agentCollaboratorName": name,
                        "agentCollaboratorAliasArn": alias_arn(COLLABORATOR),
                        "output": {"type": "TEXT", "text": text},
                    },
                }
            }
        },
        **kwargs,
    )


def failure(trace_id: str, reason: str = "Internal server error", **kwargs: Any) -> dict[str, Any]:
    return trace_event(
        {"failureTrace": {"traceId": trace_id, "failureReason": reason, "failureCode": 500}}, **kwargs
    )


def api_invocation_input(group: str, api_path: str, args: dict[str, Any]) -> dict[str, Any]:
    """One ``returnControl.invocationInputs[]`` entry (OpenAPI style)."""
    return {
        "apiInvocationInput": {
            "actionGroup": group,
            "actionInvocationType": "RESULT",
            "apiPath": api_path,
            "httpMethod": "POST",
            "parameters": [],
            "requestBody": {"content": {"application/json": {"properties": properties(args)}}},
        }
    }


def return_control(invocation_id: str, inputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"returnControl": {"invocationId": invocation_id, "invocationInputs": inputs}}
