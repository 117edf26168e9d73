"""Bedrock action group: Jira issue transitions (POST /jira-transitions)."""
