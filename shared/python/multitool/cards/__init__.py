"""Cards: what a tool's payload becomes on the page.

:mod:`.base` is the card contract every tool's card extends (a base type: it imports only the
layer's base types); :mod:`.client_actions` maps a payload's action string to its typed card
through the tool registry. May import the base types, ports, and the tools; never the review, the
runtimes or the chat path.
"""
