"""Local development: the ``multitool`` command (:mod:`multitool.local.cli`, one module per command in
:mod:`multitool.local.commands`), in wings: the sandbox (:mod:`multitool.local.sandbox`: embedded
AWS, the local server), the stand-ins (:mod:`multitool.local.standins`), the MCP server
(:mod:`multitool.local.mcp`), ``doctor``, ``evaluation``, and what the command line does to a
deployed stack (:mod:`multitool.local.deployed`).

Never shipped in a Lambda asset (the stack excludes this package from the layer). The top of the
layers: it may import any of the layer, and nothing in the layer imports it.
"""
