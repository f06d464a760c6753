"""A deck's questions as the store keeps them (one JSON text) and as the core asks them (Question).

A question's id is `deck.<deck id>.<hash>`: the hash is of its stem, options and key, so a replaced deck
keeps the id of every question it did not change, and review cards and statistics carry over."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from bot.decks.names import internal_topic, question_id
from bot.domain import Option, Question


def content_hash(question: Question) -> str:
    """Ten hex digits of the question's stem, options (in file order) and key, in every language it has."""
    content = json.dumps([dict(question.text), [option.texts for option in question.options], question.correct_index],
                         sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(content.encode("utf-8")).hexdigest()[:10]


def line_of(question: Question) -> int:
    """The line a parsed question started on (its source is `name:line`)."""
    return int(question.source.rsplit(":", 1)[1]) if ":" in question.source else 0


def encode(questions: Sequence[Question]) -> str:
    """The questions as the store keeps them: texts, options, key, explanation, labels, and the file's line."""
    return json.dumps([{
        "hash": content_hash(question), "line": line_of(question), "difficulty": question.difficulty,
        "seniority": question.seniority, "text": dict(question.text),
        "options": [{"texts": option.texts, "correct": option.correct} for option in question.options],
        "explanation": dict(question.explanation), "tags": list(question.tags),
    } for question in questions], ensure_ascii=False, separators=(",", ":"))


def decode(deck_id: int, name: str, data: str) -> list[Question]:
    """The stored questions of deck `deck_id`, with their ids and the deck's topic."""
    topic = internal_topic(deck_id)
    entries: list[dict[str, Any]] = json.loads(data)
    return [Question(
        id=question_id(deck_id, entry["hash"]), role="deck", specialty="deck", topic=topic,
        difficulty=int(entry["difficulty"]), seniority=str(entry["seniority"]), text=dict(entry["text"]),
        options=tuple(Option(dict(option["texts"]), bool(option["correct"])) for option in entry["options"]),
        explanation=dict(entry["explanation"]), tags=tuple(entry["tags"]), source=f"{name}:{entry['line']}",
    ) for entry in entries]
