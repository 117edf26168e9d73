"""Ports: the small interfaces domain code takes as arguments.

The contracts are the flat modules, each an interface (a ``Protocol``) and, where it is small,
its AWS adapter beside it; a provider's adapters are its wing (``microsoft365``, ``google``,
``atlassian``, ``agentcore``, ``aws``); every provider client sends through :mod:`multitool.ports.retry`.
Adapters take their clients as arguments and never read the environment.
"""
