"""The AgentCore Identity values the connect-account chat and review tests share: one user's JWT, the
stack's workload and Microsoft 365 credential provider, and what AgentCore answers for them."""

from __future__ import annotations

JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEiLCJ0b2tlbl91c2UiOiJhY2Nlc3MifQ.c2lnbmVkLWJ5LWNvZ25pdG8"
WORKLOAD = "multitool-identity-a1b2c3"
PROVIDER_NAME = "multitool-microsoft365-a1b2c3-oauth"
RETURN_URL = "https://chat.example.com/"
WORKLOAD_TOKEN = "workload-access-token-for-user-1"
SESSION = "urn:ietf:params:oauth:request_uri:a1b2c3d4-calendar-consent"
AUTH_URL = (
    "https://bedrock-agentcore.us-east-1.amazonaws.com/identities/oauth2/authorize?request_uri=a1b2c3d4"
)
ALEX = "alex.mueller@example.com"
