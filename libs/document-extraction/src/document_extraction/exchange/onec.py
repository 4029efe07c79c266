"""1CClientBankExchange (versions 1.01-1.03), the text file banks prepare for 1C: a header of
``Key=Value`` lines, ``СекцияРасчСчет`` … ``КонецРасчСчет`` per account and date range, and
``СекцияДокумент=<kind>`` … ``КонецДокумента`` per payment document. Files come without the
header line, without account sections, without end markers: whatever is there is read, and
what is missing is said."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from document_extraction.dates import parse_date_or_none
from document_extraction.exchange.decoding import REPLACEMENT, declared_encoding, decode
from document_extraction.exchange.model import (
    Entry,
    Ledger,
    Lines,
    Party,
    Refused,
    Section,
    text_locator,
)
from document_extraction.findings import INFO, warning
from document_extraction.identifiers import compact, normalize_kpp
from document_extraction.numbers import exchange_amount
from recognition_contract import ErrorCode, Locator, Warning

SIGNATURE: Final = "1CClientBankExchange"
ACCOUNT_START: Final = "СекцияРасчСчет"
ACCOUNT_END: Final = "КонецРасчСчет"
DOCUMENT_START: Final = "СекцияДокумент"
DOCUMENT_END: Final = "КонецДокумента"
FILE_END: Final = "КонецФайла"
PURPOSE_PARTS: Final = tuple(f"НазначениеПлатежа{k}" for k in range(1, 7))


@dataclass(frozen=True, slots=True)
class Record:
    """The ``Key=Value`` lines of one block; a key given twice keeps every value."""

    lines: Lines
    values: Mapping[str, list[str]]
    title: str | None = None

    def get(self, key: str) -> str | None:
        found = self.values.get(key)
        value = found[0].strip() if found else ""
        return value or None

    def all(self, key: str) -> list[str]:
        return [v.strip() for v in self.values.get(key, []) if v.strip()]


def is_onec(head: str) -> bool:
    """Whether text starts like a 1C exchange file (also one without its first line)."""
    first = head.lstrip("\ufeff \t\r\n").split("\n", 1)[0].strip()
    return first in (SIGNATURE, ACCOUNT_START) or first.startswith(DOCUMENT_START + "=")


def read_onec(source: bytes) -> tuple[Ledger, tuple[str, ...]]:
    """The file as a ledger and its lines. ``Refused`` when it is no 1C exchange file or its
    keys were destroyed by a bad conversion."""
    text = decode(source, declared_encoding(source))
    header, sections, documents, notes = _blocks(text.lines)
    if not (header.values or sections or documents):
        raise Refused(ErrorCode.INVALID_DOCUMENT, "В файле нет ни одной строки «Ключ=Значение»")
    if _keys_destroyed(header, sections, documents):
        raise Refused(
            ErrorCode.UNREADABLE,
            "Названия полей файла 1С испорчены при перекодировке (символы «\ufffd» вместо "
            "букв): выгрузите выписку из банка заново",
        )
    start, end = (
        parse_date_or_none(header.get("ДатаНачала")),
        parse_date_or_none(header.get("ДатаКонца")),
    )
    notes += _header_date_notes(header, start, end)
    ledger = Ledger(
        sections=tuple(s for s in map(_section, sections) if s is not None),
        entries=tuple(e for e in map(_entry, documents) if e is not None),
        accounts=tuple(dict.fromkeys(map(compact, header.all("РасчСчет")))),
        start=start,
        end=end,
        warnings=tuple(notes) + tuple(_unread_amounts(documents)),
    )
    return ledger, text.lines


def _blocks(
    lines: Sequence[str],
) -> tuple[Record, list[Record], list[Record], list[Warning]]:
    """Split into the header, the account sections and the documents. A block left open is
    closed by the next block's start or the end of the file."""
    header: dict[str, list[str]] = {}
    sections: list[Record] = []
    documents: list[Record] = []
    notes: list[Warning] = []
    skipped: list[int] = []
    current: dict[str, list[str]] | None = None
    kind: str | None = None
    title: str | None = None
    opened = 0
    ended = False

    def close(last: int, *, marked: bool) -> None:
        nonlocal current, kind
        if current is None:
            return
        record = Record(Lines(opened, max(opened, last)), current, title)
        (sections if kind == ACCOUNT_START else documents).append(record)
        if not marked:
            end = ACCOUNT_END if kind == ACCOUNT_START else DOCUMENT_END
            notes.append(
                warning(
                    "BLOCK_NOT_CLOSED",
                    f"Блок со строки {opened} не закрыт строкой «{end}»",
                    _where(opened),
                    INFO,
                )
            )
        current, kind = None, None

    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or (number == 1 and line.lstrip("\ufeff") == SIGNATURE):
            continue
        key, sep, value = line.partition("=")
        if key in (ACCOUNT_START, DOCUMENT_START):
            close(number - 1, marked=False)
            current, kind, title, opened = {}, key, value.strip() or None, number
        elif key in (ACCOUNT_END, DOCUMENT_END):
            close(number, marked=True)
        elif key == FILE_END:
            close(number - 1, marked=False)
            ended = True
            break
        elif sep:
            (current if current is not None else header).setdefault(key.strip(), []).append(value)
        else:
            skipped.append(number)
    close(len(lines), marked=False)
    if skipped:
        notes.append(
            warning(
                "LINES_SKIPPED",
                f"Строк без «=» пропущено: {len(skipped)} (первая — {skipped[0]})",
                _where(skipped[0]),
                INFO,
            )
        )
    if not ended and (sections or documents):
        notes.append(
            warning(
                "FILE_END_MISSING",
                "Нет строки «КонецФайла»: файл мог быть обрезан",
                None,
                INFO,
            )
        )
    return Record(Lines(1, 1), header), sections, documents, notes


def _where(line: int, last: int | None = None) -> Locator:
    return text_locator(Lines(line, last or line))


def _keys_destroyed(header: Record, sections: list[Record], documents: list[Record]) -> bool:
    keys = [*header.values, *(k for block in (*sections, *documents) for k in block.values)]
    return bool(keys) and sum(REPLACEMENT in k for k in keys) * 2 > len(keys)


def _header_date_notes(header: Record, start: object, end: object) -> list[Warning]:
    notes = []
    for key, value in (("ДатаНачала", start), ("ДатаКонца", end)):
        text = header.get(key)
        if text is not None and value is None:
            notes.append(
                warning(
                    "HEADER_DATE_UNREADABLE",
                    f"Дата заголовка {key}={text} не читается: период взят из разделов и "
                    "документов",
                    None,
                    INFO,
                )
            )
    return notes


def _section(record: Record) -> Section | None:
    account = record.get("РасчСчет")
    if account is None:
        return None
    return Section(
        lines=record.lines,
        account=compact(account),
        start=parse_date_or_none(record.get("ДатаНачала")),
        end=parse_date_or_none(record.get("ДатаКонца")),
        opening=exchange_amount(record.get("НачальныйОстаток")),
        credits=exchange_amount(record.get("ВсегоПоступило")),
        debits=exchange_amount(record.get("ВсегоСписано")),
        closing=exchange_amount(record.get("КонечныйОстаток")),
    )


def _entry(record: Record) -> Entry | None:
    amount = exchange_amount(record.get("Сумма"))
    if amount is None:
        return None
    return Entry(
        lines=record.lines,
        amount=amount,
        date=parse_date_or_none(record.get("Дата")),
        number=record.get("Номер"),
        kind=record.title,
        purpose=_purpose(record),
        payer=_party(record, "Плательщик"),
        receiver=_party(record, "Получатель"),
        debited_on=parse_date_or_none(record.get("ДатаСписано")),
        credited_on=parse_date_or_none(record.get("ДатаПоступило")),
    )


def _party(record: Record, side: str) -> Party:
    account = record.get(f"{side}Счет")
    settlement = record.get(f"{side}РасчСчет")
    banks = [record.get(f"{side}Банк1"), record.get(f"{side}Банк2")]
    return Party(
        name=record.get(f"{side}1") or _name_without_tax_id(record.get(side)),
        tax_id=record.get(f"{side}ИНН"),
        kpp=normalize_kpp(record.get(f"{side}КПП")),
        account=compact(account) if account else None,
        settlement_account=compact(settlement) if settlement else None,
        bank=" ".join(b for b in banks if b) or None,
        bic=record.get(f"{side}БИК"),
    )


def _name_without_tax_id(name: str | None) -> str | None:
    # ``Плательщик=ИНН 7700000000 ООО "Ромашка"``: the tax id has its own key.
    if name is not None and name.upper().startswith("ИНН "):
        rest = name[4:].lstrip().split(" ", 1)
        return rest[1].strip() if len(rest) == 2 and rest[0].isdigit() else name
    return name


def _purpose(record: Record) -> str | None:
    whole = record.get("НазначениеПлатежа")
    if whole is not None:
        return whole
    parts = [record.get(key) for key in PURPOSE_PARTS]
    return " ".join(p for p in parts if p) or None


def _unread_amounts(documents: list[Record]) -> Iterator[Warning]:
    for record in documents:
        if exchange_amount(record.get("Сумма")) is None:
            yield warning(
                "AMOUNT_UNREADABLE",
                f"Документ № {record.get('Номер') or '—'}: сумма «{record.get('Сумма') or ''}» "
                "не читается, документ не включён в выписку",
                _where(record.lines.first, record.lines.last),
            )
