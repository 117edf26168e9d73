"""Local development: embedded AWS (moto), sandboxes, and the local server.

Never shipped in a Lambda asset (the stack excludes this package from the layer).
"""
