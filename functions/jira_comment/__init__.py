"""Bedrock action group: comments on existing Jira issues (POST /jira-comments)."""
