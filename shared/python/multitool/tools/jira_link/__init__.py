"""The link tool on existing Jira issues: its spec (:mod:`.jira_link`, named after its action
group) and its confirm (:mod:`.confirm`, which only a confirm imports).

Loaded through the registry only (``REGISTRY.declare`` in :mod:`multitool.tools`); imports nothing itself.
"""
