"""Reading an uploaded file as a deck: every format the importer reads, found by content and name, checked
by the bank's validator, each problem as `line N: ...`; hostile files refused before they are read."""

from __future__ import annotations

import pytest

from bot.decks.parse import DeckRefused, detect, parse_deck
from bot.limits import DECK_MAX_BYTES, DECK_MAX_QUESTIONS
from tests.bot.decks.files import BROKEN, CSV, GIFT, GOOD


@pytest.mark.parametrize("fmt", sorted(GOOD))
def test_each_format_is_read_with_its_lines_and_levels(fmt: str) -> None:
    name, text = GOOD[fmt]
    found, questions = parse_deck(name, text.encode(), "en")
    assert found == fmt
    assert [question.stem("en") for question in questions][0] == "Which split is a scaler fitted on?"
    keys = [question.options[question.correct_index].text("en") for question in questions]
    assert keys == ["The training split", "Nothing; every unit is kept", "Adam"], "each key as the file gave it"
    lines = [int(question.source.rsplit(":", 1)[1]) for question in questions]
    assert lines == sorted(lines) and lines[0] >= 1


@pytest.mark.parametrize("fmt", sorted(GOOD))
def test_the_format_is_found_by_content_without_a_telling_name(fmt: str) -> None:
    _, text = GOOD[fmt]
    assert detect("upload", text.encode()) == fmt
    assert detect("upload.txt", text.encode()) == fmt


@pytest.mark.parametrize("fmt", sorted(BROKEN))
def test_a_broken_file_of_each_format_names_its_line(fmt: str) -> None:
    name, text, line = BROKEN[fmt]
    with pytest.raises(DeckRefused) as refused:
        parse_deck(name, text.encode(), "en")
    assert refused.value.problems[0].startswith(line), refused.value.problems


def test_hostile_files_get_one_line() -> None:
    with pytest.raises(DeckRefused, match="1,000,001 bytes"):
        parse_deck("big.gift", b"x" * (DECK_MAX_BYTES + 1), "en")
    with pytest.raises(DeckRefused, match="none of the formats"):
        parse_deck("notes", b"just some words\nand more", "en")
    entities = '<!DOCTYPE quiz [<!ENTITY a "aaaaaaaaaa">]>\n<quiz>&a;</quiz>'
    with pytest.raises(DeckRefused, match="^line 1: refused"):
        parse_deck("q.xml", entities.encode(), "en")
    with pytest.raises(DeckRefused, match="control"):
        parse_deck("q.csv", CSV.replace("scaler", "sca\x07ler").encode(), "en")
    with pytest.raises(DeckRefused, match="not UTF-8"):
        parse_deck("q.yaml", b"topic: x\n\xff\xfe", "en")


def test_too_many_questions_and_the_same_question_twice() -> None:
    row = "Q{0}?,yes|no,A,,easy,\n"
    many = "stem,options,key,explanation,difficulty,tags\n" + "".join(row.format(i) for i in range(DECK_MAX_QUESTIONS + 1))
    with pytest.raises(DeckRefused, match=f"{DECK_MAX_QUESTIONS + 1} questions"):
        parse_deck("many.csv", many.encode(), "en")
    twice = GIFT + "\n" + GIFT.split("\n\n")[0] + "\n"
    with pytest.raises(DeckRefused, match="^line 22: the same question as line 2"):
        parse_deck("twice.gift", twice.encode(), "en")


def test_problems_in_turkish_framing_keep_the_readers_lines() -> None:
    with pytest.raises(DeckRefused, match="bayt"):
        parse_deck("big.gift", b"x" * (DECK_MAX_BYTES + 1), "tr")
