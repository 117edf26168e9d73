"""Bedrock action group: Jira issue updates (POST /jira-updates)."""
