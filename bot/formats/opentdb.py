"""OpenTDB's JSON (what its API returns: `results[]` of `question`, `correct_answer`, `incorrect_answers`,
`difficulty`, `type`, `category`), with its HTML entities decoded.

OpenTDB's other encodings are recognised too: `encode=base64` (its `type` reads bXVsdGlwbGU= or
Ym9vbGVhbg==) and `encode=url3986` (percent-encoded texts without a space). A true/false question
becomes two options, True then False, in the import's language. JSON has no
useful line numbers, so problems name the question's index: `FILE: results[3]: problem`. Options are
put in a stable order that does not give the key away (OpenTDB lists the key apart).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import html
import json
import urllib.parse
from typing import Any

from bot.formats.html_text import single_line
from bot.formats.model import FormatError, ImportedQuestion, check_count, difficulty_of, read_text, slug
from bot.text.i18n import t


def _tag(category: str) -> tuple[str, ...]:
    word = slug(category)
    return (word,) if word else ()


def _stable_order(stem: str, options: list[str]) -> list[str]:
    """The options shuffled by a hash of the stem: the same file imports the same way every time."""
    return sorted(options, key=lambda option: hashlib.sha256(f"{stem}\0{option}".encode()).hexdigest())


BASE64_TYPES = {"bXVsdGlwbGU=": "multiple", "Ym9vbGVhbg==": "boolean"}


def _decoded(item: dict[str, Any], where: str, problems: list[str]) -> dict[str, Any] | None:
    """The item's texts as plain strings, whichever of OpenTDB's encodings the file was asked in."""
    def each(value: Any, decode: Any) -> Any:
        if isinstance(value, list):
            return [each(part, decode) for part in value]
        return decode(value) if isinstance(value, str) else value

    if item.get("type") in BASE64_TYPES:
        try:
            return {key: each(value, lambda text: base64.b64decode(text, validate=True).decode("utf-8"))
                    for key, value in item.items()}
        except (binascii.Error, UnicodeDecodeError):
            problems.append(f"{where}: looks base64-encoded but does not decode")
            return None
    question = item.get("question")
    if isinstance(question, str) and " " not in question.strip() and "%20" in question:
        return {key: each(value, urllib.parse.unquote) for key, value in item.items()}
    return item


def _question(item: Any, where: str, language: str, problems: list[str]) -> ImportedQuestion | None:
    if not isinstance(item, dict):
        problems.append(f"{where}: must be an object with question, correct_answer and incorrect_answers")
        return None
    item = _decoded(item, where, problems)
    if item is None:
        return None
    stem, key, wrong = item.get("question"), item.get("correct_answer"), item.get("incorrect_answers")
    kind = item.get("type", "multiple")
    if not isinstance(stem, str) or not stem.strip():
        problems.append(f"{where}: question: missing or not text")
        return None
    if not isinstance(key, str) or not key.strip():
        problems.append(f"{where}: correct_answer: missing or not text")
        return None
    if not isinstance(wrong, list) or not wrong or not all(isinstance(w, str) and w.strip() for w in wrong):
        problems.append(f"{where}: incorrect_answers: must be a non-empty list of texts")
        return None
    difficulty = difficulty_of(item.get("difficulty", "medium"))
    if difficulty is None:
        problems.append(f"{where}: difficulty: must be easy, medium or hard, not {str(item.get('difficulty'))[:20]!r}")
        return None
    stem, key = html.unescape(stem).strip(), single_line(html.unescape(key))
    wrong_texts = [single_line(html.unescape(w)) for w in wrong]
    if kind == "boolean":
        if key.lower() not in ("true", "false") or len(wrong_texts) != 1:
            problems.append(f"{where}: a boolean question's answers must be True and False")
            return None
        options = [t(language, "formats.true"), t(language, "formats.false")]
        return ImportedQuestion(stem, tuple(options), 0 if key.lower() == "true" else 1, difficulty=difficulty,
                                tags=_tag(str(item.get("category", ""))), origin=where)
    if kind != "multiple":
        problems.append(f"{where}: type: must be multiple or boolean, not {str(kind)[:20]!r}")
        return None
    if key in wrong_texts:
        problems.append(f"{where}: correct_answer {key[:40]!r} is also among the incorrect_answers")
        return None
    options = _stable_order(stem, [key, *wrong_texts])
    return ImportedQuestion(stem, tuple(options), options.index(key), difficulty=difficulty,
                            tags=_tag(str(item.get("category", ""))), origin=where)


def read(data: bytes, filename: str, language: str = "en") -> list[ImportedQuestion]:
    """Every question of an OpenTDB JSON file, or FormatError listing every problem."""
    text = read_text(data, filename)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise FormatError([f"{filename}:{error.lineno}: not valid JSON: {error.msg}"]) from error
    except RecursionError as error:
        raise FormatError([f"{filename}:1: not valid JSON: nested too deeply"]) from error
    results = document.get("results") if isinstance(document, dict) else document
    if not isinstance(results, list):
        raise FormatError([f"{filename}:1: expected an object with a results list (OpenTDB's answer)"])
    check_count(len(results), filename)
    problems: list[str] = []
    questions = [_question(item, f"{filename}: results[{index}]", language, problems)
                 for index, item in enumerate(results)]
    good = [question for question in questions if question is not None]
    if problems:
        raise FormatError(problems, read=good)
    return good
