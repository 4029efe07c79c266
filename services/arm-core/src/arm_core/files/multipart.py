"""Streaming multipart/form-data: parts are handed out as they arrive, never buffered whole."""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from python_multipart.multipart import MultipartParser, MultipartState, parse_options_header

MAX_HEADER_BYTES = 8192
# RFC 2046 allows 1 to 70 characters; a longer one is no boundary a browser would send.
MAX_BOUNDARY_BYTES = 70


class MultipartError(Exception):
    """The body is not well-formed multipart/form-data."""


@dataclass
class FormPart:
    name: str
    filename: str | None
    content_type: str | None


@dataclass
class _State:
    events: deque[tuple[str, object]] = field(default_factory=deque)
    header_field: bytearray = field(default_factory=bytearray)
    header_value: bytearray = field(default_factory=bytearray)
    headers: dict[str, bytes] = field(default_factory=dict)
    header_bytes: int = 0


def boundary_of(content_type: str | None) -> bytes:
    if not content_type:
        raise MultipartError("Content-Type multipart/form-data is required")
    kind, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise MultipartError("Content-Type must be multipart/form-data with a boundary")
    if len(boundary) > MAX_BOUNDARY_BYTES:
        raise MultipartError(f"multipart boundary longer than {MAX_BOUNDARY_BYTES} characters")
    return boundary


def _parser(boundary: bytes, state: _State) -> MultipartParser:
    def count(size: int) -> None:
        # All headers of a part together, so neither a long name nor many lines can grow memory.
        state.header_bytes += size
        if state.header_bytes > MAX_HEADER_BYTES:
            raise MultipartError("part headers too long")

    def on_header_field(data: bytes, start: int, end: int) -> None:
        count(end - start)
        state.header_field += data[start:end]

    def on_header_value(data: bytes, start: int, end: int) -> None:
        count(end - start)
        state.header_value += data[start:end]

    def on_header_end() -> None:
        state.headers[bytes(state.header_field).lower().decode("latin-1")] = bytes(
            state.header_value
        )
        state.header_field.clear()
        state.header_value.clear()

    def on_headers_finished() -> None:
        disposition, options = parse_options_header(state.headers.get("content-disposition", b""))
        if disposition != b"form-data" or b"name" not in options:
            raise MultipartError("part without Content-Disposition: form-data; name=...")
        filename = options.get(b"filename")
        content_type = state.headers.get("content-type")
        state.events.append(
            (
                "part",
                FormPart(
                    name=options[b"name"].decode("utf-8", "replace"),
                    filename=filename.decode("utf-8", "replace") if filename is not None else None,
                    content_type=content_type.decode("latin-1") if content_type else None,
                ),
            )
        )
        state.headers.clear()
        state.header_bytes = 0

    def on_part_data(data: bytes, start: int, end: int) -> None:
        state.events.append(("data", bytes(data[start:end])))

    def on_part_end() -> None:
        state.events.append(("end", None))

    return MultipartParser(
        boundary,
        {
            "on_header_field": on_header_field,
            "on_header_value": on_header_value,
            "on_header_end": on_header_end,
            "on_headers_finished": on_headers_finished,
            "on_part_data": on_part_data,
            "on_part_end": on_part_end,
        },
    )


async def iter_parts(
    chunks: AsyncIterator[bytes], boundary: bytes
) -> AsyncIterator[tuple[FormPart, AsyncIterator[bytes]]]:
    """Yield each part with an iterator over its data; unread data is skipped."""
    state = _State()
    try:
        parser = _parser(boundary, state)
    except Exception as exc:  # python-multipart refuses the boundary itself
        raise MultipartError(f"malformed multipart boundary: {exc}") from None
    finished = False

    async def next_event() -> tuple[str, object] | None:
        nonlocal finished
        while not state.events:
            if finished:
                return None
            try:
                chunk: bytes | None = await anext(chunks)
            except StopAsyncIteration:
                finished = True
                chunk = None
            try:
                if chunk is None:
                    parser.finalize()
                    if parser.state != MultipartState.END:
                        raise MultipartError("body ended before the closing boundary")
                else:
                    parser.write(chunk)
            except MultipartError:
                raise
            except Exception as exc:  # python-multipart's own parse errors
                raise MultipartError(f"malformed multipart body: {exc}") from None
        return state.events.popleft()

    async def part_data() -> AsyncIterator[bytes]:
        while (event := await next_event()) is not None:
            kind, value = event
            if kind == "data":
                assert isinstance(value, bytes)
                yield value
            elif kind == "end":
                return
        raise MultipartError("body ended inside a part")

    while (event := await next_event()) is not None:
        kind, value = event
        if kind != "part":
            continue
        assert isinstance(value, FormPart)
        data = part_data()
        yield value, data
        async for _ in data:
            pass
