from typing_extensions import Buffer

def scan(
    body: Buffer,
    styles: dict[int, str] | None,
    levels: dict[int, int] | None,
    formats: dict[tuple[int, int], str],
    /,
) -> tuple[int, int, int, int]: ...
