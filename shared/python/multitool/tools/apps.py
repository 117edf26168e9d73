"""One Powertools ``BedrockAgentResolver`` per action group, built from the tool registry.

Handlers build their app through :mod:`multitool.wiring.action_groups` (and stay thin); ``multitool.schemas``
generates each group's OpenAPI document from the same apps. Errors are mapped
to responses in one place, :func:`_map_errors`. :func:`handle` also answers the
same Lambda's AgentCore Gateway calls (:mod:`multitool.tools.gateway_target`), told
apart by the invocation's context: same tool, same payloads, same validation.
"""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import BedrockAgentResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Body
from aws_lambda_powertools.metrics import MetricUnit

from multitool.observability import logger, metrics
from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import InvalidInput, ToolError, UnknownTool
from multitool.toolkit.spec import ToolSpec
from multitool.tools import REGISTRY, run_calls
from multitool.tools.bedrock import resolve_action_event
from multitool.tools.environment import EnvironmentProvider
from multitool.tools.gateway_target import answer_gateway_call, is_gateway_call
from multitool.validation import first_field, problems
from multitool.wire import WireModel

RESPONSE_DESCRIPTION = "The draft's card payload, for the user to review; nothing has been sent or created."


def _error_response(error: ToolError) -> Response[Any]:
    return Response(
        status_code=error.status, content_type=content_types.APPLICATION_JSON, body=error.to_body()
    )


def _validation_error(error: RequestValidationError) -> InvalidInput:
    items = list(error.errors())
    return InvalidInput(problems(items) or "The request body is invalid.", field=first_field(items))


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
        spec = REGISTRY.by_group(event.action_group)
        operations = f"{spec.method} {spec.api_path}" if spec is not None else "none"
        return _error_response(
            UnknownTool(
                f"There is no operation {event.http_method} {event.api_path} here. Use: {operations}.",
                field="apiPath",
            )
        )


def _run_one(
    app: BedrockAgentResolver, environment: EnvironmentProvider, spec: ToolSpec, args: WireModel
) -> Any:
    tools = environment()
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


class ActionGroupApp(BedrockAgentResolver):
    """An action group's resolver, knowing its tool and environment (for its Gateway calls too)."""

    def __init__(self, spec: ToolSpec, environment: EnvironmentProvider) -> None:
        super().__init__()
        self.spec = spec
        self.environment = environment


def _route(spec: ToolSpec) -> dict[str, Any]:
    return {
        "rule": spec.api_path,
        "description": spec.description,
        "operation_id": spec.name,
        "summary": spec.name.replace("_", " ").capitalize(),
        "response_description": RESPONSE_DESCRIPTION,
    }


def action_group_app(group: str, environment: EnvironmentProvider) -> ActionGroupApp:
    """The app of one action group: its tool's one route, typed by its models (for validation
    and for the OpenAPI document), run against ``environment`` (the deployed one:
    :mod:`multitool.wiring.action_groups`); :class:`UnknownTool` for a group no tool serves."""
    spec = REGISTRY.by_group(group)
    if spec is None:
        raise UnknownTool(f"No tool serves action group '{group}'. Groups: {', '.join(REGISTRY.groups)}.")
    app = ActionGroupApp(spec, environment)
    _map_errors(app)

    def operation(args: WireModel) -> Any:
        return _run_one(app, environment, spec, args)

    # Powertools reads the body model and the response model from the annotations.
    operation.__annotations__ = {"args": Annotated[spec.args_model, Body()], "return": spec.payload_model}
    operation.__name__ = operation.__qualname__ = spec.name
    app.post(**_route(spec))(operation)
    return app


def handle(app: ActionGroupApp, event: Any, context: Any) -> dict[str, Any]:
    """Answer one invocation: a Gateway call (by its context) with the tool's payload or error body,
    else an action-group event, malformed ones included, with a Bedrock response."""
    if is_gateway_call(context):
        return answer_gateway_call(app.spec, event, context, app.environment)
    response = resolve_action_event(app.resolve, event, context)
    if response["response"]["httpStatusCode"] >= 400:
        metrics.add_metric(name="ToolCallsRefused", unit=MetricUnit.Count, value=1)
    return response
