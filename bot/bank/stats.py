"""Figures about the bank that tell whether it is balanced: counts, verify coverage, key balance."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from bot.bank.poll_fit import fits_poll
from bot.domain import LANGUAGES, Question


def _key_is_longest(question: Question, language: str) -> bool:
    """True when the keyed option is strictly the longest in `language`: a test-wise candidate's tell."""
    lengths = [len(option.texts.get(language, "")) for option in question.options]
    key = lengths[question.correct_index]
    return all(key > length for i, length in enumerate(lengths) if i != question.correct_index)


def _is_prose(question: Question, language: str) -> bool:
    """Options are prose when each has at least three words and most do not start with a number."""
    texts = [option.texts.get(language, "") for option in question.options]
    numeric = sum(1 for text in texts if re.match(r"\s*[~≈<>$-]?\d", text))
    return all(len(text.split()) >= 3 for text in texts) and numeric * 2 < len(texts)


def _key_is_shortest(question: Question, language: str) -> bool:
    """True when the keyed option is strictly the shortest in `language`: the other half of the length tell."""
    lengths = [len(option.texts.get(language, "")) for option in question.options]
    key = lengths[question.correct_index]
    return all(key < length for i, length in enumerate(lengths) if i != question.correct_index)


def _shape(text: str) -> tuple[bool, bool]:
    """A coarse shape of an option: does it carry a trailing clause (a comma) or a parenthesis."""
    return ("," in text or ";" in text or " since " in text or " because " in text, "(" in text)


def shape_tells(question: Question, language: str) -> bool:
    """True when the three distractors share a shape and the key alone has another one."""
    shapes = [_shape(option.texts.get(language, "")) for option in question.options]
    key = shapes.pop(question.correct_index)
    return len(set(shapes)) == 1 and key != shapes[0] and len(shapes) >= 3


def length_tells(questions: list[Question]) -> dict[str, dict[str, Any]]:
    """Among questions with prose options: how often the key is strictly the shortest or the longest."""
    figures: dict[str, dict[str, Any]] = {}
    for language in LANGUAGES:
        prose = [q for q in questions if language in q.languages and _is_prose(q, language)]
        count = len(prose)
        figures[language] = {
            "prose_questions": count,
            "key_shortest": round(sum(_key_is_shortest(q, language) for q in prose) / count, 3) if count else 0.0,
            "key_longest": round(sum(_key_is_longest(q, language) for q in prose) / count, 3) if count else 0.0,
            "shape_tells": sorted(q.id for q in questions if language in q.languages and shape_tells(q, language)),
        }
    return figures


def bank_stats(questions: Iterable[Question]) -> dict[str, Any]:
    """Counts per topic x difficulty x language and the balance figures, as plain JSON-able data."""
    questions = list(questions)
    total = len(questions)
    by_topic: dict[str, dict[str, Any]] = {}
    for question in questions:
        topic = by_topic.setdefault(question.topic, {
            "specialty": question.specialty, "total": 0, "by_difficulty": {}, "by_language": Counter(),
            "by_seniority": Counter(), "verified": 0, "poll_fit": Counter(),
        })
        topic["total"] += 1
        cell = topic["by_difficulty"].setdefault(str(question.difficulty), Counter())
        for language in question.languages:
            cell[language] += 1
            topic["by_language"][language] += 1
        cell["total"] += 1
        topic["by_seniority"][question.seniority] += 1
        topic["verified"] += question.verify is not None
        fits = [language for language in question.languages if fits_poll(question, language)]
        topic["poll_fit"].update(fits)
        topic["poll_fit"]["all"] += len(fits) == len(question.languages)
    for topic in by_topic.values():
        topic["by_difficulty"] = {k: dict(v) for k, v in sorted(topic["by_difficulty"].items())}
        topic["by_language"] = dict(topic["by_language"])
        topic["by_seniority"] = dict(topic["by_seniority"])
        topic["poll_fit"] = dict(topic["poll_fit"])
        topic["difficulty_share"] = {k: round(v["total"] / topic["total"], 3) for k, v in topic["by_difficulty"].items()}
    keyed = Counter(question.correct_letter for question in questions)
    verified = sum(1 for question in questions if question.verify is not None)
    longest = {
        language: sum(1 for q in questions if language in q.languages and _key_is_longest(q, language))
        for language in LANGUAGES
    }
    return {
        "total": total,
        "topics": dict(sorted(by_topic.items())),
        "by_language": {language: sum(1 for q in questions if language in q.languages) for language in LANGUAGES},
        "bilingual": sum(1 for q in questions if set(q.languages) == set(LANGUAGES)),
        "verify": {"count": verified, "share": round(verified / total, 3) if total else 0.0,
                   "needs_torch": sum(1 for q in questions if q.verify and "torch" in q.verify.requires)},
        "keyed_letter": {letter: {"count": keyed[letter], "share": round(keyed[letter] / total, 3) if total else 0.0}
                         for letter in sorted(keyed)},
        "longest_is_correct": {language: round(count / total, 3) if total else 0.0 for language, count in longest.items()},
        "prose_length_tell": length_tells(questions),
        "with_code_or_table": sum(1 for q in questions if "```" in q.stem("en") or "|---" in q.stem("en").replace(" ", "")),
    }


def format_stats(stats: dict[str, Any]) -> str:
    """A compact table for a terminal."""
    lines = [f"{'topic':40} {'total':>5}  {'d1':>4} {'d2':>4} {'d3':>4}  {'en':>4} {'tr':>4}  {'verify':>6}  {'poll':>4}"]
    for name, topic in stats["topics"].items():
        cells = [topic["by_difficulty"].get(str(d), {}).get("total", 0) for d in (1, 2, 3)]
        lines.append(
            f"{name:40} {topic['total']:>5}  {cells[0]:>4} {cells[1]:>4} {cells[2]:>4}  "
            f"{topic['by_language'].get('en', 0):>4} {topic['by_language'].get('tr', 0):>4}  {topic['verified']:>6}  "
            f"{topic['poll_fit'].get('all', 0):>4}"
        )
    polls = sum(topic["poll_fit"].get("all", 0) for topic in stats["topics"].values())
    lines.append(f"{'all':40} {stats['total']:>5}{'':35}  {polls:>4}")
    lines.append("poll: questions that fit a native quiz poll in every language they have (no code block or table, "
                 "stem within 300 characters, options within 100); a chat that chose polls gets one of these")
    letters = ", ".join(f"{k} {v['share']:.0%}" for k, v in stats["keyed_letter"].items())
    longest = ", ".join(f"{k} {v:.0%}" for k, v in stats["longest_is_correct"].items())
    lines.append(f"verify coverage {stats['verify']['share']:.0%} ({stats['verify']['count']}); keyed letters: {letters}")
    lines.append(f"key is the longest option: {longest}; stems with code or a table: {stats['with_code_or_table']}")
    for language, tell in stats["prose_length_tell"].items():
        lines.append(
            f"prose options ({language}, {tell['prose_questions']} questions): key shortest {tell['key_shortest']:.0%}, "
            f"key longest {tell['key_longest']:.0%}; key alone in its shape: {len(tell['shape_tells'])}"
        )
    return "\n".join(lines)
