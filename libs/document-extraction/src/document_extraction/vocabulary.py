"""Every word the layouts read captions and labels by, in one place: a bank's or a program's
new caption word is one line here.

Words are as ``captions.read_caption`` leaves them: lower case, ё as е, dots dropped, word forms
and abbreviations folded to one word (``CANONICAL``). Sets are named for what a column or a line
holding them is."""

from __future__ import annotations

# --- caption words: one word each ------------------------------------------------------------

DATE_WORD = "<дата>"
NUMBER_WORD = "<число>"

# Word forms and abbreviations (after lower case, ё as е, dots dropped) to one word each.
# Short captions as OCR misreads them: whole words only, never the part of a longer word
# read without a space ("валют" is no "вал" and "ют"). No caption says these otherwise,
# An ERP's general-ledger balance list (SAP «Балансы счетов Главной книги»): «Сальдо переноса»
# opens, «Накопленное сальдо» closes, «Дебет отч. периода» is a turnover, «Краткий текст»
# names the account.
ERP_WORDS = {
    "переноса": "начало",
    "перенесенное": "начало",
    "накопленное": "конец",
    "отч": "период",
    "отчетного": "период",
    "краткий": "наименование",
}

# The Kazakh edition of 1C in its Kazakh interface: each caption word as the Russian one it
# means ("Кезең басындағы сальдо" is «Сальдо на начало периода»).
KAZAKH_WORDS = {
    "шот": "счет",
    "шоттар": "счет",
    "шоттың": "счет",
    "шотының": "счет",
    "коды": "код",
    "атауы": "наименование",
    "кезең": "период",
    "кезеңдегі": "период",
    "кезеңнің": "период",
    "басындағы": "начало",
    "басына": "начало",
    "бастапқы": "начало",
    "соңындағы": "конец",
    "соңына": "конец",
    "соңғы": "конец",
    "айналым": "оборот",
    "айналымы": "оборот",
    "айналымдар": "оборот",
    "сомасы": "сумма",
    "субконто": "субконто",
}

# and words this short are matched exactly.
OCR_READINGS = {
    # Bold "ДТ" and "ОБ." read as "АТ", "Ar", "ОВ.".
    "ат": "дебет",
    "ar": "дебет",
    "аг": "дебет",
    "ов": "оборот",
    # "К-Т" with its К and hyphen read as one letter; "КТ" with its Т read as r.
    "ют": "кредит",
    "kr": "кредит",
    # "№" read as the Latin letters of its strokes.
    "ne": "№",
    # "ИНН" with its И read as Н, or all of it in Latin strokes.
    "ннн": "инн",
    "whh": "инн",
    "uhh": "инн",
}
CANONICAL = {
    "сальдо": "сальдо",
    "остаток": "сальдо",
    "остатки": "сальдо",
    "ост": "сальдо",
    "начало": "начало",
    "начала": "начало",
    "начальное": "начало",
    "начальный": "начало",
    "нач": "начало",
    "входящее": "начало",
    "входящий": "начало",
    "входящие": "начало",
    "вход": "начало",
    "вх": "начало",
    "конец": "конец",
    "конца": "конец",
    "конечное": "конец",
    "конечный": "конец",
    "кон": "конец",
    "исходящее": "конец",
    "исходящий": "конец",
    "исходящие": "конец",
    "исх": "конец",
    "оборот": "оборот",
    "обороты": "оборот",
    "оборотов": "оборот",
    "оборота": "оборот",
    "об": "оборот",
    "дебет": "дебет",
    "дебета": "дебет",
    "дебету": "дебет",
    "дебетовый": "дебет",
    "дебетовое": "дебет",
    "актив": "дебет",
    "активное": "дебет",
    "активный": "дебет",
    "деб": "дебет",
    "дб": "дебет",
    "дт": "дебет",
    "д": "дебет",
    "кредит": "кредит",
    "кредита": "кредит",
    "кредиту": "кредит",
    "кредитовый": "кредит",
    "кредитовое": "кредит",
    "пассив": "кредит",
    "пассивное": "кредит",
    "пассивный": "кредит",
    "кред": "кредит",
    "кр": "кредит",
    "кт": "кредит",
    "к": "кредит",
    "счет": "счет",
    "счета": "счет",
    "счету": "счет",
    "сч": "счет",
    "субсчет": "счет",
    "наименование": "наименование",
    "наим": "наименование",
    "название": "наименование",
    "корреспондирующий": "корр",
    "корреспондирующего": "корр",
    "корр": "корр",
    "кор": "корр",
    "корсчет": "корр",
    "количество": "количество",
    "кол": "количество",
    "колво": "количество",
    "показатели": "показатели",
    "показатель": "показатели",
    "период": "период",
    "периода": "период",
    "итого": "итого",
    "всего": "итого",
    "итог": "итого",
    # English captions of foreign banks' and re-exported statements.
    "date": "дата",
    # Polish, Italian, Romanian exports' "Data operacji"; OCR's reading of "Дата" as well.
    "data": "дата",
    "amount": "сумма",
    "sum": "сумма",
    "debit": "дебет",
    "credit": "кредит",
    "balance": "сальдо",
    "opening": "начало",
    "closing": "конец",
    "description": "назначение",
    "details": "назначение",
    "memo": "назначение",
    "narrative": "назначение",
    "purpose": "назначение",
    "payee": "контрагент",
    "payer": "контрагент",
    "counterparty": "контрагент",
    "beneficiary": "контрагент",
    "reference": "номер",
    "number": "номер",
    "type": "тип",
    "account": "счет",
    "currency": "валюта",
    "status": "статус",
    "state": "статус",
    "валюта": "валюта",
    "валюте": "валюта",
    "валюты": "валюта",
    "вал": "валюта",
    **OCR_READINGS,
    **KAZAKH_WORDS,
    **ERP_WORDS,
}
# Words that carry no meaning in a caption.
STOP_WORDS = frozenset(
    {"на", "за", "по", "в", "во", "и", "с", "со", "из", "от", "до", "для", "г", "год", "года"}
)


# --- trial balance money and label columns ---------------------------------------------------

UNNAMED_WORDS = frozenset({"сумма", "дебет", "кредит", "период"})
INCOME_WORDS = frozenset({"приход", "поступление", "поступило", "получено"})
OUTGO_WORDS = frozenset({"расход", "выбытие", "выбыло", "списание", "списано"})
CODE_WORDS = frozenset({"код", "счет", "субконто", "шифр"})
LABEL_WORDS = frozenset(
    {
        "субконто",
        "контрагент",
        "контрагенты",
        "номенклатура",
        "статья",
        "покупатель",
        "поставщик",
        "сотрудник",
        "сотрудники",
        "работник",
        "договор",
        "договоры",
        "организация",
    }
)
INDICATOR_TEXTS = frozenset({"бу", "ну", "пр", "вр", "кол.", "кол"})


# --- statement columns -------------------------------------------------------------------------

DEBIT_WORDS = frozenset({"дебет", "списание", "списания", "расход", "расходы", "снятие"})
CREDIT_WORDS = frozenset(
    {"кредит", "поступление", "поступления", "зачисление", "зачисления", "пополнение", "приход"}
)
NAME_WORDS = frozenset(
    {
        "корреспондент",
        "корреспондента",
        "контрагент",
        "контрагента",
        "получатель",
        "плательщик",
        "наименование",
        "получателя",
        "плательщика",
    }
)
# Qualifiers that make a counterparty caption something else than its name.
NOT_NAME_WORDS = frozenset({"страна", "адрес", "город", "код", "телефон", "тип", "вид"})
PURPOSE_WORDS = frozenset({"назначение", "содержание", "основание", "детали", "описание"})
DATE_PREFERRED = frozenset(
    {"операции", "проводки", "транзакции", "совершения", "оплаты", "operation", "transaction"}
)
TAX_REGISTRATION_WORDS = frozenset({"налогового", "налоговый", "кпп"})
EQUIVALENT_WORDS = frozenset({"эквивалент", "экв"})
BIC_WORDS = frozenset({"бик", "bic", "swift", "мфо"})
BANK_WORDS = frozenset({"банк", "банка"})
TAX_ID_WORDS = frozenset({"унп", "инн", "иин", "бин"})
DIRECTION_WORDS = frozenset({"тип", "направление", "признак"})
AMOUNT_WORDS = frozenset({"сумма", "оборот"})
BALANCE_WORDS = frozenset({"сальдо", "баланс"})
STATUS_WORDS = frozenset({"статус", "состояние"})
ACCOUNT_WORDS = frozenset({"счет", "iban", "иик", "р"})
NUMBER_WORDS = frozenset({"№", "номер"})
# «№ п/п», «Порядковый номер» (its capital read away by the word splitter): a line's count.
SEQUENCE_WORDS = frozenset({"п", "пп", "порядковый", "орядковый"})
CARD_WORDS = frozenset({"карты", "карта"})


# --- a statement line's direction, as a cell says it -------------------------------------------

CREDIT_FLAGS = frozenset(
    {
        "credit", "cr", "c", "in", "income", "кредит", "кт", "к", "кр", "пополнение",
        "поступление", "зачисление", "приход", "+", "зачислено", "поступило",
    }
)  # fmt: skip
DEBIT_FLAGS = frozenset(
    {
        "debit", "dr", "d", "out", "outcome", "expense", "дебет", "дт", "д", "списание",
        "расход", "снятие", "-", "списано", "выдача",
    }
)  # fmt: skip


# The two parties' blocks of a statement's line: money leaves the payer's account.
PAYER_WORDS = frozenset({"плательщик", "плательщика"})
RECEIVER_WORDS = frozenset({"получатель", "получателя"})

# Every word a caption role looks for: a misread caption word is taken for the one it is nearest.
CAPTION_WORDS: frozenset[str] = frozenset().union(
    {"дебет", "кредит", "оборот", "начало", "конец", "сальдо", "корр", "количество"},
    {"итого", "показатели", "наименование", "код", "валюта", "дата"},
    UNNAMED_WORDS, INCOME_WORDS, OUTGO_WORDS, CODE_WORDS, LABEL_WORDS,
    DEBIT_WORDS, CREDIT_WORDS, NAME_WORDS, NOT_NAME_WORDS, PURPOSE_WORDS,
    DATE_PREFERRED, TAX_REGISTRATION_WORDS, EQUIVALENT_WORDS, BIC_WORDS, BANK_WORDS,
    TAX_ID_WORDS, DIRECTION_WORDS, AMOUNT_WORDS, BALANCE_WORDS, STATUS_WORDS,
    ACCOUNT_WORDS, NUMBER_WORDS, CARD_WORDS,
)  # fmt: skip


# --- a statement's balance lines, by how their label starts --------------------------------------

# A day block's turnovers in a statement grouped by day («Обороты за день»): not its totals.
DAY_TOTALS_WORDS = ("за день", "за дату", "за сутки")

OPENING_BALANCE_LABELS = (
    "входящий остаток",
    "остаток на начало",
    "входящее сальдо",
    "сальдо на начало",
)
CLOSING_BALANCE_LABELS = (
    "исходящий остаток",
    "остаток на конец",
    "исходящее сальдо",
    "сальдо на конец",
)
