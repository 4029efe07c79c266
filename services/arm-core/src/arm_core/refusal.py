"""A request the domain refuses, with the answer it should get: HTTP status, error code and a
message for the analyst. The API answers every one alike (``api.errors``); the pages show the
message where the action was taken."""

from __future__ import annotations


class Refused(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
