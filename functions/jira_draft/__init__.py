"""Bedrock action group: Jira ticket drafts (POST /jira-ticket-drafts)."""
