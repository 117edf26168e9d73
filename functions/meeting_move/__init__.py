"""Bedrock action group: meeting moves (POST /meeting-moves)."""
