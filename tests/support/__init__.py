"""Helpers the tests and benchmarks share: events in the wire shape, stream builders, a local server."""
