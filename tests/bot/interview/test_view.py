"""The interview report as people read it, in both languages: what was chosen and what is right,
stems cut at a word, durations in the reader's language, and the next step as a command."""

from __future__ import annotations

from dataclasses import replace

from bot.bank.loader import Bank
from bot.domain import AskedQuestion, RecordedAnswer
from bot.interview.report import build_report
from bot.interview.view import cut_at_word, report_message
from bot.text.messages import CommandHint, Paragraph
from bot.text.plaintext import render_plain

ORDER = (0, 1, 2, 3)


def asked(number: int, question_id: str, options: int) -> AskedQuestion:
    return AskedQuestion(number, question_id, 1, 9, number, ORDER[:options], 0.0, None, None)


def answered(number: int, option: int | None, correct: bool, ms: int | None) -> RecordedAnswer:
    return RecordedAnswer(number, 1, option, correct, ms, 1.0)


def a_report(bank: Bank, status: str = "finished"):
    """fx-101 wrong (B chosen), fx-102 timed out, fx-001 right; 65 s in all."""
    return build_report(9, status, bank, [
        (asked(1, "fx-101", 3), answered(1, 1, False, 40_000)),
        (asked(2, "fx-102", 4), answered(2, None, False, None)),
        (asked(3, "fx-001", 4), answered(3, bank.questions["fx-001"].correct_index, True, 25_000)),
    ])


def test_the_review_list_says_what_was_chosen_and_what_is_right(bank: Bank) -> None:
    english = render_plain(report_message(bank, a_report(bank), "en"))
    assert "You chose B (On the whole data set); the answer is A (On the training split only)." in english
    assert "Time ran out; the answer is A (10)." in english
    assert "Time: 1 min 5 s in all" in english
    turkish = render_plain(report_message(bank, a_report(bank), "tr"))
    assert "Senin seçimin B (Tüm veri kümesinde); doğru cevap A (Yalnızca eğitim bölümünde)." in turkish
    assert "Süre doldu; doğru cevap A (10)." in turkish
    assert "toplam 1 dk 5 sn" in turkish and " min " not in turkish


def test_every_report_ends_with_the_next_step_as_a_command(bank: Bank) -> None:
    report = a_report(bank)
    message = report_message(bank, report, "en")
    last = message.blocks[-1]
    assert isinstance(last, Paragraph) and last.inline == CommandHint("interview", "leakage-basics")
    assert render_plain(message).endswith("Practise your weakest topic, Leakage basics (test fixture): "
                                         "/interview leakage-basics")
    due = render_plain(report_message(bank, report, "tr", due=1))
    assert "Tekrar zamanı gelen 1 soru var: /review" in due and due.endswith("/interview leakage-basics")
    assert "2 missed questions are due for review: /review" in render_plain(report_message(bank, report, "en", due=2))
    perfect = replace(report, results=report.results[2:], weakest_topic=None)
    assert render_plain(report_message(bank, perfect, "en")).endswith("Start a new interview: /interview")


def test_stopping_before_the_first_answer_reports_no_answers(bank: Bank) -> None:
    report = build_report(9, "stopped", bank, [(asked(1, "fx-101", 3), None)])
    assert report.total == 0 and report.weakest_topic is None
    for language, words, score in (("en", "No answers yet", "Score"), ("tr", "Henüz cevap yok", "Puan")):
        text = render_plain(report_message(bank, report, language))
        assert words in text and score not in text and text.endswith("/interview")


def test_the_question_on_screen_when_stopped_does_not_count(bank: Bank) -> None:
    report = build_report(9, "stopped", bank, [(asked(1, "fx-101", 3), answered(1, 0, True, 3_000)),
                                               (asked(2, "fx-102", 4), None)])
    assert (report.score, report.total) == (1, 1)


def test_stems_are_cut_at_a_word() -> None:
    stem = "What is the memory saved by quantising both Adam moments of a seven billion parameter model"
    short = cut_at_word(stem, 40)
    assert short == "What is the memory saved by quantising…" and len(short) <= 40
    assert cut_at_word("short enough", 40) == "short enough"
    assert cut_at_word("x" * 60, 40) == "x" * 39 + "…", "one word longer than the room is cut inside"
