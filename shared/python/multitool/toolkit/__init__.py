"""The tool contract: what a tool is built from, below the tools, the cards and the review.

- :mod:`multitool.toolkit.context`: who asks (``ToolContext``), the deployment's choices
  (``ToolConfig``), the ports a tool may read (``ToolPorts``), the input limits;
- :mod:`multitool.toolkit.errors`: the one error model of a tool call and of a tool's confirm;
- :mod:`multitool.toolkit.common`: what the tools' arguments and ``prepare`` share (name fields,
  ``Prepared``, recipients, look-alike addresses);
- :mod:`multitool.toolkit.cards`: the card spec (a card model, its fingerprint and caption), and
  :mod:`multitool.toolkit.connect`, the consent card a call answers when an account is not connected;
- :mod:`multitool.toolkit.confirm`: the confirm contract (``ActionReview``, the caller, the
  confirm's context and config, edited addresses);
- :mod:`multitool.toolkit.spec`: ``ToolSpec``, everything specific to one tool;
- :mod:`multitool.toolkit.registry` and :mod:`multitool.toolkit.model_specs`: every tool by name,
  action and action group, found through the committed index without importing every tool.

Nothing here imports a tool, a card mapper or the reviewer: each of them imports this.
"""
