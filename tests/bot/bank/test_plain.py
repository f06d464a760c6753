"""The cache's plain data: the whole shipped bank comes back equal, and every other shape is refused."""

from __future__ import annotations

import json

import pytest

from bot.bank import plain
from bot.bank.loader import check_bank
from bot.bank.packed import PackedTexts
from bot.bank.problems import Problem


def test_every_shipped_file_round_trips_through_json_unchanged() -> None:
    bank, _ = check_bank(None)
    by_topic: dict[str, list] = {}
    for question in bank.questions.values():
        by_topic.setdefault(question.topic, []).append(question)
    for name, topic in bank.topics.items():
        validated = (topic, by_topic.get(name, []), [Problem("f.yaml", 3, "x", "y")])
        back = plain.decode(json.loads(json.dumps(plain.encode(validated))))
        assert back == validated
        assert all(isinstance(question.text, PackedTexts) for question in back[1])


def _entry() -> dict:
    bank, _ = check_bank(None)
    question = next(iter(bank.questions.values()))
    return plain.encode((bank.topics[question.topic], [question], []))


@pytest.mark.parametrize("spoil", [
    lambda e: e.update(format=0),
    lambda e: e.update(topic=[1, 2, 3, 4]),
    lambda e: e["questions"][0].update(difficulty="2"),
    lambda e: e["questions"][0].update(text={"en": "not base64!"}),
    lambda e: e["questions"][0].update(source="no line"),
    lambda e: e["questions"][0]["options"][0].__setitem__(1, "yes"),
    lambda e: e["questions"][0].update(options=[[{"en": "a"}, False], [{"en": "b"}, False]]),
    lambda e: e["questions"][0].pop("tags"),
    lambda e: e.update(problems=[["f", "1", "x", "y"]]),
])
def test_an_entry_of_another_shape_is_refused(spoil) -> None:
    entry = _entry()
    spoil(entry)
    with pytest.raises(plain.PlainDataError):
        plain.decode(json.loads(json.dumps(entry)))


@pytest.mark.parametrize("value", [42, None, [], "x", {"format": 1}])
def test_foreign_values_are_refused(value) -> None:
    with pytest.raises(plain.PlainDataError):
        plain.decode(value)
