"""``/api/v1/files/{id}/source``: the cells around a row of a workbook's sheet, and the page
images of a PDF or scan, as the recognition service kept them beside its result."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response

from arm_core.api.deps import principal_of, runtime_of
from arm_core.api.errors import ApiError, error_responses, storable
from arm_core.api.models import SourcePage, SourcePages, SourceWindow
from arm_core.source.pages import kept_pages, page_image
from arm_core.source.sheets import MAX_AROUND, sheet_window

router = APIRouter(prefix="/api/v1")


@router.get(
    "/files/{file_id}/source",
    responses=error_responses(
        {
            400: "BAD_REQUEST",
            404: "FILE_NOT_FOUND, SOURCE_NOT_KEPT, SHEET_NOT_FOUND",
            422: "VALIDATION_ERROR",
        }
    ),
)
async def source_of_file(
    request: Request,
    file_id: uuid.UUID,
    sheet: Annotated[str, Query(min_length=1, max_length=300)],
    row: Annotated[int, Query(ge=1, le=10_000_000, description="the row to show")],
    around: Annotated[int, Query(ge=0, le=MAX_AROUND)] = 15,
) -> SourceWindow:
    """Rows ``row - around`` to ``row + around`` of the sheet (workbooks; the current
    attempt's reading)."""
    if not storable(sheet):
        raise ApiError(400, "BAD_REQUEST", "имя листа содержит недопустимые символы")
    runtime = runtime_of(request)
    window = await sheet_window(
        runtime.pool,
        runtime.storage,
        principal_of(request),
        file_id,
        sheet=sheet,
        row=row,
        around=around,
    )
    return SourceWindow.model_validate(window)


@router.get(
    "/files/{file_id}/source/pages",
    responses=error_responses({404: "FILE_NOT_FOUND, SOURCE_NOT_KEPT", 422: "VALIDATION_ERROR"}),
)
async def pages_of_file(request: Request, file_id: uuid.UUID) -> SourcePages:
    """The pages of a PDF or image the current attempt read, with their images."""
    runtime = runtime_of(request)
    pages = await kept_pages(runtime.pool, runtime.storage, principal_of(request), file_id)
    return SourcePages(
        file_id=file_id,
        pages=[
            SourcePage(
                page=p["page"],
                source=p["source"],
                image_url=page_url(file_id, p["page"]) if p["image"] else None,
            )
            for p in pages
        ],
    )


def page_url(file_id: uuid.UUID, page: int) -> str:
    return f"/api/v1/files/{file_id}/source/pages/{page}"


@router.get(
    "/files/{file_id}/source/pages/{page}",
    response_class=Response,
    responses={
        200: {"content": {"image/jpeg": {}}, "description": "the page as it was read"},
        **error_responses(
            {404: "FILE_NOT_FOUND, SOURCE_NOT_KEPT, PAGE_NOT_FOUND", 422: "VALIDATION_ERROR"}
        ),
    },
)
async def page_image_of_file(
    request: Request, file_id: uuid.UUID, page: Annotated[int, Path(ge=1, le=100_000)]
) -> Response:
    """One page image (JPEG) of the current attempt; a locator's ``bbox`` is a fraction of
    its width and height."""
    runtime = runtime_of(request)
    image = await page_image(runtime.pool, runtime.storage, principal_of(request), file_id, page)
    # A retry makes another attempt the current one under the same address.
    return Response(image, media_type="image/jpeg", headers={"Cache-Control": "private, no-cache"})
