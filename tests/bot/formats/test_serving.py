"""An imported bank as the bot serves it: the validator's one exception, the other-language note, the
explanation that was never given."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.bank.loader import load_bank
from bot.bank.validate import validate_file
from bot.core import Core
from bot.domain import ChatRef, InterviewFilters, UserRef
from bot.formats.bank_file import Target, build_topic_file
from bot.formats.model import ImportedQuestion
from bot.text.plaintext import render_plain
from tests.bot.test_core import wrong_token

HEADER = "role: ml-engineer\nspecialty: s\ntopic: t\n{extra}questions:\n  - id: q1\n    difficulty: 1\n" \
         "    seniority: junior\n    text: {{en: Q}}\n    options: [{{en: a, correct: true}}, {{en: b}}]\n"


def test_only_an_imported_file_may_leave_the_explanation_out() -> None:
    _, questions, problems = validate_file(HEADER.format(extra=""), "t.yaml")
    assert [str(p) for p in problems] == ["t.yaml:5: q1.explanation: missing (give tr and/or en)"]
    _, questions, problems = validate_file(HEADER.format(extra="imported_from: gift\n"), "t.yaml")
    assert problems == [] and questions[0].explanation == {}
    _, _, problems = validate_file(HEADER.format(extra="imported_from: quizlet\n"), "t.yaml")
    assert "imported_from: must be one of opentdb, gift, moodle, csv" in str(problems[0])
    half = HEADER.format(extra="imported_from: csv\n") + "    explanation: {tr: Neden}\n"
    _, _, problems = validate_file(half, "t.yaml")
    assert "q1.en: missing in: explanation" in str(problems[0])  # given, it is still given in every language


@pytest.fixture
async def imported_core(tmp_path: Path, db, clock) -> Core:
    questions = [ImportedQuestion("Which optimiser keeps per-parameter step sizes?", ("Adam", "SGD"), 0, origin="f:1"),
                 ImportedQuestion("Is SGD first-order?", ("True", "False"), 0, "It uses gradients only.",
                                  origin="f:3")]
    folder = tmp_path / "bank"
    folder.mkdir()
    (folder / "optim.yaml").write_text(build_topic_file(questions, Target("optim", "gift")), encoding="utf-8")
    return Core(db, load_bank([folder]), clock, random.Random(1), scheduled=False)


async def test_a_turkish_user_gets_the_english_question_marked_and_told_there_is_no_explanation(imported_core) -> None:
    ayse, dm = UserRef("test", "ayse", "Ayşe", "tr"), ChatRef("test", "ayse", "private")
    first = await imported_core.start_interview(ayse, dm, InterviewFilters(count=2, repeatable=True))
    shown = render_plain(first.message)
    assert "Bu soru yalnızca İngilizce olarak mevcut." in shown
    assert "Soru 1/2" in shown  # the bot's own words stay Turkish
    first_reply = await imported_core.click(ayse, dm, await wrong_token(imported_core, first.asked_id))
    [second] = first_reply.follow_ups
    second_reply = await imported_core.click(ayse, dm, await wrong_token(imported_core, second.asked_id))
    edits = sorted(render_plain(reply.edit) for reply in (first_reply, second_reply))
    assert sum("İçe aktarılan bu soru bir açıklamayla gelmedi." in text for text in edits) == 1
    assert sum("It uses gradients only." in text for text in edits) == 1
    assert all("Bu soru yalnızca İngilizce olarak mevcut." in text for text in edits)


async def test_an_english_user_sees_no_language_note(imported_core) -> None:
    alice, dm = UserRef("test", "alice", "Alice", "en"), ChatRef("test", "alice", "private")
    first = await imported_core.start_interview(alice, dm, InterviewFilters(count=1))
    assert "only available" not in render_plain(first.message)
