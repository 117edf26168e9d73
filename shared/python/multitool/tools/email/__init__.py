"""The email tool: its arguments, payload, ``prepare``, card and spec (:mod:`.email_draft`, named
after its action group) and its confirm (:mod:`.confirm`, which only a confirm imports).

Loaded through the registry only (``REGISTRY.declare`` in :mod:`multitool.tools`); imports nothing
itself, so loading the confirm loads no more than it needs.
"""
