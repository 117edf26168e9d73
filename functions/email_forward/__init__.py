"""Bedrock action group: email forwards (POST /email-forwards)."""
