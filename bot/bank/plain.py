"""A validated topic file as plain JSON data and back, with every field's shape checked on the way in.

Why: the bank cache must never be able to run code (a pickle can: whoever writes the cache folder would
run code as the bot), and an entry of the wrong shape must be a miss, not a crash at the first command.
JSON holds only strings, numbers, lists and mappings; `decode` accepts exactly the shape `encode`
writes and raises PlainDataError for anything else. Stems and explanations stay packed
(bot/bank/packed.py), as base64 text, so a warm start still never builds those strings.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

from bot.bank.packed import PackedTexts
from bot.bank.problems import Problem
from bot.domain import Option, Question, Topic, Verify

FORMAT = 1  # bump when the shape changes: older entries are then misses
Validated = tuple[Topic | None, list[Question], list[Problem]]


class PlainDataError(ValueError):
    """A cache entry that is not what `encode` writes."""


def encode(validated: Validated) -> dict[str, Any]:
    """What validate_file returned, as JSON-ready data."""
    topic, questions, problems = validated
    return {
        "format": FORMAT,
        "topic": None if topic is None else [topic.role, topic.specialty, topic.name, dict(topic.title)],
        "questions": [_question(question) for question in questions],
        "problems": [[problem.file, problem.line, problem.field, problem.message] for problem in problems],
    }


def _packed(texts: Mapping[str, str]) -> dict[str, str]:
    packed = texts if isinstance(texts, PackedTexts) else PackedTexts(texts)
    return {language: base64.b64encode(data).decode("ascii") for language, data in packed.packed()}


def _question(question: Question) -> dict[str, Any]:
    verify = question.verify
    return {
        "id": question.id, "role": question.role, "specialty": question.specialty, "topic": question.topic,
        "difficulty": question.difficulty, "seniority": question.seniority, "text": _packed(question.text),
        "options": [[dict(option.texts), option.correct] for option in question.options],
        "explanation": _packed(question.explanation), "tags": list(question.tags),
        "verify": None if verify is None else [verify.code, list(verify.requires), verify.timeout],
        "source": question.source,
    }


def decode(data: Any) -> Validated:
    """The validated file back from `encode`'s data; PlainDataError for any other shape."""
    try:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise PlainDataError("not an entry of this format")
        topic = None if data["topic"] is None else _topic(data["topic"])
        questions = [_question_from(item) for item in _list(data["questions"])]
        problems = [_problem(item) for item in _list(data["problems"])]
    except (KeyError, TypeError, ValueError, binascii.Error) as error:
        raise PlainDataError(f"unexpected shape: {error}") from error
    return topic, questions, problems


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise PlainDataError(f"expected text, got {type(value).__name__}")
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise PlainDataError(f"expected a whole number, got {type(value).__name__}")
    return value


def _list(value: Any, length: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise PlainDataError("expected a list" + (f" of {length}" if length is not None else ""))
    return value


def _texts(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise PlainDataError("expected a mapping of texts")
    return {_str(key): _str(text) for key, text in value.items()}


def _unpacked(value: Any) -> PackedTexts:
    return PackedTexts.from_packed(tuple((language, base64.b64decode(data, validate=True))
                                         for language, data in _texts(value).items()))


def _topic(value: Any) -> Topic:
    role, specialty, name, title = _list(value, 4)
    return Topic(_str(role), _str(specialty), _str(name), _texts(title))


def _option(value: Any) -> Option:
    texts, correct = _list(value, 2)
    if not isinstance(correct, bool):
        raise PlainDataError("an option's correct flag must be true or false")
    return Option(_texts(texts), correct)


def _verify(value: Any) -> Verify | None:
    if value is None:
        return None
    code, requires, timeout = _list(value, 3)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool):
        raise PlainDataError("a verify timeout must be a number")
    return Verify(_str(code), tuple(_str(name) for name in _list(requires)), float(timeout))


def _question_from(value: Any) -> Question:
    if not isinstance(value, dict):
        raise PlainDataError("a question must be a mapping")
    options = tuple(_option(item) for item in _list(value["options"]))
    if sum(option.correct for option in options) != 1:
        raise PlainDataError("a question needs exactly one correct option")
    return Question(
        id=_str(value["id"]), role=_str(value["role"]), specialty=_str(value["specialty"]),
        topic=_str(value["topic"]), difficulty=_int(value["difficulty"]), seniority=_str(value["seniority"]),
        text=_unpacked(value["text"]), options=options, explanation=_unpacked(value["explanation"]),
        tags=tuple(_str(tag) for tag in _list(value["tags"])), verify=_verify(value["verify"]),
        source=_source(value["source"]),
    )


def _source(value: Any) -> str:
    """"file:line", as the loader splits it to report duplicate ids."""
    source = _str(value)
    if not re.fullmatch(r".+:[0-9]+", source, re.DOTALL):
        raise PlainDataError("a question's source must be FILE:LINE")
    return source


def _problem(value: Any) -> Problem:
    file, line, field, message = _list(value, 4)
    return Problem(_str(file), _int(line), _str(field), _str(message))
