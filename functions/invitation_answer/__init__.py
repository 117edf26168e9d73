"""Bedrock action group: invitation answers (POST /invitation-answers)."""
