"""Security headers on every response: no page of the core may be framed, no response read
as another type than it says, no script or style run but the core's own files."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def content_security_policy(form_targets: tuple[str, ...] = ()) -> str:
    """Scripts and styles from /static only: no inline script, handler or style attribute
    runs. Forms post to the core, and to ``form_targets`` (the identity provider: the browser
    checks the redirect of the sign-out form against this too)."""
    return "; ".join(
        (
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            " ".join(("form-action 'self'", *form_targets)),
            "frame-ancestors 'none'",
        )
    )


# The generated API docs load their viewer from its CDN with an inline script: they keep
# every header but a policy that would blank them, and still cannot be framed.
DOCS_POLICY = "frame-ancestors 'none'"
DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})

_COMMON = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
)


class SecurityHeaders:
    """Adds the headers to each HTTP response start, streamed responses included."""

    def __init__(self, app: ASGIApp, form_targets: tuple[str, ...] = ()) -> None:
        self.app = app
        self.policy = content_security_policy(form_targets)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = DOCS_POLICY if scope["path"] in DOCS_PATHS else self.policy
        added = [*_COMMON, (b"content-security-policy", policy.encode())]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in added if name not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
