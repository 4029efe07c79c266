"""An OpenID Connect issuer for tests: keys made in the test, a discovery document, JWKS and
the authorization-code flow with PKCE, served by uvicorn on loopback.

It signs in whoever ``sign_in_as`` names without asking, and checks what a real issuer
checks at the token endpoint: the code once, the redirect URI, the client and the PKCE
verifier.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from joserfc import jwt
from joserfc.jwk import RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arm_core.testing import serving
from arm_ka_devstack.processes import free_port

CLIENT_ID = "arm-ka"
CLIENT_SECRET = "client-secret-for-tests"  # noqa: S105 (the test issuer's own client)


@dataclass
class _Grant:
    claims: dict[str, Any]
    redirect_uri: str
    challenge: str
    nonce: str | None


@dataclass
class LocalIssuer:
    url: str
    keys: list[RSAKey] = field(default_factory=list)
    # The claims the next sign-in gets (beyond iss, aud, exp and the like).
    sign_in_as: dict[str, Any] = field(default_factory=dict)
    grants: dict[str, _Grant] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    down: bool = False
    # What the discovery document says the issuer is (a misconfigured or hostile one lies).
    claims_to_be: str | None = None

    def core_settings(self) -> dict[str, Any]:
        """What a core under test needs to take this issuer's sign-ins and tokens: it is
        served on plain HTTP, so its session cookie cannot be Secure."""
        return {
            "debug": False,
            "oidc_issuer": self.url,
            "oidc_client_id": CLIENT_ID,
            "oidc_client_secret": CLIENT_SECRET,
            "session_cookie_secure": False,
        }

    def rotate(self) -> RSAKey:
        """A new signing key, published beside the old ones."""
        key = RSAKey.generate_key(2048, parameters={"kid": secrets.token_hex(8), "use": "sig"})
        self.keys.append(key)
        return key

    def token(
        self,
        claims: dict[str, Any] | None = None,
        *,
        key: RSAKey | None = None,
        header: dict[str, Any] | None = None,
        lifetime: int = 300,
    ) -> str:
        """A token signed with ``key`` (the newest published one by default); ``claims``
        override the standard ones (a value of None drops the claim)."""
        key = key or self.keys[-1]
        now = int(time.time())
        body: dict[str, Any] = {
            "iss": self.url,
            "aud": CLIENT_ID,
            "sub": "user-1",
            "iat": now,
            "nbf": now,
            "exp": now + lifetime,
            "preferred_username": "ivanova.a",
            "roles": ["analyst"],
        }
        body.update(claims or {})
        body = {k: v for k, v in body.items() if v is not None}
        return jwt.encode({"alg": "RS256", "kid": key.kid, **(header or {})}, body, key)

    def app(self) -> Starlette:
        async def discovery(request: Request) -> Response:
            self.requests.append("discovery")
            if self.down:
                return Response(status_code=503)
            return JSONResponse(
                {
                    "issuer": self.claims_to_be or self.url,
                    "authorization_endpoint": f"{self.url}/authorize",
                    "token_endpoint": f"{self.url}/token",
                    "jwks_uri": f"{self.url}/jwks",
                    "end_session_endpoint": f"{self.url}/logout",
                    "id_token_signing_alg_values_supported": ["RS256"],
                    "code_challenge_methods_supported": ["S256"],
                }
            )

        async def jwks(request: Request) -> Response:
            self.requests.append("jwks")
            return JSONResponse({"keys": [k.as_dict(private=False) for k in self.keys]})

        async def authorize(request: Request) -> Response:
            query = request.query_params
            if (
                query.get("client_id") != CLIENT_ID
                or query.get("response_type") != "code"
                or query.get("code_challenge_method") != "S256"
                or not query.get("code_challenge")
            ):
                return JSONResponse({"error": "invalid_request"}, status_code=400)
            code = secrets.token_urlsafe(16)
            self.grants[code] = _Grant(
                claims=dict(self.sign_in_as),
                redirect_uri=query["redirect_uri"],
                challenge=query["code_challenge"],
                nonce=query.get("nonce"),
            )
            target = (
                query["redirect_uri"]
                + "?"
                + urlencode({"code": code, "state": query.get("state", "")})
            )
            return RedirectResponse(target, status_code=302)

        async def token(request: Request) -> Response:
            form = await request.form()
            grant = self.grants.pop(str(form.get("code", "")), None)
            verifier = str(form.get("code_verifier", ""))
            challenge = (
                base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
                .rstrip(b"=")
                .decode()
            )
            if (
                grant is None
                or form.get("grant_type") != "authorization_code"
                or form.get("redirect_uri") != grant.redirect_uri
                or form.get("client_id") != CLIENT_ID
                or form.get("client_secret") != CLIENT_SECRET
                or challenge != grant.challenge
            ):
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            id_token = self.token({**grant.claims, "nonce": grant.nonce})
            return JSONResponse(
                {
                    "id_token": id_token,
                    "access_token": self.token(grant.claims),
                    "token_type": "Bearer",
                }
            )

        async def logout(request: Request) -> Response:
            target = request.query_params.get("post_logout_redirect_uri", self.url)
            return RedirectResponse(target, status_code=302)

        return Starlette(
            routes=[
                Route("/.well-known/openid-configuration", discovery),
                Route("/jwks", jwks),
                Route("/authorize", authorize),
                Route("/token", token, methods=["POST"]),
                Route("/logout", logout),
            ]
        )


@contextlib.asynccontextmanager
async def run_issuer() -> AsyncIterator[LocalIssuer]:
    port = free_port()
    issuer = LocalIssuer(url=f"http://127.0.0.1:{port}")
    issuer.rotate()
    async with serving(issuer.app(), port, name="test-issuer"):
        yield issuer
