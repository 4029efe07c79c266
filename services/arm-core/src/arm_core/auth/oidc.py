"""OpenID Connect: the issuer's discovery document and keys, and the tokens they sign.

Keys are fetched once and kept; a token signed with a key id not among them fetches the set
again (a rotation), at most once per ``jwks_min_refresh_seconds`` so that made-up key ids
cannot make us hammer the issuer.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from joserfc.jwt import JWTClaimsRegistry

from arm_ka_platform.logging import get_logger

log = get_logger(__name__)

# Asymmetric only: a shared secret would let anyone holding it mint tokens, and "none" signs
# nothing.
SIGNING_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384")
LEEWAY_SECONDS = 30
_MAX_TOKEN = 16 * 1024


class TokenRefused(Exception):
    """A token that is not taken; the message names the check, never the token."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class IssuerUnavailable(Exception):
    """The issuer's discovery document or keys could not be read."""


@dataclass(frozen=True)
class Discovery:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    end_session_endpoint: str | None
    algorithms: tuple[str, ...]


@dataclass(frozen=True)
class OidcConfig:
    issuer: str
    client_id: str
    audience: str
    jwks_min_refresh_seconds: float


class Issuer:
    def __init__(self, config: OidcConfig, http: httpx.AsyncClient) -> None:
        self.config = config
        self._http = http
        self._discovery: Discovery | None = None
        self._keys: KeySet | None = None
        self._fetched_at = float("-inf")
        self._lock = asyncio.Lock()

    async def discovery(self) -> Discovery:
        if self._discovery is None:
            url = self.config.issuer.rstrip("/") + "/.well-known/openid-configuration"
            document = await self._get_json(url)
            if document.get("issuer") != self.config.issuer:
                # OpenID Connect Discovery 1.0, 4.3: a mismatch means a document for another
                # issuer, and its keys must not be trusted for this one.
                raise IssuerUnavailable("the discovery document names another issuer")
            try:
                offered = document.get("id_token_signing_alg_values_supported") or []
                self._discovery = Discovery(
                    issuer=document["issuer"],
                    authorization_endpoint=document["authorization_endpoint"],
                    token_endpoint=document["token_endpoint"],
                    jwks_uri=document["jwks_uri"],
                    end_session_endpoint=document.get("end_session_endpoint"),
                    algorithms=tuple(a for a in SIGNING_ALGORITHMS if a in offered) or ("RS256",),
                )
            except KeyError as exc:
                raise IssuerUnavailable(f"the discovery document lacks {exc.args[0]}") from None
        return self._discovery

    async def _key_set(self, kid: str | None) -> KeySet:
        async with self._lock:
            known = self._keys is not None and (kid is None or _has_kid(self._keys, kid))
            due = time.monotonic() - self._fetched_at >= self.config.jwks_min_refresh_seconds
            if self._keys is None or (not known and due):
                document = await self._get_json((await self.discovery()).jwks_uri)
                try:
                    keys = KeySet.import_key_set(
                        {"keys": [k for k in document.get("keys", []) if k.get("use") != "enc"]}
                    )
                except (JoseError, ValueError, TypeError) as exc:
                    raise IssuerUnavailable(f"the issuer's keys are unreadable: {exc}") from None
                self._keys, self._fetched_at = keys, time.monotonic()
                log.info(
                    "oidc_keys_fetched",
                    keys=len(keys.keys),
                    reason="start" if kid is None else "unknown_kid",
                )
            return self._keys

    async def verify(
        self, token: str, *, audience: str | None = None, nonce: str | None = None
    ) -> dict[str, Any]:
        """The claims of a valid token for ``audience`` (the API's by default), or
        ``TokenRefused``."""
        if len(token) > _MAX_TOKEN:
            raise TokenRefused("токен слишком длинный")
        header = _header(token)
        algorithms = (await self.discovery()).algorithms
        if header.get("alg") not in algorithms:
            raise TokenRefused("алгоритм подписи токена не принимается")
        kid = header.get("kid")
        keys = await self._key_set(kid if isinstance(kid, str) else None)
        if isinstance(kid, str) and not _has_kid(keys, kid):
            raise TokenRefused("токен подписан неизвестным ключом")
        try:
            claims = jwt.decode(token, keys, algorithms=list(algorithms)).claims
            registry = JWTClaimsRegistry(
                leeway=LEEWAY_SECONDS,
                iss={"essential": True, "value": self.config.issuer},
                aud={"essential": True, "value": audience or self.config.audience},
                exp={"essential": True},
                sub={"essential": True},
            )
            if nonce is not None:
                registry.options["nonce"] = {"essential": True, "value": nonce}
            registry.validate(claims)
        except JoseError as exc:
            raise TokenRefused(f"токен не принят: {exc.error}") from None
        return dict(claims)

    async def authorization_url(
        self, *, redirect_uri: str, scopes: str, state: str, nonce: str, challenge: str
    ) -> str:
        query = urlencode(
            {
                "response_type": "code",
                "client_id": self.config.client_id,
                "redirect_uri": redirect_uri,
                "scope": scopes,
                "state": state,
                "nonce": nonce,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            }
        )
        endpoint = (await self.discovery()).authorization_endpoint
        return f"{endpoint}{'&' if '?' in endpoint else '?'}{query}"

    async def redeem(
        self,
        code: str,
        *,
        verifier: str,
        redirect_uri: str,
        nonce: str,
        client_secret: str | None,
    ) -> dict[str, Any]:
        """The claims of the ID token the issuer gives for an authorization code."""
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "client_id": self.config.client_id,
            "code_verifier": verifier,
        }
        if client_secret is not None:
            form["client_secret"] = client_secret
        endpoint = (await self.discovery()).token_endpoint
        try:
            response = await self._http.post(endpoint, data=form)
        except httpx.HTTPError as exc:
            raise IssuerUnavailable(f"{endpoint}: {type(exc).__name__}") from None
        if response.status_code != 200:
            raise TokenRefused("сервер входа не принял код авторизации")
        try:
            id_token = response.json().get("id_token")
        except (ValueError, AttributeError):
            id_token = None
        if not isinstance(id_token, str):
            raise TokenRefused("сервер входа не выдал ID-токен")
        return await self.verify(id_token, audience=self.config.client_id, nonce=nonce)

    async def end_session_url(self, *, return_to: str) -> str | None:
        endpoint = (await self.discovery()).end_session_endpoint
        if endpoint is None:
            return None
        query = urlencode(
            {"client_id": self.config.client_id, "post_logout_redirect_uri": return_to}
        )
        return f"{endpoint}{'&' if '?' in endpoint else '?'}{query}"

    async def _get_json(self, url: str) -> dict[str, Any]:
        try:
            response = await self._http.get(url)
            response.raise_for_status()
            document = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise IssuerUnavailable(f"{url}: {type(exc).__name__}") from None
        if not isinstance(document, dict):
            raise IssuerUnavailable(f"{url}: not a JSON object")
        return document


def _has_kid(keys: KeySet, kid: str) -> bool:
    return any(key.kid == kid for key in keys.keys)


def _header(token: str) -> dict[str, Any]:
    head, dot, _ = token.partition(".")
    if not dot:
        raise TokenRefused("это не JWT")
    try:
        header = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    except (ValueError, UnicodeDecodeError):
        raise TokenRefused("заголовок токена не читается") from None
    if not isinstance(header, dict):
        raise TokenRefused("заголовок токена не читается")
    return header
