"""Importing a function's handler in a fresh interpreter as its Lambda does: a tool's function runs
``functions/tool/handler.py`` with the ``TOOL_MODULE`` the stack sets on it."""

from __future__ import annotations


def handler_import(function: str) -> tuple[str, dict[str, str]]:
    """The statement that imports ``function``'s handler (a tool's: its action group) and the
    environment that statement needs."""
    from multitool.tools import REGISTRY

    module = REGISTRY.module(function)
    if module is None:
        return f"import functions.{function}.handler", {}
    return "import functions.tool.handler", {"TOOL_MODULE": module}
