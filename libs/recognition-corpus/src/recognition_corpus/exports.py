"""Statements as banks export them for accounting (1CClientBankExchange, MT940, camt.053),
generated along independent axes with the truth they were built from.

    generate_exports(seed, count) -> list[Export]
    Export(name, params, data, truth)  truth: one TruthStatement per account

Every file is built from one set of accounts, daily sections and payments; the axes decide how
it is written (format, version, encoding, line ends, sections and accounts per file, optional
keys left out, document kinds) and whether the file's own figures disagree (a section's printed
turnovers off by 1,000, which a reader must flag). Truth is the data, never a reader's output.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

CENT = Decimal("0.01")
AXES: dict[str, tuple[Any, ...]] = {
    "format": ("1c", "1c", "1c", "mt940", "camt"),
    "version": ("1.01", "1.02", "1.03"),
    "encoding": ("cp1251", "utf-8", "utf-8 says Windows"),
    "line_end": ("\r\n", "\n"),
    "accounts": (1, 1, 2, 3),
    "days": (1, 2, 5, 12),
    "per_day": (0, 1, 3, 6),
    "layout": ("header+sections", "header+sections", "no header", "no sections"),
    "optional": ("all keys", "no КПП", "purpose split", "name with ИНН", "no sender"),
    "kinds": ("payment orders", "mixed"),
    "header_dates": ("good", "good", "malformed"),
    "totals": ("agree", "agree", "agree", "off by 1000"),
}
KINDS = ("Платежное поручение", "Банковский ордер", "Платежное требование", "Инкассовое поручение")
COMPANIES = (
    ('ООО "Ромашка"', "7701234567", "770101001"),
    ('АО "Северный ветер"', "7811234560", "781101001"),
    ("ИП Смирнова Ольга Петровна", "500100732259", None),
    ('ООО "Транс-Логистик"', "5402123456", "540201001"),
)
BANK = ('ПАО "Банк Пример" г. Москва', "044525999")


@dataclass(frozen=True)
class Payment:
    day: datetime.date
    number: str
    amount: Decimal
    direction: str  # "debit" | "credit", as the account's statement sees it
    counterparty: tuple[str, str, str | None]
    counterparty_account: str
    purpose: str
    kind: str
    transfer_to: str | None = None  # another account of the holder


@dataclass
class TruthStatement:
    account: str
    currency: str
    opening: Decimal | None
    closing: Decimal | None
    debits: Decimal
    credits: Decimal
    count: int
    status: str  # what a reader should say: "done" or "needs_check"

    def as_dict(self) -> dict[str, Any]:
        money = ("opening", "closing", "debits", "credits")
        return {k: (str(v) if k in money and v is not None else v) for k, v in vars(self).items()}


@dataclass
class Export:
    name: str
    params: dict[str, Any]
    data: bytes
    truth: list[TruthStatement] = field(default_factory=list)


@dataclass
class _Account:
    number: str
    currency: str
    opening: Decimal
    days: list[tuple[datetime.date, Decimal, list[Payment]]] = field(default_factory=list)


def generate_exports(seed: int, count: int) -> list[Export]:
    """``count`` files, the same for a seed; file ``k`` does not depend on ``count``."""
    return [export(seed, k) for k in range(count)]


def export(seed: int, k: int) -> Export:
    rng = random.Random(f"{seed}:{k}:export")  # noqa: S311 - test data
    params = {axis: rng.choice(values) for axis, values in AXES.items()}
    if params["format"] != "1c":
        params.update(version="n/a", layout="n/a", optional="n/a", kinds="n/a")
        params["header_dates"] = "n/a"
    accounts = _accounts(rng, params)
    writer = {"1c": _onec, "mt940": _mt940, "camt": _camt}[params["format"]]
    text = writer(accounts, params)
    data = _encode(text, params)
    return Export(f"export-{seed}-{k:04d}", params, data, _truth(accounts, params))


def _accounts(rng: random.Random, params: dict[str, Any]) -> list[_Account]:
    currency = "RUB" if params["format"] == "1c" else rng.choice(("EUR", "USD", "KZT"))
    code = {"RUB": "810", "EUR": "978", "USD": "840", "KZT": "398"}[currency]
    accounts = [
        _Account(f"40702{code}{rng.randrange(10**11, 10**12)}", currency, _money(rng, 10**6))
        for _ in range(params["accounts"])
    ]
    start = datetime.date(2024, rng.randrange(1, 12), 1)
    number = rng.randrange(100, 900)
    for index, account in enumerate(accounts):
        balance = account.opening
        for offset in range(params["days"]):
            day = start + datetime.timedelta(days=offset)
            payments = []
            for _ in range(params["per_day"]):
                number += 1
                payments.append(_payment(rng, params, day, str(number), accounts, index))
            credits = sum((p.amount for p in payments if p.direction == "credit"), Decimal(0))
            debits = sum((p.amount for p in payments if p.direction == "debit"), Decimal(0))
            account.days.append((day, balance, payments))
            balance += credits - debits
    return accounts


def _payment(
    rng: random.Random,
    params: dict[str, Any],
    day: datetime.date,
    number: str,
    accounts: list[_Account],
    index: int,
) -> Payment:
    transfer = len(accounts) > 1 and rng.random() < 0.15 and params["format"] == "1c"
    kind = KINDS[0] if params["kinds"] != "mixed" else rng.choice(KINDS)
    other = rng.choice(COMPANIES)
    return Payment(
        day=day,
        number=number,
        amount=_money(rng, 500_000),
        direction="debit" if transfer or rng.random() < 0.5 else "credit",
        counterparty=other,
        counterparty_account=f"40702810{rng.randrange(10**11, 10**12)}",
        purpose=f"Оплата по счёту № {rng.randrange(1, 999)} от {day:%d.%m.%Y}, в т.ч. НДС 20 %",
        kind=kind,
        transfer_to=accounts[(index + 1) % len(accounts)].number if transfer else None,
    )


def _money(rng: random.Random, top: int) -> Decimal:
    return (Decimal(rng.randrange(100, top * 100)) * CENT).quantize(CENT)


def _credits_from_transfers(accounts: list[_Account]) -> dict[str, list[Payment]]:
    """A transfer between the holder's accounts is money in for the receiving one."""
    received: dict[str, list[Payment]] = {}
    for account in accounts:
        for _, _, payments in account.days:
            for p in payments:
                if p.transfer_to is not None:
                    received.setdefault(p.transfer_to, []).append(p)
    return received


def _day_lines(account: _Account, received: dict[str, list[Payment]]) -> list[Any]:
    """(day, opening, credits, debits, closing) of each day of an account, transfers in
    counted."""
    out = []
    balance = account.opening
    for day, _, payments in account.days:
        inbound = [p for p in received.get(account.number, []) if p.day == day]
        credits = sum((p.amount for p in payments if p.direction == "credit"), Decimal(0))
        credits += sum((p.amount for p in inbound), Decimal(0))
        debits = sum((p.amount for p in payments if p.direction == "debit"), Decimal(0))
        out.append((day, balance, credits, debits, balance + credits - debits))
        balance += credits - debits
    return out


def _truth(accounts: list[_Account], params: dict[str, Any]) -> list[TruthStatement]:
    received = _credits_from_transfers(accounts)
    out = []
    for account in accounts:
        days = _day_lines(account, received)
        inbound = len(received.get(account.number, []))
        count = sum(len(p) for _, _, p in account.days) + inbound
        without_balances = params["layout"] == "no sections"
        flagged = without_balances or params["totals"] == "off by 1000"
        out.append(
            TruthStatement(
                account=account.number,
                currency=account.currency,
                opening=None if without_balances else days[0][1],
                closing=None if without_balances else days[-1][4],
                debits=sum((d[3] for d in days), Decimal(0)),
                credits=sum((d[2] for d in days), Decimal(0)),
                count=count,
                status="needs_check" if flagged else "done",
            )
        )
    return out


def _encode(text: str, params: dict[str, Any]) -> bytes:
    text = text.replace("\n", params["line_end"])
    encoding = params["encoding"]
    if encoding == "cp1251" and params["format"] != "camt":
        return text.encode("cp1251", errors="replace")
    return text.encode("utf-8")


# ---------------------------------------------------------------- 1CClientBankExchange


def _onec(accounts: list[_Account], params: dict[str, Any]) -> str:
    received = _credits_from_transfers(accounts)
    first = accounts[0].days[0][0]
    last = accounts[0].days[-1][0]
    lines: list[str] = []
    if params["layout"] != "no header":
        declared = "UTF-8" if params["encoding"] == "utf-8" else "Windows"
        start, end = f"{first:%d.%m.%Y}", f"{last:%d.%m.%Y}"
        if params["header_dates"] == "malformed":
            start, end = "31.02.2024", "2024/13/01"
        lines += ["1CClientBankExchange", f"ВерсияФормата={params['version']}"]
        lines += [f"Кодировка={declared}"]
        if params["optional"] != "no sender":
            lines.append("Отправитель=Банк-Клиент")
        lines += ["Получатель=Бухгалтерия предприятия", f"ДатаСоздания={last:%d.%m.%Y}"]
        lines += [f"ДатаНачала={start}", f"ДатаКонца={end}"]
        lines += [f"РасчСчет={a.number}" for a in accounts]
        lines += ["Документ=Платежное поручение"]
    if params["layout"] in ("header+sections", "no header"):
        for account in accounts:
            for index, (day, opening, credits, debits, closing) in enumerate(
                _day_lines(account, received)
            ):
                if params["totals"] == "off by 1000" and index == 0 and account is accounts[0]:
                    debits += 1000
                    closing -= 1000
                lines += [
                    "СекцияРасчСчет",
                    f"ДатаНачала={day:%d.%m.%Y}",
                    f"ДатаКонца={day:%d.%m.%Y}",
                    f"РасчСчет={account.number}",
                    f"НачальныйОстаток={opening}",
                    f"ВсегоПоступило={credits}",
                    f"ВсегоСписано={debits}",
                    f"КонечныйОстаток={closing}",
                    "КонецРасчСчет",
                ]
    holder = ('ООО "Заёмщик"', "7702345678", "770201001")
    for account in accounts:
        for _, _, payments in account.days:
            for p in payments:
                lines += _onec_document(p, account.number, holder, params)
    lines.append("КонецФайла")
    return "\n".join(lines) + "\n"


def _onec_document(
    p: Payment, account: str, holder: tuple[str, str, str | None], params: dict[str, Any]
) -> list[str]:
    if p.transfer_to is not None:
        payer, payer_account = holder, account
        receiver, receiver_account = holder, p.transfer_to
    elif p.direction == "debit":
        payer, payer_account = holder, account
        receiver, receiver_account = p.counterparty, p.counterparty_account
    else:
        payer, payer_account = p.counterparty, p.counterparty_account
        receiver, receiver_account = holder, account
    lines = [
        f"СекцияДокумент={p.kind}",
        f"Номер={p.number}",
        f"Дата={p.day - datetime.timedelta(days=int(p.number) % 2):%d.%m.%Y}",
        f"Сумма={p.amount}",
    ]
    for side, who, number in (
        ("Плательщик", payer, payer_account),
        ("Получатель", receiver, receiver_account),
    ):
        name, inn, kpp = who
        lines.append(f"{side}Счет={number}")
        if side == "Плательщик":
            lines.append(
                f"ДатаСписано={p.day:%d.%m.%Y}" if p.direction == "debit" else "ДатаСписано="
            )
        else:
            lines.append(
                f"ДатаПоступило={p.day:%d.%m.%Y}" if p.direction == "credit" else "ДатаПоступило="
            )
        if params["optional"] == "name with ИНН":
            lines.append(f"{side}=ИНН {inn} {name}")
        else:
            lines += [f"{side}={name}", f"{side}1={name}"]
        lines.append(f"{side}ИНН={inn}")
        if params["optional"] != "no КПП":
            lines.append(f"{side}КПП={kpp or 0}")
        lines += [f"{side}РасчСчет={number}", f"{side}Банк1={BANK[0]}", f"{side}БИК={BANK[1]}"]
    if params["optional"] == "purpose split":
        half = len(p.purpose) // 2
        lines += [
            f"НазначениеПлатежа1={p.purpose[:half]}",
            f"НазначениеПлатежа2={p.purpose[half:]}",
        ]
    else:
        lines.append(f"НазначениеПлатежа={p.purpose}")
    lines += ["ВидОплаты=01", "Очередность=5", "КонецДокумента"]
    return lines


# ---------------------------------------------------------------- MT940


def _swift_money(value: Decimal) -> str:
    return f"{abs(value):.2f}".replace(".", ",")


def _mt940(accounts: list[_Account], params: dict[str, Any]) -> str:
    lines: list[str] = []
    for account in accounts:
        days = _day_lines(account, {})
        for index, ((day, opening, _, _, closing), (_, _, payments)) in enumerate(
            zip(days, account.days, strict=True)
        ):
            final = index == len(days) - 1
            if params["totals"] == "off by 1000" and index == 0 and account is accounts[0]:
                closing -= 1000
            sign = "C" if opening >= 0 else "D"
            lines += [
                f":20:STMT{day:%y%m%d}{index}",
                f":25:{account.number}",
                f":28C:{index + 1}/1",
                f":{'60F' if index == 0 else '60M'}:{sign}{day:%y%m%d}{account.currency}"
                f"{_swift_money(opening)}",
            ]
            for p in payments:
                mark = "D" if p.direction == "debit" else "C"
                lines += [
                    f":61:{p.day:%y%m%d}{p.day:%m%d}{mark}{_swift_money(p.amount)}NTRF{p.number}//B{p.number}",
                    f":86:/NAME/{p.counterparty[0]}/IBAN/{p.counterparty_account}/REMI/{p.purpose}",
                ]
            sign = "C" if closing >= 0 else "D"
            lines.append(
                f":{'62F' if final else '62M'}:{sign}{day:%y%m%d}{account.currency}"
                f"{_swift_money(closing)}"
            )
            lines.append("-")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- camt.053


def _xml_escape(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def _camt(accounts: list[_Account], params: dict[str, Any]) -> str:
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">',
        "  <BkToCstmrStmt>",
        "    <GrpHdr><MsgId>MSG1</MsgId><CreDtTm>2024-12-31T10:00:00</CreDtTm></GrpHdr>",
    ]
    for account in accounts:
        days = _day_lines(account, {})
        for index, ((day, opening, credits, debits, closing), (_, _, payments)) in enumerate(
            zip(days, account.days, strict=True)
        ):
            if params["totals"] == "off by 1000" and index == 0 and account is accounts[0]:
                debits += 1000
            out += [
                "    <Stmt>",
                f"      <Id>{account.number}-{index}</Id>",
                f"      <FrToDt><FrDtTm>{day}T00:00:00</FrDtTm>"
                f"<ToDtTm>{day}T23:59:59</ToDtTm></FrToDt>",
                f"      <Acct><Id><Othr><Id>{account.number}</Id></Othr></Id>"
                f'<Ccy>{account.currency}</Ccy><Ownr><Nm>ООО "Заёмщик"</Nm></Ownr></Acct>',
            ]
            for code, value in (("OPBD", opening), ("CLBD", closing)):
                out.append(
                    f"      <Bal><Tp><CdOrPrtry><Cd>{code}</Cd></CdOrPrtry></Tp>"
                    f'<Amt Ccy="{account.currency}">{abs(value):.2f}</Amt>'
                    f"<CdtDbtInd>{'CRDT' if value >= 0 else 'DBIT'}</CdtDbtInd>"
                    f"<Dt><Dt>{day}</Dt></Dt></Bal>"
                )
            out.append(
                f"      <TxsSummry><TtlCdtNtries><Sum>{credits:.2f}</Sum></TtlCdtNtries>"
                f"<TtlDbtNtries><Sum>{debits:.2f}</Sum></TtlDbtNtries></TxsSummry>"
            )
            for p in payments:
                indicator = "DBIT" if p.direction == "debit" else "CRDT"
                party = "Cdtr" if p.direction == "debit" else "Dbtr"
                out += [
                    "      <Ntry>",
                    f'        <Amt Ccy="{account.currency}">{p.amount:.2f}</Amt>',
                    f"        <CdtDbtInd>{indicator}</CdtDbtInd><Sts>BOOK</Sts>",
                    f"        <BookgDt><Dt>{p.day}</Dt></BookgDt><ValDt><Dt>{p.day}</Dt></ValDt>",
                    f"        <AcctSvcrRef>{p.number}</AcctSvcrRef>",
                    "        <NtryDtls><TxDtls><RltdPties>"
                    f"<{party}><Nm>{_xml_escape(p.counterparty[0])}</Nm></{party}>"
                    f"<{party}Acct><Id><Othr><Id>{p.counterparty_account}</Id></Othr></Id></{party}Acct>"
                    f"</RltdPties><RmtInf><Ustrd>{_xml_escape(p.purpose)}</Ustrd></RmtInf>"
                    "</TxDtls></NtryDtls>",
                    "      </Ntry>",
                ]
            out.append("    </Stmt>")
    out += ["  </BkToCstmrStmt>", "</Document>"]
    return "\n".join(out) + "\n"
