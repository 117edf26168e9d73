"""One Powertools ``BedrockAgentResolver`` per action group, built from the tool specs.

Handlers import their app from here (and stay thin); ``multitool.schemas``
generates each group's OpenAPI document from the same apps. Errors are mapped
to responses in one place, :func:`_map_errors`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import BedrockAgentResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Body
from aws_lambda_powertools.metrics import MetricUnit

from multitool.observability import logger, metrics
from multitool.tools import email_draft, jira_draft, meeting_scheduler, run_calls
from multitool.tools.base import InvalidInput, ToolContext, ToolError, ToolSpec, UnknownTool
from multitool.tools.bedrock import resolve_action_event
from multitool.tools.email_draft import EmailDraftArgs, EmailDraftPayload
from multitool.tools.jira_draft import JiraTicketArgs, JiraTicketPayload
from multitool.tools.meeting_scheduler import MeetingArgs, MeetingPayload
from multitool.tools.runtime import RuntimeProvider, aws_runtime
from multitool.wire import WireModel

RESPONSE_DESCRIPTION = "The draft's card payload, for the user to review; nothing has been sent or created."


def _error_response(error: ToolError) -> Response[Any]:
    return Response(
        status_code=error.status, content_type=content_types.APPLICATION_JSON, body=error.to_body()
    )


def _validation_error(error: RequestValidationError) -> InvalidInput:
    problems: list[str] = []
    first: str | None = None
    for item in error.errors():
        location = [str(part) for part in item.get("loc", ()) if part != "body"]
        name = ".".join(location) or "body"
        first = first or name
        message = "is missing" if item.get("type") == "missing" else str(item.get("msg", "is invalid"))
        problems.append(f"{name}: {message}")
    return InvalidInput("; ".join(problems) or "The request body is invalid.", field=first)


def _map_errors(app: BedrockAgentResolver) -> None:
    """The one place domain and validation errors become action-group responses."""

    @app.exception_handler(ToolError)  # type: ignore[untyped-decorator]
    def tool_error(error: ToolError) -> Response[Any]:
        logger.info("Tool call refused", extra={"code": error.code, "field": error.field})
        return _error_response(error)

    @app.exception_handler(RequestValidationError)  # type: ignore[untyped-decorator]
    def validation_error(error: RequestValidationError) -> Response[Any]:
        return _error_response(_validation_error(error))

    @app.not_found
    def unknown_operation(_error: NotFoundError) -> Response[Any]:
        event = app.current_event
        operations = ", ".join(f"{s.method} {s.api_path}" for s in _SPECS.values())
        return _error_response(
            UnknownTool(
                f"There is no operation {event.http_method} {event.api_path} here. Use: {operations}.",
                field="apiPath",
            )
        )


def _run_one(app: BedrockAgentResolver, runtime: RuntimeProvider, spec: ToolSpec, args: WireModel) -> Any:
    tools = runtime()
    event = app.current_event
    ctx = ToolContext.from_session(
        event.session_id, event.session_attributes, default_timezone=tools.default_timezone
    )
    (outcome,) = run_calls([(spec.name, args.to_wire())], ctx, tools.ports, tools.config)
    if outcome.error is not None:
        raise outcome.error
    metrics.add_metric(name="DraftsProposed", unit=MetricUnit.Count, value=1)
    logger.info(
        "Draft proposed", extra={"tool": spec.name, "draft_id": (outcome.payload or {}).get("draftId")}
    )
    return spec.payload_model.model_validate(outcome.payload)


def _new_app() -> BedrockAgentResolver:
    app = BedrockAgentResolver()
    _map_errors(app)
    return app


def _route(spec: ToolSpec) -> dict[str, Any]:
    return {
        "rule": spec.api_path,
        "description": spec.description,
        "operation_id": spec.name,
        "summary": spec.name.replace("_", " ").capitalize(),
        "response_description": RESPONSE_DESCRIPTION,
    }


def email_draft_app(runtime: RuntimeProvider = aws_runtime) -> BedrockAgentResolver:
    app = _new_app()

    @app.post(**_route(email_draft.SPEC))  # type: ignore[untyped-decorator]
    def create_email_draft(args: Annotated[EmailDraftArgs, Body()]) -> EmailDraftPayload:
        result: EmailDraftPayload = _run_one(app, runtime, email_draft.SPEC, args)
        return result

    return app


def meeting_scheduler_app(runtime: RuntimeProvider = aws_runtime) -> BedrockAgentResolver:
    app = _new_app()

    @app.post(**_route(meeting_scheduler.SPEC))  # type: ignore[untyped-decorator]
    def propose_meeting(args: Annotated[MeetingArgs, Body()]) -> MeetingPayload:
        result: MeetingPayload = _run_one(app, runtime, meeting_scheduler.SPEC, args)
        return result

    return app


def jira_draft_app(runtime: RuntimeProvider = aws_runtime) -> BedrockAgentResolver:
    app = _new_app()

    @app.post(**_route(jira_draft.SPEC))  # type: ignore[untyped-decorator]
    def create_jira_ticket_draft(args: Annotated[JiraTicketArgs, Body()]) -> JiraTicketPayload:
        result: JiraTicketPayload = _run_one(app, runtime, jira_draft.SPEC, args)
        return result

    return app


APP_FACTORIES: Mapping[str, Callable[..., BedrockAgentResolver]] = {
    email_draft.SPEC.action_group: email_draft_app,
    meeting_scheduler.SPEC.action_group: meeting_scheduler_app,
    jira_draft.SPEC.action_group: jira_draft_app,
}
"""action group -> app factory (the schema generator and the handlers use these)."""

_SPECS: Mapping[str, ToolSpec] = {
    s.action_group: s for s in (email_draft.SPEC, meeting_scheduler.SPEC, jira_draft.SPEC)
}


def handle(app: BedrockAgentResolver, event: Any, context: Any) -> dict[str, Any]:
    """Resolve one action-group event; malformed events still get a Bedrock response."""
    response = resolve_action_event(app.resolve, event, context)
    if response["response"]["httpStatusCode"] >= 400:
        metrics.add_metric(name="ToolCallsRefused", unit=MetricUnit.Count, value=1)
    return response
