"""Bedrock action group: email drafts (POST /email-drafts)."""
