"""HTTP API: review of drafts (GET /actions/{id}, confirm, discard)."""
