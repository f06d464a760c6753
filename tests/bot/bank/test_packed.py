"""Packed texts: what goes in comes out, in both languages, and the packed form is what is kept and pickled."""

from __future__ import annotations

import pickle

import pytest

from bot.bank import load_bank
from bot.bank.packed import PackedTexts
from bot.domain import pick_language

TEXTS = {"en": "Gradient clipping bounds the global norm.", "tr": "Gradyan kırpma küresel normu sınırlar; ş, ğ, ı."}


def test_a_packed_mapping_reads_back_every_text_and_equals_its_dict() -> None:
    packed = PackedTexts(TEXTS)
    assert packed == TEXTS and dict(packed) == TEXTS and list(packed) == ["en", "tr"]
    assert "tr" in packed and "de" not in packed and len(packed) == 2
    assert pick_language(packed, "tr") == TEXTS["tr"] and pick_language(packed, "de") == TEXTS["en"]
    with pytest.raises(KeyError):
        packed["de"]
    assert PackedTexts({}) == {} and not PackedTexts({})


def test_pickling_keeps_the_packed_form_not_the_strings() -> None:
    long = {"en": "The batch is split across eight workers. " * 40}
    data = pickle.dumps(PackedTexts(long))
    assert b"eight workers" not in data and len(data) < len(long["en"]) / 4
    assert pickle.loads(data) == long


def test_the_loaded_bank_keeps_stems_and_explanations_packed() -> None:
    question = next(iter(load_bank(None).questions.values()))
    assert isinstance(question.text, PackedTexts) and isinstance(question.explanation, PackedTexts)
    assert question.stem("en") and question.explain("tr")
