"""The whole system in one stack: each concern is a construct; this file wires them and grants."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct
from multitool.deployment import Identity, JiraAuth, Runtime
from multitool.ports.tables import (
    AUDIT,
    BOOKINGS,
    DIRECTORY,
    DRAFTS,
    IDEMPOTENCY,
    LIMITS,
    MAILBOX,
    SESSIONS,
    TURNS,
    TableSpec,
)
from multitool.settings import page_projects

from infra.components.agent import ChatAgent, action_groups
from infra.components.api import ChatApi, UserDirectory
from infra.components.functions import TOOL_CODE, FunctionSpec, MultitoolFunction, tool_environment
from infra.components.harness import ChatHarness
from infra.components.identity import UserIdentity
from infra.components.jira import JiraSecret
from infra.components.keys import DataKey
from infra.components.layer import SharedLayer
from infra.components.mail import SenderIdentity
from infra.components.model import ModelAccess, grant_guardrail
from infra.components.operations import Operations, TurnFailures
from infra.components.slack import ROUTE as SLACK_ROUTE
from infra.components.slack import SlackSecrets, add_slack_route
from infra.components.suite import SuiteAccess
from infra.components.tables import Tables
from infra.components.tool_gateway import ToolGateway
from infra.components.undo import UndoQueue
from infra.components.user_gateway import SCOPE as MCP_SCOPE
from infra.components.user_gateway import UserToolGateway
from infra.components.web import ChatWebsite
from infra.context import DEFAULT_STACK_NAME, RETENTION_DAYS, DeployContext

STACK_NAME = DEFAULT_STACK_NAME
JIRA_READING_GROUPS = frozenset({"jira_comment", "jira_transition", "jira_update", "jira_link"})
"""The action groups whose cards name an existing Jira issue (multitool.tools.jira.find reads it)."""
# Exactly the calls each code path makes (TransactWriteItems is authorized per item: Put -> PutItem,
# Update -> UpdateItem). Tools: people and busy times in BatchGetItem pages; a draft is a conditional
# PutItem (several in one TransactWriteItems), read back with GetItem when it already exists.
TOOL_READ_ACTIONS = ("dynamodb:BatchGetItem",)
DRAFT_WRITE_ACTIONS = ("dynamodb:PutItem", "dynamodb:GetItem")
# With the Gateway executor the orchestrator runs no tool; it claims its turn's drafts (GetItem, then
# a PutItem conditioned on the draft still being unclaimed).
CLAIM_ACTIONS = ("dynamodb:GetItem", "dynamodb:PutItem")
# The chat path: a session is claimed and remembered with UpdateItem (ReturnValues=ALL_NEW) and read back
# (GET /sessions/{id}) with a consistent GetItem; Powertools' DynamoDBPersistenceLayer gets, puts, updates
# and deletes idempotency records.
SESSION_ACTIONS = ("dynamodb:UpdateItem", "dynamodb:GetItem")
IDEMPOTENCY_ACTIONS = ("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem")
# A turn past its request: created with a conditional PutItem, taken and appended to with UpdateItem, read
# (GET /turns/{id}) with a consistent GetItem.
TURN_ACTIONS = ("dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:GetItem")
TURN_TIMEOUT_SECONDS = 300
"""The orchestrator's timeout: a turn run past its request may take minutes (API Gateway cuts at 30 s)."""
SLACK_TIMEOUT_SECONDS = 240
"""The Slack function's: a turn's minutes, and under the review's EXECUTION_LEASE (5 minutes), since it
confirms too (an executing draft older than the lease may be taken over by another confirm)."""
TURN_EVENT_MAX_AGE_SECONDS = 60
"""An asynchronous turn invocation not run by then is dropped (the page then sees the turn lost)."""
# The confirm path: a draft is read (GetItem) and replaced with a conditional PutItem; a booking is one
# TransactWriteItems of a Put (the booking) and Updates (each attendee's busy day).
REVIEW_DRAFT_ACTIONS = ("dynamodb:GetItem", "dynamodb:PutItem")
# A booking reads the attendee-days it takes (consistent BatchGetItem), then writes them with Put/Delete
# conditioned on their versions in one TransactWriteItems; a failed invitation releases it again (Delete).
BOOKING_WRITE_ACTIONS = ("dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:DeleteItem")
# The builtin mailbox (multitool.ports.aws.dynamo_mailbox): the tools find a message (one Query of the
# caller's box, newest first); the review reads it again, writes the answer's draft, claims and marks its send
# (conditional UpdateItems) and keeps the sent answer in the sender's and recipients' boxes (PutItem).
MAILBOX_READ_ACTIONS = ("dynamodb:Query",)
MAILBOX_REVIEW_ACTIONS = ("dynamodb:Query", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem")
# A confirm that mails counts its recipients against the day's quota: one conditional UpdateItem (and an
# unconditional one giving them back when the send failed).
LIMIT_ACTIONS = ("dynamodb:UpdateItem",)
# A user's token bucket (multitool.ports.rate): a consistent GetItem, then a PutItem conditioned on it.
RATE_LIMIT_ACTIONS = ("dynamodb:GetItem", "dynamodb:PutItem")
# A user's connected accounts and running consents (multitool.ports.connections): a consistent GetItem, a
# PutItem, and the callback's UpdateItem conditioned on the user's own pending consent.
CONNECTION_ACTIONS = ("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem")
# A user's running-turn places (multitool.ports.turn_slots): taken like a bucket's token (GetItem, then a
# conditional PutItem), held longer and given back with UpdateItem.
TURN_SLOT_ACTIONS = ("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem")
# Each Slack event id once (multitool.slack.events.EventLedger): a conditional PutItem, and a DeleteItem
# that takes it back when the event's turn could not start. (Where each card was posted, for marking it
# replaced, is a PutItem and a GetItem there too: the turn's grants on the table already hold both.)
SLACK_EVENT_ACTIONS = ("dynamodb:PutItem", "dynamodb:DeleteItem")
# Every side effect leaves one audit record (PutItem); nothing in the stack reads or changes one.
AUDIT_ACTIONS = ("dynamodb:PutItem",)
_RETENTION_NAMES = (
    "ONE_DAY", "THREE_DAYS", "FIVE_DAYS", "ONE_WEEK", "TWO_WEEKS", "ONE_MONTH", "TWO_MONTHS", "THREE_MONTHS",
    "FOUR_MONTHS", "FIVE_MONTHS", "SIX_MONTHS", "ONE_YEAR", "THIRTEEN_MONTHS", "EIGHTEEN_MONTHS", "TWO_YEARS",
    "THREE_YEARS", "FIVE_YEARS", "SIX_YEARS", "SEVEN_YEARS", "EIGHT_YEARS", "NINE_YEARS", "TEN_YEARS",
)  # fmt: skip
RETENTION = {
    days: logs.RetentionDays[name] for days, name in zip(RETENTION_DAYS, _RETENTION_NAMES, strict=True)
}


class MultitoolStack(cdk.Stack):
    def __init__(
        self, scope: Construct, construct_id: str, *, settings: DeployContext, **kwargs: Any
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            description="multitool: one chat message, several intents, one reviewed card per action",
            **kwargs,
        )
        self.settings = settings
        retention = RETENTION[settings.log_retention_days]
        # customerManagedKey: tables, log groups and secrets under the stack's own key (components.keys).
        self.data_key = DataKey(self, "DataKey") if settings.customer_managed_key else None
        if self.data_key is not None:
            self.data_key.encrypt_log_groups(self)
        own_key = self.data_key.key if self.data_key is not None else None
        self.tables = Tables(self, "Tables", encryption_key=own_key)
        self.layer = SharedLayer(self, "Layer").layer
        model = ModelAccess(
            self, "Model", model=settings.model, marketplace_product_id=settings.marketplace_product
        )

        tool_env = {
            **self.tables.environment(DRAFTS, DIRECTORY, BOOKINGS, MAILBOX),
            "DEFAULT_TIMEZONE": settings.default_timezone,
        }
        if settings.jira_projects:
            tool_env["JIRA_PROJECTS"] = settings.jira_projects
        self.suite = SuiteAccess(
            self,
            "Suite",
            calendar=settings.calendar,
            app_credential=settings.microsoft365_app_credential,
            google_delegation=settings.google_delegation,
            google_key_id=settings.google_delegation_key_id,
            encryption_key=own_key,
        )
        tool_env.update(self.suite.environment())

        def function(construct_id: str, spec: FunctionSpec) -> MultitoolFunction:
            return MultitoolFunction(self, construct_id, spec=spec, layer=self.layer, log_retention=retention)

        # The account that reads the issues a card names (organization Jira): a secret of its own, never
        # the one the review writes with; read only by the functions that make those cards.
        self.jira_reader = (
            JiraSecret(
                self,
                "JiraReader",
                encryption_key=own_key,
                description="multitool Jira reading account (browse only): {baseUrl, email, apiToken}",
            )
            if settings.jira_auth is JiraAuth.ORGANIZATION
            else None
        )

        # Action groups: draft only. No mail, no agent invocation; the Jira ones read the reader's secret.
        self.action_groups: dict[str, MultitoolFunction] = {}
        if settings.lambda_executors:
            for group in action_groups():
                # Jira as the user: an action group has no user's JWT to read with (the orchestrator does).
                reads_jira = group.name in JIRA_READING_GROUPS and self.jira_reader is not None
                fn = function(
                    _pascal(group.name),
                    FunctionSpec(
                        group.name,
                        group.function_description,
                        code=TOOL_CODE,
                        environment={
                            **tool_env,
                            **tool_environment(group.name),
                            **(self._jira_reader_environment() if reads_jira else {}),
                        },
                    ),
                )
                self._grant_tools(fn.role)
                if reads_jira and self.jira_reader is not None:  # (checked above; for the type)
                    self.jira_reader.grant_read(fn.role)
                self.action_groups[group.name] = fn

        self.agent: ChatAgent | None = None
        if settings.uses_agent:
            self.agent = ChatAgent(
                self,
                "Agent",
                model=model,
                executors=(
                    {name: fn.function for name, fn in self.action_groups.items()}
                    if settings.lambda_executors
                    else None
                ),
                idle_session_ttl_seconds=settings.idle_session_ttl_seconds,
                guardrail_id=settings.guardrail_id,
                guardrail_version=settings.guardrail_version,
            )

        # executor=gateway: the action-group Lambdas behind an AgentCore Gateway, for the harness.
        self.gateway: ToolGateway | None = None
        if settings.uses_gateway:
            self.gateway = ToolGateway(
                self, "Gateway", functions={name: fn.function for name, fn in self.action_groups.items()}
            )

        # The default Bedrock agent: the AgentCore harness, tools handed back as inline functions
        # (or, with executor=gateway, called through the Gateway).
        self.harness: ChatHarness | None = None
        if settings.uses_harness:
            self.harness = ChatHarness(
                self,
                "Harness",
                model=model,
                idle_session_seconds=settings.idle_session_ttl_seconds,
                log_retention=retention,
                gateway=self.gateway,
                encryption_key=own_key,
            )

        # The chat path: runs the model turn; never sends mail or reads the Jira secret.
        chat_env = {
            **tool_env,
            **self.tables.environment(SESSIONS, IDEMPOTENCY, TURNS),
            "RATE_LIMITS_TABLE_NAME": self.tables[LIMITS].table_name,
            "RUNNING_TURNS_PER_USER": str(settings.running_turns_per_user),
            "RUNTIME": settings.runtime.value,
        }
        if self.agent is not None:
            chat_env |= {"AGENT_ID": self.agent.agent_id, "AGENT_ALIAS_ID": self.agent.alias_id}
        else:
            chat_env["MODEL_ID"] = settings.model_id
        if settings.guardrail_id and settings.runtime is Runtime.CONVERSE:
            # The Converse loop sends it on every model call (multitool.runtimes.converse).
            chat_env["GUARDRAIL_ID"] = settings.guardrail_id
            chat_env["GUARDRAIL_VERSION"] = settings.guardrail_version
        if self.harness is not None:
            chat_env["HARNESS_ARN"] = self.harness.harness_arn
        if self.gateway is not None:
            chat_env["GATEWAY_ARN"] = self.gateway.gateway_arn
        self.orchestrator = function(
            "Orchestrator",
            FunctionSpec(
                "orchestrator",
                "POST /chat and GET /turns/{id}: one model turn, one card per action, run past the request",
                timeout_seconds=TURN_TIMEOUT_SECONDS,
                environment=chat_env,
                reserved_concurrency=settings.orchestrator_concurrency or None,
                memory_mb=settings.orchestrator_memory,
            ),
        )
        self.model = model
        # A retried turn would run the model (and draft) again: a failed one is answered as failed, and
        # its invocation's record kept for an operator to read (infra.components.operations).
        self.turn_failures = TurnFailures(self, "FailedTurns")
        self._grant_chat(self.orchestrator, "OrchestratorSelfInvoke")

        # The confirm path: the only function that sends, books or creates.
        self.sender = SenderIdentity(
            self,
            "Sender",
            sender_email=settings.sender_email,
            configuration_set=settings.ses_configuration_set,
            create=settings.create_sender_identity,
        )
        # Jira as the user (jiraAuth=user) signs in with each user's own token: no organization secret.
        self.jira = (
            JiraSecret(self, "Jira", encryption_key=own_key)
            if settings.jira_auth is JiraAuth.ORGANIZATION
            else None
        )
        self.users = UserDirectory(
            self,
            "Users",
            user_pool_id=settings.user_pool_id,
            user_pool_client_id=settings.user_pool_client_id,
            user_pool_domain=settings.user_pool_domain,
            domain_prefix=settings.auth_domain_prefix,
            self_sign_up=settings.self_sign_up,
            ses_sender=self.sender if settings.user_pool_email == "ses" else None,
        )
        # executor=gateway: the same tools for people's own MCP clients, signed in to the pool.
        self.user_gateway: UserToolGateway | None = None
        if self.gateway is not None and self.users.creates_client:
            self.user_gateway = UserToolGateway(
                self,
                "UserGateway",
                users=self.users,
                functions=self.action_groups,
                make_function=function,
                callback_urls=settings.mcp_callback_urls,
            )
        review_env = {
            **tool_env,
            "SENDER_EMAIL": settings.sender_email,
            **self._jira_environment(),
            "SANDBOX": "true" if settings.sandbox else "false",
            "SES_CONFIGURATION_SET": self.sender.configuration_set,
            "RATE_LIMITS_TABLE_NAME": self.tables[LIMITS].table_name,
            **self._recipient_limits(),
        }
        self.review = function(
            "Review",
            FunctionSpec(
                "review",
                "GET /actions/{id}, POST /actions/{id}/confirm and /discard",
                environment=review_env,
                reserved_concurrency=settings.review_concurrency or None,
                memory_mb=settings.review_memory,
            ),
        )
        self._grant_review(self.review.role)
        # A confirmed mail waits undoSeconds with Undo on its card (0: sent at once, no queue).
        self.undo_queue = (
            UndoQueue(self, "Undo", review=self.review, seconds=settings.undo_seconds, encryption_key=own_key)
            if settings.undo_seconds > 0
            else None
        )

        # The page's fetches: any HTTP API of this region (naming this API's id would make the
        # distribution and the API's CORS origins depend on each other) and the sign-in domain; the
        # page's own policy, written with its files, narrows that to this API (below).
        self.web = ChatWebsite(
            self,
            "Web",
            connect_sources=[
                f"https://*.execute-api.{self.region}.{self.url_suffix}",
                *([self.users.sign_in_origin] if self.users.sign_in_origin else []),
            ],
            log_retention=retention,
        )
        local_sign_in = [f"{settings.local_sign_in_origin}/"] if settings.local_sign_in_origin else []
        self.users.add_web_client([self.web.url, *local_sign_in])
        self.users.add_cli_client()
        self.api = ChatApi(
            self,
            "Api",
            users=self.users,
            orchestrator=self.orchestrator.function,
            review=self.review.function,
            web_origins=[
                self.web.origin,
                *([settings.web_origin] if settings.web_origin else []),
                *([settings.local_sign_in_origin] if settings.local_sign_in_origin else []),
            ],
            rate_limit=settings.throttle_rate_limit,
            burst_limit=settings.throttle_burst_limit,
            log_retention=retention,
        )
        self.slack: MultitoolFunction | None = None
        if settings.slack:
            self.slack = self._slack_app(function, {**chat_env, **review_env}, own_key)
        self.identity: UserIdentity | None = None
        if settings.identity is not Identity.OFF or settings.jira_auth is JiraAuth.USER:
            self.identity = self._connect_accounts(local_sign_in)
        # The page's own CSP names this API's host (the header's cannot: see ChatWebsite.publish).
        self.web.publish(
            self._page_config(),
            connect_sources=[
                self.api.endpoint,
                *([self.users.sign_in_origin] if self.users.sign_in_origin else []),
            ],
        )
        self._spend_alarm()
        # Last: its alarms cover every function made above, and every alarm notifies its topic.
        self.operations = Operations(
            self,
            "Operations",
            api=self.api.http_api,
            tables={spec.logical_name: table for spec, table in self.tables.by_spec.items()},
            orchestrator=self.orchestrator,
            review=self.review,
            turn_failures=self.turn_failures,
            model_id=settings.model_id,
            alarm_email=settings.alarm_email,
            encryption_key=self.data_key.key if self.data_key is not None else None,
        )
        self._outputs()

    def _connect_accounts(self, local_sign_in: list[str]) -> UserIdentity:
        """Each user's own account through AgentCore Identity: the two functions that receive the user's
        JWT get its token source's settings and grants; the review function also finishes a consent."""
        settings = self.settings
        jira = settings.jira_auth is JiraAuth.USER
        identity = UserIdentity(
            self,
            "Identity",
            provider=settings.identity,
            client_id=settings.identity_client_id,
            tenant_id=settings.identity_tenant_id,
            return_urls=[self.web.url, *local_sign_in],
            jira_client_id=settings.jira_client_id if jira else None,
        )
        # The orchestrator's tools use the calendar's provider, and (Jira as the user, tools run there)
        # read the issues a card names with the user's own Atlassian token; only the review writes.
        orchestrator_jira = jira and settings.tools_in_orchestrator
        callers = (
            [self.review]
            if settings.identity is Identity.OFF and not orchestrator_jira
            else [self.orchestrator, self.review]
        )
        for fn in callers:
            uses_jira = jira and (fn is self.review or orchestrator_jira)
            calendar = settings.identity is not Identity.OFF
            for key, value in identity.environment(calendar=calendar, jira=uses_jira).items():
                fn.function.add_environment(key, value)
            fn.function.add_environment("IDENTITY_RETURN_URL", self.web.url)
            fn.function.add_environment("CONNECTIONS_TABLE_NAME", self.tables[LIMITS].table_name)
            identity.grant_tokens(fn.role, complete=fn is self.review, calendar=calendar, jira=uses_jira)
            self._grant(LIMITS, fn.role, *CONNECTION_ACTIONS)
        if self.slack is not None:
            self._slack_accounts(identity)
        return identity

    def _slack_accounts(self, identity: UserIdentity) -> None:
        """The Slack function's turns and confirms act in each asker's own accounts: tokens for the vault
        user id of the directory person the Slack user matched (``IDENTITY_SLACK_USERS``, docs/slack.md),
        from ``GetWorkloadAccessTokenForUserId``, which no other role of the stack may call; the
        consents in the connections table. The page (the review function) finishes the consent."""
        assert self.slack is not None
        settings, fn = self.settings, self.slack
        calendar = settings.identity is not Identity.OFF
        jira = settings.jira_auth is JiraAuth.USER
        env = {
            **identity.environment(calendar=calendar, jira=jira),
            "IDENTITY_RETURN_URL": self.web.url,
            "CONNECTIONS_TABLE_NAME": self.tables[LIMITS].table_name,
            "IDENTITY_SLACK_USERS": "true",
        }
        for key, value in env.items():
            fn.function.add_environment(key, value)
        identity.grant_tokens(fn.role, calendar=calendar, jira=jira, by_user_id=True)
        self._grant(LIMITS, fn.role, *CONNECTION_ACTIONS)

    def _jira_reader_environment(self) -> dict[str, str]:
        """How a function that makes cards reads Jira: the reading account's secret, or (Jira as the
        user) each caller's own token on the configured site."""
        if self.jira_reader is not None:
            return {"JIRA_READER_SECRET_ARN": self.jira_reader.secret.secret_arn}
        assert self.settings.jira_site_url is not None  # the context checked it
        return {"JIRA_AUTH": "user", "JIRA_SITE_URL": self.settings.jira_site_url}

    def _jira_environment(self) -> dict[str, str]:
        """How the review function signs in to Jira: the organization's secret, or each user's own
        Atlassian account on the configured site (the identity settings come with the identity)."""
        if self.jira is not None:
            return {"JIRA_SECRET_ARN": self.jira.secret.secret_arn}
        assert self.settings.jira_site_url is not None  # the context checked it
        return {"JIRA_AUTH": "user", "JIRA_SITE_URL": self.settings.jira_site_url}

    def _spend_alarm(self) -> None:
        """An alarm on the model's tokens a day (input + output): what a Bedrock bill grows with.

        Bedrock publishes InputTokenCount and OutputTokenCount per ModelId in AWS/Bedrock
        (https://docs.aws.amazon.com/bedrock/latest/userguide/monitoring-runtime-metrics.html) for the
        Converse and InvokeModel calls it answers.
        """
        model_id = self.settings.model_id

        def tokens(name: str) -> cloudwatch.Metric:
            return cloudwatch.Metric(
                namespace="AWS/Bedrock",
                metric_name=name,
                dimensions_map={"ModelId": model_id},
                statistic="Sum",
                period=cdk.Duration.days(1),
            )

        cloudwatch.Alarm(
            self,
            "ModelSpendAlarm",
            alarm_description=(
                f"More than {self.settings.daily_token_alarm} model tokens in a day on {model_id}: "
                "look for the user behind it in the access log (sub) before the bill does."
            ),
            metric=cloudwatch.MathExpression(
                expression="input + output",
                using_metrics={"input": tokens("InputTokenCount"), "output": tokens("OutputTokenCount")},
                period=cdk.Duration.days(1),
                label="Model tokens a day",
            ),
            threshold=self.settings.daily_token_alarm,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=1,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )

    def _recipient_limits(self) -> dict[str, str]:
        """Whom and how many a confirm may mail (multitool.review.limits), and who must be approved."""
        settings = self.settings
        limits = {
            **self.tables.environment(LIMITS, AUDIT),
            "AUDIT_RETENTION_DAYS": str(settings.audit_retention_days),
            "OUTSIDE_RECIPIENTS": settings.outside_recipients.value,
            "RECIPIENTS_PER_DAY": str(settings.recipients_per_day),
            "OUTSIDE_RECIPIENTS_PER_DAY": str(settings.outside_recipients_per_day),
        }
        if settings.recipient_domains:
            limits["RECIPIENT_DOMAINS"] = ",".join(settings.recipient_domains)
        if self.users.approved_group is not None:
            limits["APPROVED_GROUP"] = self.users.approved_group
        return limits

    def _grant_chat(self, fn: MultitoolFunction, self_invoke_id: str) -> None:
        """What running a chat turn needs (the orchestrator's, and the Slack function's): the sessions,
        the idempotency records, the turns and their places, the tools, the model; and its own turns."""
        settings, role = self.settings, fn.role
        self._grant(SESSIONS, role, *SESSION_ACTIONS)
        self._grant(IDEMPOTENCY, role, *IDEMPOTENCY_ACTIONS)
        self._grant(TURNS, role, *TURN_ACTIONS)
        self._grant(LIMITS, role, *dict.fromkeys((*RATE_LIMIT_ACTIONS, *TURN_SLOT_ACTIONS)))
        self._run_turns_past_the_request(fn, self_invoke_id)
        if settings.uses_gateway:
            # Claims the Gateway drafts its turn's stream shows: read one, one conditional put.
            self._grant(DRAFTS, role, *CLAIM_ACTIONS)
        elif settings.tools_in_orchestrator:
            self._grant_tools(role)
            # The tools run here: the cards that name an existing Jira issue read it.
            for key, value in self._jira_reader_environment().items():
                fn.function.add_environment(key, value)
            if self.jira_reader is not None:
                self.jira_reader.grant_read(role)
        if self.agent is not None:
            role.add_to_principal_policy(
                iam.PolicyStatement(actions=["bedrock:InvokeAgent"], resources=[self.agent.alias_arn])
            )
        elif self.harness is not None:
            # The harness calls the model with its own role; the orchestrator may only invoke it.
            self.harness.grant_invoke(role)
        else:
            # The Converse loop calls Converse, never ConverseStream.
            self.model.grant_invoke(role, streaming=False)
            if settings.guardrail_id:
                grant_guardrail(self, role, settings.guardrail_id)

    def _grant_review(self, role: iam.IRole) -> None:
        """What a confirm needs (the review function's, and the Slack function's)."""
        self._grant(DRAFTS, role, *REVIEW_DRAFT_ACTIONS)
        self._grant(BOOKINGS, role, *BOOKING_WRITE_ACTIONS)
        self._grant(LIMITS, role, *LIMIT_ACTIONS, *RATE_LIMIT_ACTIONS)
        self._grant(AUDIT, role, *AUDIT_ACTIONS)
        # An address typed in a confirm's edits is looked up: a directory person's time is held.
        self._grant(DIRECTORY, role, *TOOL_READ_ACTIONS)
        if not self.suite.uses_provider:
            # With a provider suite every mail and invitation leaves from the user's own mailbox:
            # the review function gets no SES permission (the identity stays for SENDER_EMAIL).
            self.sender.grant_send(role)
            self._grant(MAILBOX, role, *MAILBOX_REVIEW_ACTIONS)
        self.suite.grant_token_source(role)
        if self.jira is not None:
            self.jira.grant_read(role)

    def _slack_app(
        self,
        function: Callable[[str, FunctionSpec], MultitoolFunction],
        environment: dict[str, str],
        own_key: Any,
    ) -> MultitoolFunction:
        """The Slack app (docs/slack.md): one function for its route and the turns it starts, with the
        orchestrator's grants for a turn, the review's for a confirm, its two secrets, and one more on
        the limits table: each Slack event id recorded once (a conditional PutItem), taken back (a
        DeleteItem) when its turn could not start."""
        self.slack_secrets = SlackSecrets(self, "SlackSecrets", encryption_key=own_key)
        fn = function(
            "Slack",
            FunctionSpec(
                "slack",
                "POST /slack/events: Slack's events and interactions, and the turns they start",
                timeout_seconds=SLACK_TIMEOUT_SECONDS,
                environment={
                    **environment,
                    **self.slack_secrets.environment(),
                    "PAGE_URL": self.web.url,
                },
                memory_mb=self.settings.orchestrator_memory,
            ),
        )
        self._grant_chat(fn, "SlackSelfInvoke")
        self._grant_review(fn.role)
        self._grant(LIMITS, fn.role, *SLACK_EVENT_ACTIONS)
        self.slack_secrets.grant_read(fn.role)
        add_slack_route(self.api.http_api, fn.function)
        return fn

    def _run_turns_past_the_request(self, fn: MultitoolFunction, policy_id: str) -> None:
        """The function may invoke itself, asynchronously, and nothing else; a turn is never retried.

        A policy of its own, not the role's default one: the function waits for its default policy, so a
        statement naming the function there would make each wait for the other.
        """
        function = fn.function
        iam.Policy(
            self,
            policy_id,
            roles=[fn.role],
            statements=[
                iam.PolicyStatement(actions=["lambda:InvokeFunction"], resources=[function.function_arn])
            ],
        )
        function.configure_async_invoke(
            retry_attempts=0,
            max_event_age=cdk.Duration.seconds(TURN_EVENT_MAX_AGE_SECONDS),
            on_failure=self.turn_failures.destination,
        )

    def _table(self, spec: TableSpec) -> dynamodb.Table:
        return self.tables[spec]

    def _grant(self, spec: TableSpec, grantee: iam.IGrantable, *actions: str) -> None:
        """``actions`` on the table itself. ``Table.grant`` would add ``<table>/index/*`` for a table
        with an index; nothing here reads an index (only ``multitool erase``, with its own credentials)."""
        iam.Grant.add_to_principal(
            grantee=grantee, actions=list(actions), resource_arns=[self._table(spec).table_arn]
        )

    def _grant_tools(self, grantee: iam.IGrantable) -> None:
        """What running a tool needs: read people and busy times, write a draft."""
        self._grant(DRAFTS, grantee, *DRAFT_WRITE_ACTIONS)
        self._grant(DIRECTORY, grantee, *TOOL_READ_ACTIONS)
        self._grant(BOOKINGS, grantee, *TOOL_READ_ACTIONS)
        if not self.suite.uses_provider:
            self._grant(MAILBOX, grantee, *MAILBOX_READ_ACTIONS)
        self.suite.grant_token_source(grantee)

    def _page_config(self) -> dict[str, Any]:
        """The page's config.json, every value from this stack (resolved when the deploy runs)."""
        config: dict[str, Any] = {
            "apiBase": self.api.endpoint,
            "auth": "bearer",
            "region": self.region,
            "userPoolId": self.users.user_pool.user_pool_id,
            "clientId": self.users.client.user_pool_client_id,
            # Each project with its issue types: the page offers what the tools accept.
            "jiraProjects": page_projects(self.settings.jira_projects),
        }
        if self.users.sign_in_origin:
            # Managed login: the page signs in with the authorization code and PKCE (web/auth.js).
            config |= {
                "auth": "oidc",
                "signInDomain": self.users.sign_in_origin,
                "scope": "openid email profile",
            }
        if self.identity is not None:
            config["connections"] = True  # the page lists the user's own accounts (GET /connections)
        return config

    def _outputs(self) -> None:
        """Outputs sit at stack level so their logical ids are exactly these names."""
        cdk.CfnOutput(self, "WebUrl", value=self.web.url, description="The chat page: open it and sign in")
        cdk.CfnOutput(self, "ApiUrl", value=self.api.url, description="HTTP API base URL")
        cdk.CfnOutput(
            self,
            "AlarmTopicArn",
            value=self.operations.topic.topic_arn,
            description="Every alarm notifies it",
        )
        cdk.CfnOutput(
            self,
            "DashboardName",
            value=self.operations.dashboard.dashboard_name,
            description="The CloudWatch dashboard",
        )
        cdk.CfnOutput(
            self,
            "FailedTurnsQueueUrl",
            value=self.turn_failures.queue.queue_url,
            description="Records of failed turn invocations (docs/deploy.md, Operate)",
        )
        if self.undo_queue is not None:
            cdk.CfnOutput(
                self,
                "UndoDeadLettersQueueUrl",
                value=self.undo_queue.dead_letters.queue_url,
                description="Due sends of confirmed mail that kept failing (docs/deploy.md, Operate)",
            )
        cdk.CfnOutput(self, "UserPoolId", value=self.users.user_pool.user_pool_id)
        cdk.CfnOutput(self, "UserPoolClientId", value=self.users.client.user_pool_client_id)
        if self.users.sign_in_origin:
            cdk.CfnOutput(self, "SignInDomain", value=self.users.sign_in_origin, description="Managed login")
        if self.users.cli_client is not None:
            client_id = self.users.cli_client.user_pool_client_id
            cdk.CfnOutput(self, "CliClientId", value=client_id, description="multitool login's app client")
        if self.agent is not None:
            cdk.CfnOutput(self, "AgentId", value=self.agent.agent_id)
            cdk.CfnOutput(self, "AgentAliasId", value=self.agent.alias_id)
        if self.harness is not None:
            cdk.CfnOutput(self, "HarnessArn", value=self.harness.harness_arn, description="AgentCore harness")
        if self.gateway is not None:
            cdk.CfnOutput(self, "GatewayArn", value=self.gateway.gateway_arn, description="AgentCore Gateway")
            cdk.CfnOutput(
                self, "GatewayUrl", value=self.gateway.gateway.gateway_url or "", description="MCP URL"
            )
        if self.user_gateway is not None:
            cdk.CfnOutput(self, "McpUrl", value=self.user_gateway.url, description="MCP URL for MCP clients")
            cdk.CfnOutput(
                self,
                "McpClientId",
                value=self.user_gateway.client.user_pool_client_id,
                description="MCP app client",
            )
            cdk.CfnOutput(self, "McpScope", value=MCP_SCOPE, description="The scope MCP clients ask for")
        if self.jira is not None:
            cdk.CfnOutput(self, "JiraSecretArn", value=self.jira.secret.secret_arn)
        if self.slack is not None:
            cdk.CfnOutput(
                self,
                "SlackRequestUrl",
                value=f"{self.api.endpoint}{SLACK_ROUTE}",
                description="The Slack app's request URL for events and interactivity (slack/manifest.yaml)",
            )
            cdk.CfnOutput(self, "SlackBotTokenSecretArn", value=self.slack_secrets.bot_token.secret_arn)
            cdk.CfnOutput(self, "SlackSigningSecretArn", value=self.slack_secrets.signing_secret.secret_arn)
        if self.jira_reader is not None:
            cdk.CfnOutput(self, "JiraReaderSecretArn", value=self.jira_reader.secret.secret_arn)
        if self.suite.secret is not None:
            cdk.CfnOutput(self, "Microsoft365CredentialArn", value=self.suite.secret.secret_arn)
        if self.identity is not None and self.identity.client_secret is not None:
            # a calendar provider comes with its secret
            self._app_outputs(
                "Identity",
                self.identity.callback_url,
                "Register this redirect URI in the provider's app (docs/deploy.md)",
                self.identity.client_secret,
                'Put the app\'s client secret here as {"clientSecret": ...}',
            )
        if self.identity is not None and self.identity.jira_client_secret is not None:
            self._app_outputs(
                "Jira",
                self.identity.jira_callback_url,
                "Register this callback URL in the Atlassian app (docs/deploy.md)",
                self.identity.jira_client_secret,
                'Put the Atlassian app\'s secret here as {"clientSecret": ...}',
            )
        if self.suite.delegation_key is not None:
            cdk.CfnOutput(
                self,
                "GoogleDelegationKeyArn",
                value=self.suite.delegation_key.key_arn,
                description="The certificate for Google is built with this key: docs/deploy.md",
            )
        for spec, table in self.tables.by_spec.items():
            cdk.CfnOutput(self, f"{spec.logical_name}TableName", value=table.table_name)

    def _app_outputs(
        self,
        name: str,
        callback_url: str | None,
        register: str,
        secret: secretsmanager.ISecret,
        put: str,
    ) -> None:
        """What an administrator needs to register an OAuth app for the users' own accounts: the
        callback URL to register (``<name>CallbackUrl``) and the secret its client secret goes in
        (``<name>ClientSecretArn``); a provider with a client secret always has its callback."""
        assert callback_url is not None
        cdk.CfnOutput(self, f"{name}CallbackUrl", value=callback_url, description=register)
        cdk.CfnOutput(self, f"{name}ClientSecretArn", value=secret.secret_arn, description=put)


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
