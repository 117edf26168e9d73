"""Jira Cloud's adapters: the organization's account (an API token in Secrets Manager), the user's
own (Atlassian OAuth 2.0 through AgentCore Identity), and the requests on existing issues both make.
"""
