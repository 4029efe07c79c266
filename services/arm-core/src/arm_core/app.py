"""The arm-core ASGI application, built from settings (nothing happens at import time)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI

from arm_core.api import (
    audit,
    exports,
    files,
    health,
    metrics,
    reconciliation,
    review,
    source,
)
from arm_core.api.body_limit import BodyLimit
from arm_core.api.errors import UnexpectedErrors, install_error_handlers
from arm_core.api.headers import SecurityHeaders
from arm_core.auth import routes as auth_routes
from arm_core.auth.csrf import RequireSameSite
from arm_core.auth.identity import RequireIdentity
from arm_core.runtime import running
from arm_core.settings import CoreSettings
from arm_core.web import audit_trail, consolidations, documents, render, stream
from arm_core.web import files as file_pages
from arm_core.web import review as review_pages
from arm_ka_platform.settings import SettingsError


def routers() -> tuple[APIRouter, ...]:
    """Every router of the app; the access tests walk them route by route."""
    return (
        health.router,
        metrics.router,
        auth_routes.router,
        files.router,
        exports.router,
        reconciliation.router,
        review.router,
        source.router,
        audit.router,
        consolidations.router,
        file_pages.router,
        documents.router,
        review_pages.router,
        audit_trail.router,
        stream.router,
    )


def create_app(settings: CoreSettings, on_fatal: Callable[[], None] | None = None) -> FastAPI:
    """The app; ``SettingsError`` if these settings must not serve (see ``refusal``)."""
    refusal = settings.refusal()
    if refusal is not None:
        raise SettingsError(refusal)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with running(settings, on_fatal) as runtime:
            app.state.runtime = runtime
            yield

    app = FastAPI(title="ARM KA recognition", version="0.1.0", lifespan=lifespan)
    install_error_handlers(app)
    app.add_middleware(UnexpectedErrors)
    app.add_middleware(RequireSameSite, settings=settings)
    app.add_middleware(BodyLimit, most=settings.body_max_bytes)
    app.add_middleware(RequireIdentity, settings=settings)
    # Outermost: a response made by the error middleware carries the headers too.
    app.add_middleware(SecurityHeaders, form_targets=settings.identity_provider_origins)
    for router in routers():
        app.include_router(router)
    app.mount("/static", render.static_files(), name="static")
    return app
