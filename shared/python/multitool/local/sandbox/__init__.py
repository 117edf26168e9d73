"""The local sandbox: embedded AWS (moto in a child process), the local HTTP server and its API
Gateway, Lambda, asynchronous invoke and SQS event source emulation, the data dir, the outbox, the
in-memory ports, and the demo's seed.
"""
