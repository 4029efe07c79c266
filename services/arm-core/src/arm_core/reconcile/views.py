"""Checks as the API and the pages show them."""

from __future__ import annotations

import dataclasses
from typing import Any

from arm_core.reconcile.checks import Check, Place


def place_url(place: Place) -> str:
    if place.document == 0:
        return f"/ui/files/{place.file_id}"
    return f"/ui/files/{place.file_id}/documents#doc-{place.document}"


def check_views(checks: list[Check]) -> list[dict[str, Any]]:
    return [
        {
            "code": check.code,
            "title": check.title,
            "compared": check.compared,
            "findings": [
                {
                    "code": finding.code,
                    "message": finding.message,
                    "difference": (
                        f"{finding.difference:.2f}" if finding.difference is not None else None
                    ),
                    "places": [
                        {**dataclasses.asdict(place), "url": place_url(place)}
                        for place in finding.places
                    ],
                }
                for finding in check.findings
            ],
        }
        for check in checks
    ]
