"""Statements exported for accounting (1CClientBankExchange, MT940, camt.053), generated along
independent axes: how many read right, per axis value, and how many are marked done while
wrong.

    python -m bench.export_accuracy [--seed 9045] [--count 400] [--speed 10000]

A file reads right when its status is the one its data calls for (``needs_check`` where the
file's own figures disagree or it prints no balances) and, for every account, the statement's
opening and closing balances, debit and credit sums and number of operations are the data's.
``--speed N`` also times one 1C file of N operations (whole read, best of three). The default
seed is one no test uses; numbers are reported, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from decimal import Decimal

from document_extraction.exchange import read_exchange
from recognition_corpus.compare_exports import export_differences
from recognition_corpus.exports import AXES, generate_exports


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=9045)
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--speed", type=int, default=10_000)
    args = parser.parse_args(argv if argv is not None else [])
    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    right = done_wrong = 0
    examples: list[tuple[str, list[str]]] = []
    started = time.perf_counter()
    items = generate_exports(args.seed, args.count)
    for item in items:
        diffs, status = export_differences(item)
        right += not diffs
        done_wrong += bool(diffs) and status == "done"
        if diffs and len(examples) < 5:
            examples.append((item.name, diffs[:3]))
        for axis in AXES:
            cell = tally[(axis, str(item.params[axis]).replace("\r\n", "CRLF").replace("\n", "LF"))]
            cell[0] += 1
            cell[1] += not diffs
    elapsed = time.perf_counter() - started
    print(
        f"seed {args.seed}: {right} of {len(items)} files right ({100 * right / len(items):.1f} %),"
    )
    print(f"  marked done while wrong: {done_wrong}; {elapsed:.1f} s in all")
    for (axis, value), (files, ok) in sorted(tally.items(), key=lambda kv: kv[1][1] / kv[1][0]):
        print(f"  {axis:>13} = {value:<22} {ok:>4} / {files:<4} {100 * ok / files:5.1f} %")
    for name, diffs in examples:
        print(f"  {name}: {'; '.join(diffs)}")
    if args.speed:
        print(f"one 1C file of {args.speed} operations: {_speed(args.speed):.3f} s (best of 3)")


def _speed(operations: int) -> float:
    """Seconds to read a 1C file of ``operations`` payments into one account (best of 3)."""
    lines = [
        "1CClientBankExchange",
        "ВерсияФормата=1.03",
        "Кодировка=Windows",
        "РасчСчет=40702810900000000001",
    ]
    lines += [
        "СекцияРасчСчет",
        "ДатаНачала=01.01.2024",
        "ДатаКонца=31.12.2024",
        "РасчСчет=40702810900000000001",
    ]
    amount = Decimal("123.45")
    lines += ["НачальныйОстаток=0.00", f"ВсегоПоступило={amount * operations}", "ВсегоСписано=0.00"]
    lines += [f"КонечныйОстаток={amount * operations}", "КонецРасчСчет"]
    for k in range(operations):
        lines += [
            "СекцияДокумент=Платежное поручение",
            f"Номер={k + 1}",
            "Дата=15.06.2024",
            f"Сумма={amount}",
            "ПлательщикСчет=40702810100000000002",
            'Плательщик1=ООО "Контрагент"',
            "ПлательщикИНН=7701234567",
            "ПлательщикКПП=770101001",
            "ПлательщикБИК=044525999",
            'ПлательщикБанк1=ПАО "Банк"',
            "ПолучательСчет=40702810900000000001",
            "ДатаПоступило=15.06.2024",
            'Получатель1=ООО "Заёмщик"',
            "ПолучательИНН=7702345678",
            "НазначениеПлатежа=Оплата по договору № 1",
            "КонецДокумента",
        ]
    lines.append("КонецФайла")
    data = "\r\n".join(lines).encode("cp1251")
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        read = read_exchange(data)
        best = min(best, time.perf_counter() - started)
        assert read.extraction.status == "done", read.extraction.documents[0].warnings[:2]
    return best


if __name__ == "__main__":
    main(sys.argv[1:])
