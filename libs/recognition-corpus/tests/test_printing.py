"""Page setup of printed workbooks: a printed form shows every value it holds."""

from __future__ import annotations

from recognition_corpus.layout import Sheet
from recognition_corpus.printing import PrintSetup, _Metrics, _points, _table, _widths


def test_balances_above_and_below_the_table_fit_their_columns() -> None:
    # Balances beside their labels in a narrow column of dates and numbers: a spreadsheet
    # prints a number that does not fit as "###" or rounds it, which no reader could undo.
    sheet = Sheet("Выписка")
    sheet.add(["Выписка по счету BY27BAPB30124217456030164300"])
    sheet.add(["Остаток на начало:", -1_050_541.07])
    sheet.add(["Дата", "№", "Сумма", "Контрагент", "Назначение платежа"])
    for day in range(1, 4):
        sheet.add([f"0{day}.09.2025", "7", 12.5, "ООО «Альфа»", "Оплата"])
    sheet.add(["Остаток на конец:", -109_308.42])
    setup = PrintSetup()
    metrics = _Metrics(setup)
    widths = _widths(sheet, _table(sheet), setup, metrics)
    assert _points(widths[1]) >= metrics.width("-1050541.07")
