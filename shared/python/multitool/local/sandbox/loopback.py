"""Whether a peer, or the name a request was sent to, is this machine: the local servers answer some
requests only to it.

Its own module, below every server that asks (the local server, the stand-ins, the invocations endpoint,
the moto child, the CLI's callback), so none of them imports another for it.

Every local server runs one check on every request, :func:`refusal`: a web page the developer visits
must not drive them. A page on another site reaches them in two ways. DNS rebinding: the page's own
name is made to resolve to 127.0.0.1, so its requests are same-origin to it (any header, any answer
read) but carry its own name in ``Host``; hence the ``Host`` must name this machine. A cross-origin
request (a form, a ``fetch`` or an image to ``http://127.0.0.1:<port>``): its answer cannot be read
without CORS, which no local server grants, but a "simple" request (a form POST, a ``text/plain``
fetch) is sent without a preflight and acts; a browser puts an ``Origin`` on every such request (the
Fetch standard, "append a request `Origin` header": every request whose method is neither GET nor HEAD,
and every CORS-mode one), hence an ``Origin`` must be the server's own. A top-level navigation
(opening a link, a redirect) sends no ``Origin`` on GET, so the pages people open still open.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from urllib.parse import urlsplit


def is_loopback(address: str) -> bool:
    """Whether a peer address is this machine (127.0.0.0/8, ::1, or IPv4-mapped loopback)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))


def host_name(host_header: str | None) -> str | None:
    """The name a ``Host`` header (or an ``Origin``'s authority) gives, lower-case, without its port
    and trailing dot; None when there is none or it does not parse."""
    if not host_header:
        return None
    try:
        host = urlsplit(f"//{host_header.strip()}").hostname
    except ValueError:  # a port that is not a number, an unclosed IPv6 bracket
        return None
    return host.rstrip(".").lower() if host else None


def names_loopback(host_header: str | None) -> bool:
    """Whether a request's ``Host`` names this machine: ``localhost`` (RFC 6761: it resolves to
    loopback only) or a loopback address. A page whose own name is made to resolve to 127.0.0.1 (DNS
    rebinding) sends that name, so a server that checks this never answers it."""
    host = host_name(host_header)
    if host is None:
        return False
    return host == "localhost" or host.endswith(".localhost") or is_loopback(host)


def new_secret() -> str:
    """A per-process secret for a loopback helper's URL (256 random bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def under_secret(path: str, secret: str) -> str | None:
    """``path`` without its leading ``/<secret>`` segment; None when it does not start with that segment.

    The local helpers (moto, Lambda's Invoke) are reached at ``http://127.0.0.1:<port>/<secret>``: the
    server's own boto3 clients have that URL as their endpoint (``AWS_ENDPOINT_URL_*``) and botocore
    puts an endpoint's path before every operation's own (``botocore.utils._urljoin``), so every
    request they make carries it, while a page on another site, which cannot read it, never does.
    """
    first, slash, rest = path.lstrip("/").partition("/")
    given = first.encode()
    if not path.startswith("/") or not hmac.compare_digest(given, secret.encode()):
        return None
    return slash + rest if slash else "/"


FOREIGN_HOST = 421
"""Misdirected Request (RFC 9110 15.5.20): the ``Host`` names another server (DNS rebinding)."""
FOREIGN_ORIGIN = 403
"""Forbidden: the request comes from a page of another origin."""


def same_origin(origin: str, host_header: str | None) -> bool:
    """Whether an ``Origin`` is the origin of the server the request was sent to: ``http://`` and the
    request's own ``Host`` (a page this server served, posting back to it)."""
    return bool(host_header) and origin.strip().lower() == f"http://{(host_header or '').strip().lower()}"


def refusal(
    host_header: str | None,
    origin: str | None,
    *,
    pages: bool,
    bound_host: str = "",
) -> tuple[int, str] | None:
    """Why a local server refuses a request, as ``(status, message)``; None when it answers it.

    The ``Host`` must name this machine (:func:`names_loopback`) or ``bound_host``, the address the
    server listens on when that is not loopback (``multitool serve --host``). With ``pages`` (the
    server serves pages a person opens and posts from: the chat page, a sign-in or consent form) an
    ``Origin`` must be the server's own; without (a server for programs: boto3, the provider clients,
    which send none) any ``Origin`` is refused. ``Origin: null`` (an opaque origin: a sandboxed frame,
    a ``data:`` page, or a form posted under ``Referrer-Policy: no-referrer``) is never this server's.
    """
    host = host_name(host_header)
    if host is None or not (names_loopback(host_header) or (bound_host and host == bound_host.lower())):
        return FOREIGN_HOST, (
            "Misdirected Request: this server answers only localhost, a loopback address or the address "
            "it was started on (the Host header)"
        )
    if origin is not None and not (pages and same_origin(origin, host_header)):
        return (
            FOREIGN_ORIGIN,
            "Forbidden: this server answers its own pages and programs only (the Origin header)",
        )
    return None
