"""Every tool's function (Bedrock action group and AgentCore Gateway target): one handler."""
