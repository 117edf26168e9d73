"""The local stand-ins of the services the deployment talks to, each on loopback in the service's own wire.

Microsoft Graph (:mod:`.graph_server`, held to Graph's OpenAPI description by :mod:`.graph_contract`),
Google Workspace (:mod:`.google_server`, held to Google's discovery documents), Jira Cloud
(:mod:`.jira_server`), Slack (:mod:`.slack_server`: its workspace :mod:`.slack_workspace` held to
Slack's OpenAPI description by :mod:`.slack_contract` and to Block Kit by :mod:`.slack_blocks`, what it
sends the app signed by :mod:`.slack_delivery`, its pages :mod:`.slack_page`), AgentCore Identity
(:mod:`.identity`, :mod:`.identity_endpoint`), InvokeHarness (:mod:`.harness_endpoint`) and an OIDC
provider (:mod:`.oidc`, its pages in :mod:`.sign_in_page`, served by the local server). Each server is a
:class:`~.stand_in.StandInServer`, bound to loopback, and each stand-in starts and stops the one way,
:class:`~.stand_in.Lifecycle` (``start()``, ``stop()``, ``url``, ``with``).
"""
