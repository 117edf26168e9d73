"""The Jira tool: its arguments, payload, ``prepare``, card and spec (:mod:`.jira_draft`, named
after its action group) and its confirm (:mod:`.confirm`, which only a confirm imports); and what
the tools on existing issues share (packages of their own: ``jira_comment``, ``jira_transition``,
``jira_update``, ``jira_link``): the issue finder (:mod:`.find`), the card's words and the matching
of a status or link type (:mod:`.existing`), and their confirms' common part (:mod:`.confirming`).

Loaded through the registry only (``REGISTRY.declare`` in :mod:`multitool.tools`); imports nothing
itself, so loading the confirm loads no more than it needs.
"""
