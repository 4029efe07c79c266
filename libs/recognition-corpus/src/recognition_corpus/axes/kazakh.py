"""Trial balances of the Kazakh edition of 1C in its Kazakh interface: the words it prints, the
four-digit chart of accounts of Kazakhstan, and the axes its form does not vary."""

from __future__ import annotations

import datetime
from typing import Final

from recognition_corpus.axes.draw import NOT_APPLICABLE, Draw
from recognition_corpus.data import ChartAccount

# Типовой план счетов (приказ МФ РК № 1025): four digits, no subaccounts in the general form.
KZ_ACCOUNTS: Final = (
    ChartAccount("1010", "Денежные средства в кассе"),
    ChartAccount("1030", "Денежные средства на текущих банковских счетах"),
    ChartAccount("1210", "Краткосрочная дебиторская задолженность покупателей и заказчиков"),
    ChartAccount("1310", "Сырье и материалы"),
    ChartAccount("1330", "Товары"),
    ChartAccount("1420", "Налог на добавленную стоимость", distinct=True),
    ChartAccount("2410", "Основные средства"),
    ChartAccount("2420", "Амортизация основных средств"),
    ChartAccount("3110", "Корпоративный подоходный налог, подлежащий уплате", distinct=True),
    ChartAccount("3130", "Налог на добавленную стоимость"),
    ChartAccount("3310", "Краткосрочная кредиторская задолженность поставщикам и подрядчикам"),
    ChartAccount("3350", "Краткосрочная задолженность по оплате труда"),
    ChartAccount("5010", "Уставный капитал"),
    ChartAccount("5610", "Нераспределенная прибыль (непокрытый убыток) отчетного года"),
    ChartAccount("6010", "Доход от реализации продукции и оказания услуг"),
    ChartAccount("7010", "Себестоимость реализованной продукции и оказанных услуг"),
    ChartAccount("7210", "Административные расходы"),
)
# Accounts every general form holds; the capital takes what the others leave out of balance.
MUST_CODES: Final = frozenset({"3310", "5010"})
BALANCING_CODE: Final = "5010"

GROUPS: Final = ("Кезең басындағы сальдо", "Кезеңдегі айналым", "Кезең соңындағы сальдо")
CODE_CAPTION: Final = "Шот"
NAME_CAPTION: Final = "Шоттың атауы"
TITLES: Final = ("Айналым-сальдо ведомосі", "Шоттар бойынша айналым-сальдо ведомосі")
TOTALS: Final = ("Барлығы", "Жиыны")
ORGANISATIONS: Final = (
    "ТОО «Алтын Дала»",
    "ТОО «Каспий Логистик»",
    "АО «Жетісу Құрылыс»",
    "ТОО «Сарыарқа Трейд»",
    "ИП Сейтқали А.Б.",
)
MONTHS: Final = (
    "қаңтар", "ақпан", "наурыз", "сәуір", "мамыр", "маусым",
    "шілде", "тамыз", "қыркүйек", "қазан", "қараша", "желтоқсан",
)  # fmt: skip

# Axes whose Russian words the Kazakh form does not print: their effect is fixed.
FIXED: Final = {
    "variant": "general",
    "caption_wording": NOT_APPLICABLE,
    "side_wording": "full",
    "word_order": "group_side",
    "indicator": "none",
    "quantity": "none",
    "kol_names": NOT_APPLICABLE,
    "corr_columns": "none",
    "currency_columns": "none",
    "title_units": "none",
    "title_currency": "none",
    "filter_line": "none",
    "data_line": "none",
    "sections": "none",
    "totals_second": "none",
    "totals_wording": NOT_APPLICABLE,
    "chart": NOT_APPLICABLE,
}


def localise(draw: Draw) -> None:
    """The axes the Kazakh form leaves as they are set, the title's organisation without a
    tax label (its БСН line is the program's own, not in the title)."""
    for axis, value in FIXED.items():
        draw.effective(axis, value)
    if draw["title_org"] in ("with_tax", "label", "label_with_tax"):
        draw.effective("title_org", "own_line")
    if draw["totals_position"] == "name":
        draw.effective("totals_position", "label")


def period(form: str, start: datetime.date, end: datetime.date) -> str:
    """The period as the Kazakh form prints it: dates after «Кезең», or months and the year."""
    if form in ("title_month", "line_months", "title_year") and start.year == end.year:
        first, last = MONTHS[start.month - 1], MONTHS[end.month - 1]
        months = first if first == last else f"{first} - {last}"
        return f"Кезең: {start.year} ж. {months}"
    return f"Кезең: {start:%d.%m.%Y} - {end:%d.%m.%Y}"
