"""Bedrock action group: email replies (POST /email-replies)."""
