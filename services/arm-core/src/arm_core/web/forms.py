"""The pages' forms: text fields only. A file part in a page's form is 400 before it is
written anywhere (uploads go to ``POST /api/v1/files`` alone); the body as a whole is bounded
by ``BODY_MAX_BYTES`` before this reads it (``api.body_limit``)."""

from __future__ import annotations

from fastapi import Request
from starlette.datastructures import FormData

# A batch retry's 500 ids and the CSRF token, with room to spare.
MAX_FIELDS = 1000


async def page_form(request: Request) -> FormData:
    return await request.form(max_files=0, max_fields=MAX_FIELDS)
