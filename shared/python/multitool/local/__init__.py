"""Local development: the ``multitool`` command (:mod:`multitool.local.cli`, one module per command in
:mod:`multitool.local.commands`), embedded AWS (moto), sandboxes, and the local server.

Never shipped in a Lambda asset (the stack excludes this package from the layer). The top of the
layers: it may import any of the layer, and nothing in the layer imports it.
"""
