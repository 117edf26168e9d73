"""AgentCore Identity on loopback: :class:`~.identity.LocalIdentity` behind the service's
own wire, and the provider's consent page in front of it: ``multitool serve --consent``.

``AWS_ENDPOINT_URL_BEDROCK_AGENTCORE`` points the functions' ``bedrock-agentcore`` clients here, so the
deployed code path runs as it is (:class:`multitool.ports.agentcore.tokens.AgentCoreTokens` and
:class:`multitool.review.accounts.Accounts` over a real boto3 client: its botocore loads the service
model, signs, serializes the request and parses the answer) while the answers come from the stand-in.
The wire is read from botocore's operation models, not written down here: each identity operation is
``POST <its requestUri>`` with every input member in the JSON body (the model places none in a header
or the query), its output as JSON; a refusal is a rest-json error (``x-amzn-ErrorType``,
``{"message", ...}``), which botocore raises as the same ``ClientError`` the service's would be.

``GET /consent?request_uri=...`` plays the provider's authorization server: it names the user the
link was made for and what multitool may do, with Allow and Deny. Allow (``POST /consent``) goes on,
as AgentCore does after the provider, to the return URL with ``?session_id=``; Deny goes back with
OAuth's ``error=access_denied``. It is a development stand-in: it checks no signature and answers
this machine only, through :class:`multitool.local.standins.stand_in.StandInServer`: a ``Host`` naming this
machine, and no ``Origin`` but its own (the consent form posts from its own page; the functions'
boto3 clients send none), so a web page can neither answer a consent nor ask for a user's token.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

import botocore.session
from botocore.exceptions import ClientError, ParamValidationError

from multitool.local.standins.identity import LocalIdentity
from multitool.local.standins.stand_in import StandInHandler, StandInServer
from multitool.people import Person

CONSENT_PATH = "/consent"
IDENTITY_OPERATIONS = (
    "GetWorkloadAccessTokenForJWT",
    "GetWorkloadAccessTokenForUserId",
    "GetResourceOauth2Token",
    "CompleteResourceTokenAuth",
)
_FORM_BYTES = 8 * 1024


def operation_paths() -> dict[str, str]:
    """Each identity operation's request path, as botocore's ``bedrock-agentcore`` model places it."""
    model = botocore.session.get_session().get_service_model("bedrock-agentcore")
    paths = {}
    for name in IDENTITY_OPERATIONS:
        operation = model.operation_model(name)
        assert operation.http["method"] == "POST"  # every identity operation is a POST of a JSON body
        paths[operation.http["requestUri"]] = name
    return paths


def _method_name(operation: str) -> str:
    """``GetWorkloadAccessTokenForJWT`` -> ``get_workload_access_token_for_jwt`` (botocore's client names)."""
    from botocore import xform_name

    return str(xform_name(operation))


class IdentityEndpoint(StandInServer):
    """The stand-in on ``host:port`` (0: any free port); ``url`` is its address, ``identity`` the state."""

    def __init__(
        self,
        *,
        workloads: dict[str, tuple[str, ...]],
        person: Callable[[str], Person | None],
        provider_name: str,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        super().__init__(_Handler, host, port, name="identity")
        self.identity = LocalIdentity(workloads=workloads, consent_base=f"{self.url}{CONSENT_PATH}")
        self.person = person
        self.provider_name = provider_name
        self.paths = operation_paths()


class _Handler(StandInHandler):
    server: IdentityEndpoint
    protocol_version = "HTTP/1.1"
    serves_pages = True  # the consent page, and the form it posts

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path != CONSENT_PATH:
            self._page(404, "Not found", "<p>No such page.</p>")
            return
        uri = parse_qs(parts.query).get("request_uri", [""])[-1]
        waiting = self.server.identity.pending_consent(uri)
        if waiting is None:
            self._page(
                400,
                "This consent link cannot be used",
                "<p>It is unknown, already answered or finished. Ask again from the chat for a new link.</p>",
            )
            return
        user, _provider = waiting
        person = self.server.person(user)
        who = f"{person.display_name} ({person.email})" if person else user
        name = html.escape(self.server.provider_name)
        self._page(
            200,
            f"{name}: multitool asks for access",
            "<p>Allow multitool to read your calendar and send mail as "
            f"<strong>{html.escape(who)}</strong>?</p>"
            f'<form method="post" action="{CONSENT_PATH}">'
            f'<input type="hidden" name="request_uri" value="{html.escape(uri)}">'
            '<button type="submit" name="decision" value="allow">Allow</button> '
            '<button type="submit" name="decision" value="deny">Deny</button>'
            "</form>",
            form_action=self._return_origin(uri),
        )

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        length = int(self.headers.get("Content-Length") or 0)
        if path == CONSENT_PATH:
            self._decide(self.rfile.read(min(length, _FORM_BYTES)))
            return
        operation = self.server.paths.get(path)
        if operation is None:
            self._error(404, "UnknownOperationException", "Only the identity operations are served here.")
            return
        try:
            params = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(params, dict):
                raise ValueError("The request body is not a JSON object.")
            answer = getattr(self.server.identity, _method_name(operation))(**params)
        except ValueError as error:  # includes a body that is not JSON
            self._error(400, "ValidationException", str(error))
            return
        except ParamValidationError as error:
            self._error(400, "ValidationException", " ".join(str(error).split()))
            return
        except ClientError as error:
            details = dict(error.response["Error"])
            status = int(error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 400))
            code, message = str(details.pop("Code")), str(details.pop("Message"))
            self._error(status, code, message, details)
            return
        self.send_json(200, answer)

    def _decide(self, body: bytes) -> None:
        form = parse_qs(body.decode("utf-8", "replace"))
        uri = form.get("request_uri", [""])[-1]
        decision = form.get("decision", [""])[-1]
        if decision not in ("allow", "deny") or self.server.identity.pending_consent(uri) is None:
            self._page(
                400,
                "This consent link cannot be used",
                "<p>It is unknown, already answered or finished. Ask again from the chat for a new link.</p>",
            )
            return
        identity = self.server.identity
        target = identity.consent(uri) if decision == "allow" else identity.deny(uri)
        self.send_json(303, None, {"Location": target})

    def _return_origin(self, uri: str) -> str:
        """The origin the form's answer redirects to: a CSP ``form-action`` covers redirects too."""
        try:
            after = urlsplit(self.server.identity.return_url_of(uri))
        except KeyError:
            return ""
        return f"{after.scheme}://{after.netloc}"

    def _page(self, status: int, title: str, content: str, *, form_action: str = "") -> None:
        page = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{title}</title></head><body><main><h1>{title}</h1>{content}"
            "<p><small>A local stand-in for the provider's consent page "
            "(multitool serve --consent).</small></p>"
            "</main></body></html>"
        )
        policy = f"default-src 'none'; frame-ancestors 'none'; form-action 'self' {form_action}".strip()
        # Its form posts with the page's own Origin, which the stand-in requires (not "null", as under
        # "no-referrer"); other sites get no referrer.
        headers = {
            "Content-Security-Policy": policy,
            "Cache-Control": "no-store",
            "Referrer-Policy": "same-origin",
        }
        self.send_body(status, page.encode(), "text/html; charset=utf-8", headers)

    def _error(self, status: int, code: str, message: str, extra: Mapping[str, Any] | None = None) -> None:
        self.send_json(status, {"message": message, **(extra or {})}, {"x-amzn-ErrorType": code})
