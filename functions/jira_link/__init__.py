"""Bedrock action group: Jira issue links (POST /jira-links)."""
