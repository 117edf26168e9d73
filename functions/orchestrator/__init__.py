"""HTTP API: POST /chat."""
