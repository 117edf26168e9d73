"""Whether a peer, or the name a request was sent to, is this machine: the local servers answer some
requests only to it.

Its own module, below every server that asks (the gateway, the invocations endpoint, the moto child, the
CLI's callback), so none of them imports another for it.
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
