"""A document as reviewed, in the JSON the API answers with (``models.DocumentView``): the
contract's 2.x wire form of the typed document, with the few names the API has always used
otherwise, and the review's own fields beside it."""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from arm_core.review.model import ReviewedDocument
from recognition_contract import Equivalents, fields_of, to_wire
from recognition_contract.fields import FLAT_SUFFIX

ROW_NAMES: Final = {"code": "account"}
"""A trial balance row's fields the API names otherwise than the contract."""

# A line without equivalents still shows them, empty: the API's lines all have one shape.
_NO_EQUIVALENTS: Final = {f"{sub.wire}{FLAT_SUFFIX}": None for sub in fields_of(Equivalents)}


def document_json(doc: ReviewedDocument) -> dict[str, Any]:
    wire = to_wire(doc.document, 2)
    del wire["type"]
    out: dict[str, Any] = {"id": doc.id, "job_id": doc.job_id, "kind": doc.kind, **wire}
    if doc.kind == "osv":
        # The API shows an organisation always, its fields empty where none was read.
        out["organisation"] = wire["organisation"] or {"name": None, "tax_id": None}
        out["rows"] = [{ROW_NAMES.get(k, k): v for k, v in row.items()} for row in wire["rows"]]
    else:
        out["transactions"] = [{**_NO_EQUIVALENTS, **line} for line in wire["transactions"]]
    out.update(
        corrections=[dataclasses.asdict(c) for c in doc.corrections],
        acknowledgements=[dataclasses.asdict(a) for a in doc.acknowledgements],
        confirmed=dataclasses.asdict(doc.confirmed) if doc.confirmed else None,
        reopened=dataclasses.asdict(doc.reopened) if doc.reopened else None,
        review_state=doc.review_state,
    )
    return out
