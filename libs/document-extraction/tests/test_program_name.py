"""The program's name a print sets on the organisation's line, glued to it on either side, is no
part of the organisation's name."""

from __future__ import annotations

import pytest

from document_extraction.titles import read_titles


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("1С:Бухгалтерия 8.3 ООО «Ромашка»", "ООО «Ромашка»"),
        ("ООО «Ромашка»1С:Предприятие 8", "ООО «Ромашка»"),
        ("ООО «Ромашка» 1С: Бухгалтерия предприятия, редакция 3.0", "ООО «Ромашка»"),
        ("1С:Бухгалтерия ООО «Ромашка»", "ООО «Ромашка»"),
        ("ИП Иванов И.И. 1C:Бухгалтерия 8", "ИП Иванов И.И."),
        ("Организация: ООО «1С-Рарус»", "ООО «1С-Рарус»"),
        ("ООО «Ромашка»", "ООО «Ромашка»"),
    ],
)
def test_the_program_name_is_left_out_of_the_organisation(line: str, name: str) -> None:
    titles = read_titles([[line], ["Оборотно-сальдовая ведомость за 2024 г."]], 2)
    assert titles.organisation is not None
    assert titles.organisation.name == name
