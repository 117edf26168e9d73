"""Whether a peer is this machine: the local servers answer some requests only to it.

Its own module, below every server that asks (the gateway, the invocations endpoint, the CLI's
callback), so none of them imports another for it.
"""

from __future__ import annotations

import ipaddress


def is_loopback(address: str) -> bool:
    """Whether a peer address is this machine (127.0.0.0/8, ::1, or IPv4-mapped loopback)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))
