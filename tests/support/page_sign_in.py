"""The page's own sign-in at the local OIDC stand-in (``multitool serve``), as the page does it: the
authorization code flow with PKCE, the stand-in's sign-in form posted back with its hidden fields."""

from __future__ import annotations

import base64
import hashlib
import html
import re
import secrets
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
from multitool.local.standins.oidc import CLIENT_ID


def hidden_fields(form: str) -> dict[str, str]:
    """The hidden inputs of the stand-in's sign-in form, which its POST must carry back."""
    return {
        name: html.unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form)
    }


def page_id_token(page: str, user: str) -> str:
    """An ID token of the page's own sign-in (its client, its callback) as ``user``, as the page gets one."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    params = {
        "client_id": CLIENT_ID,
        "redirect_uri": page,
        "response_type": "code",
        "scope": "openid email profile",
        "state": "s",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    base = page.rstrip("/")
    with httpx.Client() as browser:
        form = browser.get(f"{base}/oauth2/authorize?{urlencode(params)}")
        answer = browser.post(f"{base}/oauth2/authorize", data={**hidden_fields(form.text), "username": user})
        code = dict(parse_qsl(urlsplit(answer.headers["location"]).query))["code"]
        tokens = browser.post(
            f"{base}/oauth2/token",
            data={
                "grant_type": "authorization_code",
                "client_id": CLIENT_ID,
                "code": code,
                "redirect_uri": page,
                "code_verifier": verifier,
            },
        ).json()
    return str(tokens["id_token"])
