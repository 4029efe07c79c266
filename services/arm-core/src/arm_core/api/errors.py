"""Every error leaves as ``{"error": {"code", "message"}}``."""

from __future__ import annotations

from typing import Any

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from psycopg_pool import PoolTimeout
from pydantic import BaseModel, Field
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arm_core.audit.refusals import note_if_hidden, note_refusal
from arm_core.refusal import Refused
from arm_ka_platform.logging import get_logger

log = get_logger(__name__)


class ErrorDetail(BaseModel):
    code: str = Field(description="what went wrong, for programs: stable, upper case")
    message: str = Field(description="what went wrong, for people (Russian)")


class ErrorResponse(BaseModel):
    error: ErrorDetail


# Every route may answer these: the middleware below turns what escapes a route into them.
_ALWAYS = {
    500: "INTERNAL_ERROR",
    503: "DATABASE_UNAVAILABLE",
}


def error_responses(codes: dict[int, str]) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route: each status it answers with an error, and its codes."""
    merged: dict[int, list[str]] = {}
    for source in (codes, _ALWAYS):
        for status, described in source.items():
            merged.setdefault(status, []).append(described)
    return {
        status: {"model": ErrorResponse, "description": ", ".join(merged[status])}
        for status in sorted(merged)
    }


def error_responses_beside(codes: dict[int, str]) -> dict[int | str, dict[str, Any]]:
    """The same for a route whose success is not JSON: FastAPI would file its errors under
    the route's own media type, so they name theirs (the JSON routes put ErrorResponse among
    the document's components)."""
    return {
        status: {
            "description": response["description"],
            "content": {"application/json": {"schema": {"$ref": _ERROR_REF}}},
        }
        for status, response in error_responses(codes).items()
    }


_ERROR_REF = "#/components/schemas/ErrorResponse"


class ApiError(Exception):
    def __init__(
        self, status: int, code: str, message: str, *, retry_after: int | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


# Text PostgreSQL cannot store: NUL, and lone surrogates, which no UTF-8 encodes.
_UNSTORABLE = frozenset({chr(0), *map(chr, range(0xD800, 0xE000))})


def storable(value: str) -> bool:
    """Whether PostgreSQL can take ``value`` as text (a query with it would fail there)."""
    return _UNSTORABLE.isdisjoint(value)


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


# 400 is FastAPI's answer to a body it cannot even decode (not UTF-8, not JSON at all).
_HTTP_CODES = {
    400: "BAD_REQUEST",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "FILE_TOO_LARGE",
}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        response = error_response(exc.status, exc.code, exc.message)
        if exc.status in (403, 404):
            # After the answer is sent: a refusal of something that exists (and so is
            # written down) must take no longer to answer than an id that is nobody's.
            code = exc.code if exc.status == 403 else None
            response.background = BackgroundTask(note_refused, request, code)
        if exc.retry_after is not None:
            response.headers["Retry-After"] = str(exc.retry_after)
        return response

    @app.exception_handler(Refused)
    async def _refused(request: Request, exc: Refused) -> JSONResponse:
        return await _api_error(request, ApiError(exc.status, exc.code, exc.message))

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        details = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        return error_response(422, "VALIDATION_ERROR", details)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "HTTP_ERROR")
        return error_response(exc.status_code, code, str(exc.detail))


class UnexpectedErrors:
    """ASGI middleware: an unexpected exception becomes a logged 500 (503 when the database is
    away) in the usual error shape; its text never reaches the client."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            if isinstance(exc, psycopg.OperationalError | PoolTimeout):
                log.warning("request_database_unavailable", path=scope.get("path"))
                response = error_response(503, "DATABASE_UNAVAILABLE", "база данных недоступна")
            else:
                log.exception("request_failed", path=scope.get("path"))
                response = error_response(500, "INTERNAL_ERROR", "внутренняя ошибка сервера")
            if not started:
                await response(scope, receive, send)


async def note_refused(request: Request, code: str | None) -> None:
    """A 403 with its ``code``; or, after a 404 (``code`` None), a refusal only if what the
    path names exists and was out of the user's sight."""
    runtime = request.app.state.runtime
    principal = getattr(request.state, "principal", None)
    client = request.client.host if request.client else None
    if code is not None:
        await note_refusal(
            runtime.pool,
            runtime.rate_limits,
            actor=principal.user if principal is not None else None,
            outcome=code,
            method=request.method,
            path=request.url.path,
            client=client,
        )
    elif principal is not None and not principal.sees_all:
        await note_if_hidden(
            runtime.pool,
            runtime.rate_limits,
            who=principal,
            path_params=dict(request.path_params),
            method=request.method,
            path=request.url.path,
            client=client,
        )
