"""Codes and values in the words of a credit analyst: error codes, statuses, warnings,
locators, money and sizes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from recognition_contract import Locator, locator_to_wire


@dataclass(frozen=True)
class Explanation:
    code: str
    title: str
    text: str
    # What the analyst can do about it; empty when nothing but waiting helps.
    advice: str = ""


_TECHNICAL = (
    "Это техническая ошибка: повторите попытку, а если она повторится, сообщите администратору."
)

ERRORS: dict[str, Explanation] = {
    explanation.code: explanation
    for explanation in (
        Explanation(
            "TIMEOUT",
            "Истекло время обработки",
            "Сервис распознавания принял файл, но не прислал результат в отведённое время.",
            "Повторите попытку. Если снова не успеет — файл, возможно, слишком большой: "
            "разделите его на части.",
        ),
        Explanation(
            "NO_ACK",
            "Сервис распознавания не ответил",
            "Файл несколько раз отправлялся на распознавание, но сервис так и не подтвердил, "
            "что взял его в работу: вероятно, сервис остановлен или перегружен.",
            "Повторите попытку позже.",
        ),
        Explanation(
            "UNSUPPORTED_FORMAT",
            "Формат не поддерживается",
            "Принимаются книги XLS, XLSX, XLSB, файлы PDF, PNG и JPG и выписки, выгруженные из "
            "банка для 1С (.txt), в формате MT940 (.sta, .mt940) и в формате ISO 20022 (.xml); "
            "содержимое файла должно соответствовать его расширению.",
            "Сохраните документ в одном из этих форматов и загрузите снова.",
        ),
        Explanation(
            "PASSWORD_PROTECTED",
            "Файл защищён паролем",
            "Защищённая паролем книга или выписка зашифрована целиком: без пароля её не прочитать.",
            "Откройте файл, снимите пароль (в книге: Файл → Сведения → Защита книги → "
            "Зашифровать с использованием пароля, очистить поле), сохраните и загрузите снова.",
        ),
        Explanation(
            "UNREADABLE",
            "Файл не читается",
            "Файл повреждён, защищён паролем или не открывается как документ своего типа.",
            "Откройте файл у себя, снимите пароль или пересохраните его и загрузите заново.",
        ),
        Explanation(
            "FILE_READ_ERROR",
            "Файл не получен сервисом",
            "Сервис распознавания не смог забрать файл из хранилища.",
            _TECHNICAL,
        ),
        Explanation(
            "INVALID_FORMAT",
            "Неверная структура файла",
            "Файл открылся, но устроен не так, как положено файлу этого формата.",
            "Пересохраните файл из исходной программы (1С, Excel, банк-клиент) и загрузите снова.",
        ),
        Explanation(
            "INVALID_DOCUMENT",
            "Документ не распознан",
            "В файле не найдено ни оборотно-сальдовой ведомости, ни банковской выписки.",
            "Проверьте, тот ли файл загружен: нужна ОСВ или выписка по счёту.",
        ),
        Explanation(
            "RECOGNITION_FAILED",
            "Распознавание не удалось",
            "Документ найден, но извлечь из него таблицу с суммами не получилось.",
            "Попробуйте выгрузить документ заново (лучше в XLSX) или загрузите более чёткий скан.",
        ),
        Explanation(
            "SCHEMA_MISMATCH",
            "Несовместимый ответ сервиса",
            "Сервис распознавания ответил в формате, который система не понимает.",
            _TECHNICAL,
        ),
        Explanation(
            "NOT_IMPLEMENTED",
            "Такие документы пока не распознаются",
            "Сервис распознавания ещё не умеет обрабатывать документы этого вида.",
            "Обработайте документ вручную.",
        ),
        Explanation(
            "UNKNOWN_ERROR",
            "Непредвиденная ошибка",
            "При распознавании произошла ошибка, причина которой не определена.",
            _TECHNICAL,
        ),
        Explanation(
            "MAPPING_ERROR",
            "Результат не сохранён",
            "Файл распознан, но результат распознавания не удалось сохранить в системе.",
            _TECHNICAL,
        ),
        Explanation(
            "FILE_TOO_LARGE",
            "Файл слишком большой",
            "Размер файла превышает допустимый для загрузки.",
            "Разделите документ на части или сохраните его компактнее (например, в XLSX).",
        ),
        Explanation(
            "EMPTY_FILE",
            "Пустой файл",
            "В файле нет ни одного байта: вероятно, он не был сохранён до конца.",
            "Сохраните документ заново и загрузите его ещё раз.",
        ),
        Explanation(
            "FILE_NOT_RETRYABLE",
            "Повтор невозможен",
            "Повторить можно только попытку, завершившуюся ошибкой, истечением времени или "
            "отсутствием ответа, пока не исчерпан лимит попыток.",
        ),
        Explanation("FILE_NOT_FOUND", "Файл не найден", "Такого файла в системе нет."),
        Explanation(
            "STORAGE_UNAVAILABLE",
            "Хранилище недоступно",
            "Файл не удалось сохранить: хранилище файлов временно недоступно.",
            "Повторите загрузку позже.",
        ),
        Explanation(
            "BAD_REQUEST",
            "Некорректный запрос",
            "Файл не удалось передать на сервер.",
            "Обновите страницу и повторите загрузку.",
        ),
        Explanation(
            "MALFORMED_MULTIPART",
            "Передача файла прервалась",
            "Файл дошёл до сервера не полностью: соединение оборвалось или запрос повреждён. "
            "Файл не сохранён.",
            "Повторите загрузку.",
        ),
        Explanation(
            "DATABASE_UNAVAILABLE",
            "Система временно недоступна",
            "Файл не удалось зарегистрировать: база данных не ответила. Файл не сохранён.",
            "Повторите загрузку через минуту.",
        ),
    )
}


def explain(code: str | None) -> Explanation | None:
    """The explanation of an error code; an unknown code still gets a readable one."""
    if not code:
        return None
    return ERRORS.get(code) or Explanation(
        code, f"Ошибка {code}", "Ошибка, для которой нет описания.", _TECHNICAL
    )


FILE_STATUSES: dict[str, str] = {
    "UPLOADED": "В очереди",
    "PROCESSING": "Распознаётся",
    "RECOGNIZED": "Распознан",
    "NEEDS_CHECK": "Требует проверки",
    "ERROR": "Ошибка",
}

JOB_STATUSES: dict[str, str] = {
    "queued": "В очереди",
    "published": "Отправлен сервису",
    "processing": "Распознаётся",
    "done": "Распознан",
    "needs_check": "Требует проверки",
    "error": "Ошибка",
    "timeout": "Истекло время",
    "dlq": "Нет ответа сервиса",
}

# Where the analyst's review of a document stands (``review.service.review_state``).
REVIEW_STATES: dict[str, str] = {
    "recognised": "Распознан",
    "needs_check": "Требует проверки",
    "confirmed": "Подтверждён",
    "reopened": "Открыт снова",
}
REVIEW_TONES: dict[str, str] = {
    "recognised": "ok",
    "needs_check": "check",
    "confirmed": "done",
    "reopened": "check",
}

# The colour family of a status badge.
TONES: dict[str, str] = {
    "UPLOADED": "wait",
    "PROCESSING": "work",
    "RECOGNIZED": "ok",
    "NEEDS_CHECK": "check",
    "ERROR": "bad",
    "queued": "wait",
    "published": "wait",
    "processing": "work",
    "done": "ok",
    "needs_check": "check",
    "error": "bad",
    "timeout": "bad",
    "dlq": "bad",
}

WARNINGS: dict[str, str] = {
    "AMOUNT_OUTLIER": "Сумма вне масштаба документа",
    "ROW_BALANCE_MISMATCH": "Сальдо строки не сходится с оборотами",
    "PARENT_SUM_MISMATCH": "Счёт не равен сумме субсчетов",
    "TOTALS_MISMATCH": "«Итого» не равно сумме счетов",
    "DEBIT_CREDIT_MISMATCH": "Итог по дебету не равен итогу по кредиту",
    "ROW_WITHOUT_PARENT": "Строка без счёта-родителя",
    "ROW_WITHOUT_LABEL": "Строка без счёта и субконто",
    "NO_TOTALS": "Нет строки «Итого»",
    "NO_ROWS": "Нет строк с суммами",
    "BALANCE_MISMATCH": "Остатки не сходятся с оборотами",
    "BALANCE_MISSING": "Нет входящего или исходящего остатка",
    "DATE_OUTSIDE_PERIOD": "Дата операции вне периода выписки",
    "TAX_ID_CHECK_FAILED": "Не сходится контрольная цифра УНП/ИНН",
    "TAX_ID_UNREADABLE": "УНП/ИНН не прочитан",
    "IBAN_CHECK_FAILED": "Не сходится контрольный код счёта (IBAN)",
    "DEBIT_AND_CREDIT": "В строке заполнены и дебет, и кредит",
    "AMOUNT_UNREADABLE": "Сумма не прочитана",
    "AMOUNT_SEPARATOR_LOST": "Запятая суммы не прочитана: сумма сверена по строке",
    "AMOUNT_DIGITS_GLUED": "Сумма прочитана вместе с соседним числом: сверена по строке",
    "AMOUNT_PRECISION": "Больше двух знаков после запятой",
    "LOW_CONFIDENCE": "Низкая уверенность распознавания",
    "LOW_CONFIDENCE_ROW": "Строка прочитана неуверенно",
    "RUNNING_BALANCE_MISMATCH": "Остаток после операции не сходится",
    "BALANCES_FROM_RUNNING_BALANCE": "Остатки взяты из колонки остатка",
    "OPENING_BALANCE_NOT_PRINTED": "Входящий остаток не указан",
    "OPERATION_NOT_EXECUTED": "Непроведённые операции не учтены",
    "SIDES_UNKNOWN": "Стороны операций не определены",
    "SIGN_CONVENTION": "Стороны сумм определены по арифметике",
    "EMPTY_SUBCONTO": "Субконто без значения",
    "FILE_TYPE_MISMATCH": "Тип файла не совпадает с заявленным",
    "LOW_CONTRAST": "Низкая контрастность скана",
    "SHEET_SKIPPED": "Лист пропущен",
    "SHEETS_SKIPPED": "Листы пропущены",
    "SHEET_TRUNCATED": "Лист прочитан не полностью",
    "SHEET_TOO_LARGE": "Лист слишком большой",
    "SHEET_UNREADABLE": "Лист не читается",
    "PASSWORD_PROTECTED": "Файл защищён паролем",
    "LEGACY_WARNING": "Замечание сервиса",
}


def warning_title(code: str | None) -> str:
    if not code:
        return "Замечание"
    return WARNINGS.get(code, code)


def locator_text(locator: Locator | Mapping[str, Any] | None) -> str:
    """Where to look in the source: «лист «ОСВ», строка 14, столбец D» or «страница 2»; of a
    document's locator or of one as the API and the reconciliation show it."""
    if isinstance(locator, Locator):
        locator = locator_to_wire(locator)
    if not locator:
        return ""
    parts = []
    if locator.get("sheet") is not None:
        parts.append(f"лист «{locator['sheet']}»")
    if locator.get("page") is not None:
        parts.append(f"страница {locator['page']}")
    if locator.get("row") is not None:
        row = f"строка {locator['row']}"
        if locator.get("row_end") is not None and locator["row_end"] != locator["row"]:
            row = f"строки {locator['row']}–{locator['row_end']}"
        parts.append(row)
    if locator.get("column") is not None:
        parts.append(f"столбец {locator['column']}")
    return ", ".join(parts)


NBSP = "\u00a0"


# An amount inside a message («15300.00»): never part of a date (01.04.2025) or a longer number.
_AMOUNT_IN_TEXT = re.compile(r"(?<![\d.,])-?\d+\.\d{2}(?![\d.])")


def amounts_in(text: str | None) -> str:
    """A message with its amounts written as the tables write them («15 300,00»)."""
    return _AMOUNT_IN_TEXT.sub(lambda m: money(m.group()), text or "")


# A fractional number of four or more whole digits: an amount, not an account code (60.1).
_DECIMAL = re.compile(r"-?\d{4,}\.(\d+)")


def number_text(text: str) -> str:
    """A sheet's cell as the tables write numbers: an amount's fraction of up to two digits as
    money («23965591.5» → «23 965 591,50»), a longer one with all its digits; codes (60.1),
    whole numbers (years, row numbers) and words as they are."""
    match = _DECIMAL.fullmatch(text)
    if match is None:
        return text
    if len(match.group(1)) <= 2:
        return money(text)
    whole, _, fraction = text.partition(".")
    return money(whole).removesuffix(",00") + "," + fraction


def money(value: Any) -> str:
    """``-1234567.8`` as «−1 234 567,80»; nothing for an empty amount (accountants leave zero
    cells empty too)."""
    if value is None or value == "":
        return ""
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    sign = "−" if amount < 0 else ""
    whole, _, cents = f"{abs(amount):.2f}".partition(".")
    groups: list[str] = []
    while whole:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    return f"{sign}{NBSP.join(groups)},{cents}"


def size(value: int | None) -> str:
    if value is None:
        return ""
    if value < 1024:
        return f"{value} Б"
    if value < 1024 * 1024:
        return f"{value / 1024:.1f} КБ".replace(".", ",")
    return f"{value / (1024 * 1024):.1f} МБ".replace(".", ",")
