"""HTTP APIs served by the orchestrator and review Lambdas (Powertools resolvers).

The resolvers live in the layer so the deployed handlers, the local server and
the tests all serve the same app.
"""
