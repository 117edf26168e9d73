"""``multitool mcp``: every tool as an MCP server (the local AgentCore Gateway), and its OAuth 2.1
resource-server side.
"""
