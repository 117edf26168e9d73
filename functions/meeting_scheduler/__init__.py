"""Bedrock action group: meeting proposals (POST /meeting-proposals)."""
