"""The Slack app: the same cards, edits and confirms as the page, in Slack (docs/slack.md).

Public entry: :class:`multitool.slack.app.SlackApp` (``handle(event, context)`` for ``POST
/slack/events``, ``run_turn(turn_id, context)`` for the asynchronous invocation a Slack message
started), which ``functions/slack/handler.py`` serves and the local server (``multitool serve
--slack``) can load; the deployed one is :func:`multitool.wiring.slack.aws_slack_app` (built on
first use), which reads the environment below.

Modules: :mod:`~multitool.slack.verify` (the signature, before anything is parsed),
:mod:`~multitool.slack.events` (a message or mention starts one turn, once per event id),
:mod:`~multitool.slack.identity` (Slack email -> directory person), :mod:`~multitool.slack.blocks`
(any card as Block Kit, within its limits), :mod:`~multitool.slack.modal` (the Edit modal from the
tool's edits model), :mod:`~multitool.slack.interactions` (Confirm, Edit, Discard through the
reviewer), :mod:`~multitool.slack.web` (the Web API, rate limits retried),
:mod:`~multitool.slack.secrets` (the two secrets, cached).

Environment (besides the orchestrator's, for the turn, and the review function's, for the confirm):

``SLACK_SIGNING_SECRET_ARN``
    Secrets Manager secret holding the app's signing secret (plain string).
``SLACK_BOT_TOKEN_ARN``
    Secrets Manager secret holding the bot token, ``xoxb-…`` (plain string).
``SLACK_SIGNING_SECRET`` / ``SLACK_BOT_TOKEN``
    The values themselves, instead of the secrets: local runs and tests only (the stack sets none).
``SLACK_API_URL``
    The Web API's base URL, default ``https://slack.com/api/`` (a local stand-in's otherwise).
``LIMITS_TABLE_NAME``
    Where each event id is recorded once (``SLACKEVENT#…`` items) and where each card was posted
    (``SLACKCARD#<draft id>``, for marking it replaced by a revision); unset: in memory (local runs).
``PAGE_URL``
    The chat page, linked from a card too long for Slack.
``TURNS_TABLE_NAME`` (the orchestrator's)
    Required: a Slack turn always runs past its request.
"""
