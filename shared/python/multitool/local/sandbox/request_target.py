"""A request's target as the local servers read it: origin-form (RFC 9112, section 3.2.1), the path and
then the query after the first ``?``.

Not :func:`urllib.parse.urlsplit`, which reads a URL: a target that starts with ``//`` would be an
authority to it (``//[x`` raises "Invalid IPv6 URL"), where a request line's target is only ever a
path. A fragment is never sent; one that arrives anyway is dropped, as a URL parser would.
"""

from __future__ import annotations


def origin_form(target: str) -> tuple[str, str]:
    """``(path, query)`` of a request target; the path is ``/`` when the target has none."""
    path, _, query = target.partition("#")[0].partition("?")
    return path or "/", query
