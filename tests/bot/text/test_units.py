"""Numbers as people read them, in both languages: durations, spans, instants in a chat's zone, counts."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot.text.i18n import catalog
from bot.text.units import counted, duration, moment, seconds_exact, span

ISTANBUL = ZoneInfo("Europe/Istanbul")


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=ISTANBUL).timestamp()


@pytest.mark.parametrize("language,ms,shown", [
    ("en", 65_000, "1 min 5 s"), ("tr", 65_000, "1 dk 5 sn"), ("en", 60_000, "1 min"), ("tr", 120_000, "2 dk"),
    ("en", 4_400, "4 s"), ("tr", 4_400, "4 sn"),
])
def test_durations_are_localized(language: str, ms: int, shown: str) -> None:
    assert duration(language, ms) == shown


def test_quick_answers_keep_a_tenth_with_the_languages_separator() -> None:
    assert seconds_exact("en", 3_200) == "3.2 s" and seconds_exact("tr", 3_200) == "3,2 sn"


@pytest.mark.parametrize("language,seconds,shown", [
    ("en", 12 * 3600, "12 h"), ("tr", 12 * 3600, "12 saat"), ("en", 5400, "1 h 30 min"),
    ("tr", 5400, "1 saat 30 dakika"), ("en", 360, "6 min"), ("tr", 360, "6 dakika"),
])
def test_reveal_windows_read_as_hours_not_decimals(language: str, seconds: int, shown: str) -> None:
    assert span(language, seconds) == shown


def test_an_instant_reads_in_the_chats_zone_from_the_day_it_was_posted() -> None:
    posted = at("2026-12-01T09:00")
    same_day = moment("en", at("2026-12-01T21:00"), ISTANBUL, posted)
    assert same_day.local == "21:00, Europe/Istanbul" and same_day.at == round(at("2026-12-01T21:00"))
    assert moment("tr", at("2026-12-02T10:00"), ISTANBUL, posted).local == "yarın 10:00, Europe/Istanbul"
    assert moment("en", at("2026-12-03T10:00"), ISTANBUL, posted).local == "Thu 10:00, Europe/Istanbul"


def test_counted_nouns_agree_in_english_and_stay_singular_after_numbers_in_turkish() -> None:
    values = {"topics": "all"}
    assert counted("en", "interview.started", 1, **values) == "Mock interview: 1 question. Topics: all."
    assert counted("en", "interview.started", 3, **values) == "Mock interview: 3 questions. Topics: all."
    assert counted("tr", "interview.started", 1, topics="tümü") == "Deneme mülakatı: 1 soru. Konular: tümü."
    assert counted("tr", "interview.started", 3, topics="tümü") == "Deneme mülakatı: 3 soru. Konular: tümü."


def test_every_counted_text_has_both_forms_in_both_languages() -> None:
    for language in ("en", "tr"):
        keys = catalog(language)
        stems = {key.rsplit(".", 1)[0] for key in keys if key.endswith((".one", ".other"))}
        assert stems, "the catalogs hold counted texts"
        for stem in stems:
            assert f"{stem}.one" in keys and f"{stem}.other" in keys, (language, stem)


def test_a_board_says_one_point_and_many_points() -> None:
    assert counted("en", "board.you", 1, rank=2, points=1) == "You: #2, 1 point."
    assert counted("en", "board.you", 5, rank=1, points=5) == "You: #1, 5 points."
    assert counted("tr", "board.you", 1, rank=2, points=1) == "Sen: 2. sıra, 1 puan."


def test_one_timeout_counts_as_one() -> None:
    assert counted("en", "progress.timed_out", 1) == "1 of them ran out of time; it counts as wrong."
    assert counted("en", "progress.timed_out", 4) == "4 of them ran out of time; they count as wrong."
