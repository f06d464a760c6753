"""--workers N: several webhook workers of one bot keep, together, to Telegram's limits for the bot."""

from __future__ import annotations

import argparse

import pytest

from adapters.platform_commands import telegram_option_problem
from adapters.telegram.delivery import Pacing, TelegramPort


def test_each_of_three_workers_keeps_a_third_of_every_limit() -> None:
    whole = Pacing()
    part = whole.shared(3)
    assert (part.overall, part.group, part.private) == ((9, 1.0), (6, 60.0), (1, 3.0))
    for name in ("overall", "group", "private"):
        assert 3 * getattr(part, name)[0] <= getattr(whole, name)[0], "together never over the bot's limit"
    assert whole.shared(1) is whole
    assert TelegramPort(bot=None, pacing=part).posts_per_second == pytest.approx(29.0 / 3)  # type: ignore[arg-type]
    assert TelegramPort(bot=None).posts_per_second == 29.0  # type: ignore[arg-type]


def test_a_limit_never_drops_to_zero() -> None:
    assert Pacing().shared(64).private == (1, 3.0)


@pytest.mark.parametrize("workers, problem", [(1, None), (3, None), (0, "--workers must be between 1 and 64, not 0"),
                                               (65, "--workers must be between 1 and 64, not 65")])
def test_workers_is_checked(workers, problem) -> None:
    args = argparse.Namespace(listen="127.0.0.1:8443", webhook=None, workers=workers)
    assert telegram_option_problem(args) == problem
