"""Bearer tokens on the API, against an issuer made in the test: keys generated here, its
discovery document and JWKS served on loopback. Only a token the issuer signed, for this
audience, in its lifetime, is taken."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest
from joserfc.jwk import RSAKey

from arm_core.testing import run_core
from arm_core.testing_issuer import LocalIssuer, run_issuer


@pytest.fixture
async def issuer():
    async with run_issuer() as running:
        yield running


@pytest.fixture
def oidc_settings(make_core_settings, issuer: LocalIssuer):
    def make(**overrides):
        values = {
            "nats_enabled": False,
            **issuer.core_settings(),
            "oidc_jwks_min_refresh_seconds": 0,
        }
        return make_core_settings(**{**values, **overrides})

    return make


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unsigned(issuer: LocalIssuer) -> str:
    """The issuer's claims with ``alg: none`` and no signature."""
    body = json.loads(base64.urlsafe_b64decode(issuer.token().split(".")[1] + "=="))
    head = _b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    return f"{head}.{_b64(json.dumps(body).encode())}."


def _tampered(token: str) -> str:
    head, body, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=="))
    claims["preferred_username"] = "admin"
    return f"{head}.{_b64(json.dumps(claims).encode())}.{signature}"


def _hs256_with_public_key(issuer: LocalIssuer) -> str:
    """The classic confusion: HMAC keyed with the issuer's public key, which anyone has."""
    key = issuer.keys[-1]
    head = _b64(json.dumps({"alg": "HS256", "kid": key.kid}).encode())
    body = issuer.token().split(".")[1]
    mac = hmac.new(key.as_pem(private=False), f"{head}.{body}".encode(), hashlib.sha256)
    return f"{head}.{body}.{_b64(mac.digest())}"


REFUSED = {
    "expired": lambda i: i.token({"exp": int(time.time()) - 120, "nbf": None}),
    "not yet valid": lambda i: i.token({"nbf": int(time.time()) + 600}),
    "wrong audience": lambda i: i.token({"aud": "another-app"}),
    "wrong issuer": lambda i: i.token({"iss": "https://elsewhere.example"}),
    "no expiry": lambda i: i.token({"exp": None}),
    "no subject": lambda i: i.token({"sub": None}),
    "unknown key": lambda i: i.token(key=RSAKey.generate_key(2048, parameters={"kid": "x"})),
    "tampered": lambda i: _tampered(i.token()),
    "alg none": _unsigned,
    "HS256 keyed with the public key": _hs256_with_public_key,
    "not a JWT": lambda i: "not-a-token",
}


async def test_a_token_the_issuer_signed_is_taken(oidc_settings, issuer: LocalIssuer) -> None:
    async with run_core(oidc_settings()) as core:
        anonymous = await core.client.get("/api/v1/files")
        signed = await core.client.get("/api/v1/files", headers=_bearer(issuer.token()))
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "UNAUTHENTICATED"
    assert signed.status_code == 200


@pytest.mark.parametrize("case", sorted(REFUSED))
async def test_a_token_that_fails_a_check_is_refused(
    oidc_settings, issuer: LocalIssuer, case: str
) -> None:
    token = REFUSED[case](issuer)
    async with run_core(oidc_settings()) as core:
        response = await core.client.get("/api/v1/files", headers=_bearer(token))
    assert response.status_code == 401, response.text
    assert response.json()["error"]["code"] == "UNAUTHENTICATED"
    assert token not in response.text


async def test_a_rotated_key_is_fetched_when_a_token_names_it(
    oidc_settings, issuer: LocalIssuer
) -> None:
    async with run_core(oidc_settings()) as core:
        before = await core.client.get("/api/v1/files", headers=_bearer(issuer.token()))
        fetched = issuer.requests.count("jwks")
        issuer.rotate()
        after = await core.client.get("/api/v1/files", headers=_bearer(issuer.token()))
        again = await core.client.get("/api/v1/files", headers=_bearer(issuer.token()))
    assert [before.status_code, after.status_code, again.status_code] == [200, 200, 200]
    # Fetched once more for the new key, then kept.
    assert issuer.requests.count("jwks") == fetched + 1


async def test_unknown_key_ids_do_not_make_the_core_hammer_the_issuer(
    oidc_settings, issuer: LocalIssuer
) -> None:
    stranger = RSAKey.generate_key(2048, parameters={"kid": "made-up"})
    async with run_core(oidc_settings(oidc_jwks_min_refresh_seconds=3600)) as core:
        await core.client.get("/api/v1/files", headers=_bearer(issuer.token()))
        answers = [
            (await core.client.get("/api/v1/files", headers=_bearer(issuer.token(key=stranger))))
            for _ in range(5)
        ]
    assert {answer.status_code for answer in answers} == {401}
    assert issuer.requests.count("jwks") == 1


async def test_an_issuer_that_cannot_be_reached_is_a_503_not_a_sign_in(
    oidc_settings, issuer: LocalIssuer
) -> None:
    issuer.down = True
    async with run_core(oidc_settings()) as core:
        response = await core.client.get("/api/v1/files", headers=_bearer(issuer.token()))
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "AUTH_UNAVAILABLE"


async def test_roles_and_teams_come_from_the_claims_named_in_the_settings(
    oidc_settings, issuer: LocalIssuer
) -> None:
    settings = oidc_settings(oidc_roles_claim="realm_access.roles", oidc_teams_claim="groups")
    token = issuer.token(
        {"realm_access": {"roles": ["analyst", "offline_access"]}, "groups": ["/credit/team-a"]}
    )
    async with run_core(settings) as core:
        created = await core.client.post(
            "/api/v1/consolidations", json={"name": "ООО Ромашка"}, headers=_bearer(token)
        )
    assert created.status_code == 201, created.text
    assert created.json()["team"] == "team-a"


async def test_keys_of_a_discovery_document_naming_another_issuer_are_not_trusted(
    oidc_settings, issuer: LocalIssuer
) -> None:
    issuer.claims_to_be = "https://elsewhere.example"
    async with run_core(oidc_settings()) as core:
        response = await core.client.get("/api/v1/files", headers=_bearer(issuer.token()))
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "AUTH_UNAVAILABLE"
    assert "jwks" not in issuer.requests
