"""AgentCore's adapters: the user's own tokens from AgentCore Identity's vault, and the signed caller
the user Gateway's request interceptor passes to its Lambda targets.
"""
