"""A local stand-in for AgentCore Identity's user-federation operations, in botocore's shapes.

As :class:`multitool.runtimes.offline_harness.OfflineHarness` stands in for ``InvokeHarness``, this
answers ``get_workload_access_token_for_jwt``, ``get_resource_oauth2_token`` and
``complete_resource_token_auth`` the way a ``bedrock-agentcore`` client does: every request is
validated against botocore's input shape (a bad one raises ``ParamValidationError``), every refusal
is a ``ClientError`` in the service's error shape, and the consent runs the same three legs:

1. ``get_resource_oauth2_token`` without a token in the vault answers an ``authorizationUrl`` (the
   stand-in's consent page, ``consent_base`` + ``?request_uri=<sessionUri>``) and the ``sessionUri``;
2. :meth:`LocalIdentity.consent` plays the provider and AgentCore after the user agreed: the session
   is consented, and the browser goes on to the return URL with ``?session_id=<sessionUri>``;
   :meth:`LocalIdentity.deny` after the user declined: the session failed (``sessionStatus=FAILED``
   when it is sent again), and the browser goes back with OAuth's ``error=access_denied``;
3. ``complete_resource_token_auth`` with the token (``userToken``) or the id (``userId``) of the user
   who started the session stores the provider token in the vault; with any other user's it is
   ``AccessDeniedException``.

``get_workload_access_token_for_user_id`` names the user by id (the Slack function's vault user,
:func:`multitool.ports.agentcore.tokens.slack_vault_user`); otherwise the user is the JWT's ``sub``
(read, not verified: the local JWT authorizer verified it already).
Tokens are made up (``local-<provider>-<sub>``): the local provider stand-ins accept them.
"""

from __future__ import annotations

import base64
import json
import threading
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import botocore.session
from botocore.exceptions import ClientError
from botocore.validate import validate_parameters

_MODEL = botocore.session.get_session().get_service_model("bedrock-agentcore")


def _validated(operation: str, params: dict[str, Any]) -> None:
    shape = _MODEL.operation_model(operation).input_shape
    assert shape is not None  # every identity operation takes input
    validate_parameters(params, shape)


def _error(operation: str, code: str, message: str, status: int, **extra: Any) -> ClientError:
    error: dict[str, Any] = {"Code": code, "Message": message, **extra}
    response: Any = {"Error": error, "ResponseMetadata": {"HTTPStatusCode": status}}
    return ClientError(response, operation)


def _sub(user_token: str) -> str | None:
    try:
        payload = user_token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return None
    sub = claims.get("sub") if isinstance(claims, dict) else None
    return sub if isinstance(sub, str) and sub else None


def _with_query(url: str, params: dict[str, str]) -> str:
    return f"{url}{'&' if '?' in url else '?'}{urlencode(params)}"


@dataclass
class _Session:
    workload: str
    user: str
    provider: str
    return_url: str
    consented: bool = False
    completed: bool = False
    failed: bool = False


class LocalIdentity:
    def __init__(self, *, workloads: dict[str, tuple[str, ...]], consent_base: str) -> None:
        """``workloads``: each workload name with the return URLs it allows; ``consent_base``: the URL of
        the stand-in's consent page (the provider's authorization server, locally)."""
        self._workloads = workloads
        self._consent_base = consent_base
        self._tokens: dict[str, tuple[str, str]] = {}  # workload access token -> (workload, user)
        self._sessions: dict[str, _Session] = {}
        self._vault: dict[tuple[str, str, str], str] = {}  # (workload, user, provider) -> provider token
        self._lock = threading.Lock()

    def get_workload_access_token_for_jwt(self, **params: Any) -> dict[str, Any]:
        operation = "GetWorkloadAccessTokenForJWT"
        _validated(operation, params)
        if params["workloadName"] not in self._workloads:
            raise _error(operation, "ResourceNotFoundException", "No such workload identity.", 404)
        user = _sub(params["userToken"])
        if user is None:
            raise _error(operation, "UnauthorizedException", "The user token is not a JWT with a sub.", 401)
        token = f"wat-{uuid.uuid4().hex}"
        with self._lock:
            self._tokens[token] = (params["workloadName"], user)
        return {"workloadAccessToken": token}

    def get_workload_access_token_for_user_id(self, **params: Any) -> dict[str, Any]:
        """A workload token for a user named by id (the Slack function's: no JWT reaches it). The service
        trusts the caller's IAM for the id; the stand-in takes it as given."""
        operation = "GetWorkloadAccessTokenForUserId"
        _validated(operation, params)
        if params["workloadName"] not in self._workloads:
            raise _error(operation, "ResourceNotFoundException", "No such workload identity.", 404)
        token = f"wat-{uuid.uuid4().hex}"
        with self._lock:
            self._tokens[token] = (params["workloadName"], params["userId"])
        return {"workloadAccessToken": token}

    def get_resource_oauth2_token(self, **params: Any) -> dict[str, Any]:
        operation = "GetResourceOauth2Token"
        _validated(operation, params)
        with self._lock:
            found = self._tokens.get(params["workloadIdentityToken"])
            if found is None:
                raise _error(
                    operation, "UnauthorizedException", "The workload access token is not valid.", 401
                )
            workload, user = found
            provider = params["resourceCredentialProviderName"]
            return_url = params.get("resourceOauth2ReturnUrl", "")
            if return_url not in self._workloads[workload]:
                raise _error(
                    operation,
                    "ValidationException",
                    "The return URL is not allowed.",
                    400,
                    reason="FieldValidationFailed",
                )
            key = (workload, user, provider)
            uri = params.get("sessionUri")
            if uri is not None:
                session = self._sessions.get(uri)
                if session is None or session.user != user:
                    raise _error(
                        operation,
                        "ValidationException",
                        "No such session.",
                        400,
                        reason="FieldValidationFailed",
                    )
                if session.completed:
                    return {"accessToken": self._vault[key]}
                if session.failed:
                    return {"sessionUri": uri, "sessionStatus": "FAILED"}
                if not session.consented:
                    return {"sessionUri": uri, "sessionStatus": "IN_PROGRESS"}
            if key in self._vault and not params.get("forceAuthentication"):
                return {"accessToken": self._vault[key]}
            uri = f"urn:ietf:params:oauth:request_uri:{uuid.uuid4().hex}"
            self._sessions[uri] = _Session(workload, user, provider, return_url)
        return {
            "authorizationUrl": f"{self._consent_base}?{urlencode({'request_uri': uri})}",
            "sessionUri": uri,
            "sessionStatus": "IN_PROGRESS",
        }

    def pending_consent(self, session_uri: str) -> tuple[str, str] | None:
        """Who a consent link waiting for an answer was made for and the provider: ``(sub, provider)``,
        or None for a link unknown, already answered or finished."""
        with self._lock:
            session = self._sessions.get(session_uri)
            if session is None or session.consented or session.failed or session.completed:
                return None
            return session.user, session.provider

    def return_url_of(self, session_uri: str) -> str:
        """The return URL the consent of ``session_uri`` goes back to (``KeyError`` for no such session)."""
        with self._lock:
            return self._sessions[session_uri].return_url

    def consent(self, session_uri: str) -> str:
        """The user agreed at the provider: where the browser goes next (the return URL, with the session)."""
        with self._lock:
            session = self._sessions.get(session_uri)
            if session is None:
                raise KeyError(session_uri)
            session.consented = True
            return _with_query(session.return_url, {"session_id": session_uri})

    def deny(self, session_uri: str) -> str:
        """The user declined at the provider: the session failed, and the browser goes back with
        OAuth's error response (RFC 6749 section 4.1.2.1: ``error=access_denied``)."""
        with self._lock:
            session = self._sessions.get(session_uri)
            if session is None:
                raise KeyError(session_uri)
            session.failed = True
            return _with_query(
                session.return_url,
                {"error": "access_denied", "error_description": "The user declined the consent."},
            )

    def complete_resource_token_auth(self, **params: Any) -> dict[str, Any]:
        operation = "CompleteResourceTokenAuth"
        _validated(operation, params)
        identifier = params["userIdentifier"]
        user = _sub(identifier["userToken"]) if "userToken" in identifier else identifier.get("userId")
        with self._lock:
            session = self._sessions.get(params["sessionUri"])
            if session is None or not session.consented:
                raise _error(
                    operation,
                    "ValidationException",
                    "No consented session.",
                    400,
                    reason="FieldValidationFailed",
                )
            if session.user != user:
                raise _error(operation, "AccessDeniedException", "The session belongs to another user.", 403)
            session.completed = True
            self._vault[(session.workload, session.user, session.provider)] = (
                f"local-{session.provider}-{session.user}"
            )
        return {}
