"""Which adapters each deployed function runs on: one composition module per function.

Each module here is the only place that reads the settings to choose that function's adapters
(DynamoDB, SES, SQS, Secrets Manager, AgentCore Identity, the calendar's provider, Jira), and it
builds each of them on first use, never at import: a handler imports its module in its init and
the first request pays for the clients. The route modules (``multitool.api.*_app``,
``multitool.tools.apps``, :mod:`multitool.slack.app`) hold routes only and receive what they serve
as providers, so a test or the local server hands them its own.

=============================  ==========================================================
function (``functions/…``)     its composition
=============================  ==========================================================
``orchestrator``               :mod:`multitool.wiring.orchestrator`
``review``                     :mod:`multitool.wiring.review`
the action groups (tools)      :mod:`multitool.wiring.action_groups`
``slack``                      :mod:`multitool.wiring.slack`
``mcp_caller``                 :mod:`multitool.wiring.interceptor`
=============================  ==========================================================

Shared by several: :mod:`multitool.wiring.tool_ports` (the tools' ports, for the orchestrator
and the action groups alike) and :mod:`multitool.wiring.rate_limits` (a route's per-user token
bucket, for the chat and the confirms).
"""
