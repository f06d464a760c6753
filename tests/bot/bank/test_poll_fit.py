"""Which questions fit a native quiz poll, and `questions stats` counting them per topic."""

from __future__ import annotations

from pathlib import Path

from bot.bank.loader import check_bank
from bot.bank.poll_fit import PollFit, fits_poll
from bot.bank.stats import bank_stats, format_stats

FIXTURES = Path(__file__).parents[2] / "fixtures" / "bank"


def test_code_blocks_do_not_fit_short_prose_does() -> None:
    bank, _ = check_bank([FIXTURES])
    fit = PollFit()
    assert {q.id for q in bank.questions.values() if fit(q, "en")} == {"fx-001", "fx-101", "fx-102"}
    assert all(fit(q, "tr") == fits_poll(q, "tr") for q in bank.questions.values())


def test_stats_count_poll_questions_per_topic() -> None:
    bank, _ = check_bank([FIXTURES])
    stats = bank_stats(bank.questions.values())
    assert stats["topics"]["sync-basics"]["poll_fit"] == {"en": 1, "tr": 1, "all": 1}
    assert stats["topics"]["leakage-basics"]["poll_fit"]["all"] == 2
    table = format_stats(stats)
    header, *rows = table.splitlines()
    assert header.split()[-1] == "poll"
    assert next(row for row in rows if row.startswith("sync-basics")).split()[-1] == "1"
    assert next(row for row in rows if row.startswith("all")).split()[-1] == "3"
