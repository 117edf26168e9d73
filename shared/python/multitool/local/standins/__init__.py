"""The local stand-ins of the services the deployment talks to, each on loopback in the service's own wire.

Microsoft Graph (:mod:`.graph_server`, held to Graph's OpenAPI description by :mod:`.graph_contract`),
Google Workspace (:mod:`.google_server`, held to Google's discovery documents), Jira Cloud
(:mod:`.jira_server`), AgentCore Identity (:mod:`.identity`, :mod:`.identity_endpoint`), InvokeHarness
(:mod:`.harness_endpoint`) and an OIDC provider (:mod:`.oidc`, its pages in :mod:`.sign_in_page`). Each
is a :class:`~.stand_in.StandInServer`: bound to loopback, started and stopped the same way.
"""
