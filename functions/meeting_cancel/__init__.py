"""Bedrock action group: meeting cancellations (POST /meeting-cancellations)."""
