"""Credentials for testing NATS authentication for real: nkeys and decentralised JWTs.

``nkey_config`` makes a server config that admits one nkey user (seed-only authentication);
``operator_config`` makes an operator, an account and a user, signs their JWTs as nsc would,
and preloads them into a memory resolver (seed + JWT authentication).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from dataclasses import dataclass
from typing import Any

import nkeys


def _keypair(prefix: int) -> Any:
    return nkeys.from_seed(bytearray(nkeys.encode_seed(os.urandom(32), prefix)))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _jwt(issuer: Any, subject: str, name: str, nats: dict[str, Any]) -> str:
    claims: dict[str, Any] = {
        "iat": int(time.time()),
        "iss": issuer.public_key.decode(),
        "name": name,
        "sub": subject,
        "nats": {**nats, "version": 2},
    }
    digest = hashlib.new("sha512_256", json.dumps(claims).encode()).digest()
    claims["jti"] = base64.b32encode(digest).decode().rstrip("=")
    header = _b64(json.dumps({"typ": "JWT", "alg": "ed25519-nkey"}).encode())
    payload = _b64(json.dumps(claims).encode())
    signature = _b64(issuer.sign(f"{header}.{payload}".encode()))
    return f"{header}.{payload}.{signature}"


@dataclass(frozen=True)
class Credentials:
    server_config: str
    seed: str
    jwt: str | None


def nkey_config() -> Credentials:
    user = _keypair(nkeys.PREFIX_BYTE_USER)
    config = f'authorization {{ users = [ {{ nkey: "{user.public_key.decode()}" }} ] }}\n'
    return Credentials(server_config=config, seed=user.seed.decode(), jwt=None)


def operator_config() -> Credentials:
    operator = _keypair(nkeys.PREFIX_BYTE_OPERATOR)
    account = _keypair(nkeys.PREFIX_BYTE_ACCOUNT)
    user = _keypair(nkeys.PREFIX_BYTE_USER)
    unlimited = {"subs": -1, "data": -1, "payload": -1}
    operator_jwt = _jwt(operator, operator.public_key.decode(), "arm-ka", {"type": "operator"})
    account_jwt = _jwt(
        operator,
        account.public_key.decode(),
        "recognition",
        {
            "type": "account",
            "limits": {
                **unlimited,
                "imports": -1,
                "exports": -1,
                "wildcards": True,
                "conn": -1,
                "leaf": -1,
            },
            "default_permissions": {"pub": {}, "sub": {}},
        },
    )
    user_jwt = _jwt(
        account,
        user.public_key.decode(),
        "arm-core",
        {"type": "user", "pub": {}, "sub": {}, **unlimited},
    )
    config = (
        f'operator: "{operator_jwt}"\n'
        "resolver: MEMORY\n"
        f'resolver_preload: {{ {account.public_key.decode()}: "{account_jwt}" }}\n'
    )
    return Credentials(server_config=config, seed=user.seed.decode(), jwt=user_jwt)
