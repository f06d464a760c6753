"""The Turkish texts of the shipped bank use the glossary's forms (questions/GLOSSARY.md)."""

from __future__ import annotations

import re
from pathlib import Path

from bot.bank.loader import check_bank

BANK = Path(__file__).parents[2] / "questions"

# Case-sensitive on purpose: under re.IGNORECASE Python matches "ı" with "i", so rank'ın would catch rank'in.
FORBIDDEN: dict[str, str] = {
    r"\b[Tt]ek[- ]sıcak": "one-hot",
    r"\b[Kk]osinüs tavlama": "cosine annealing",
    r"\b[Ii]ndirgen": "reduce edilir / toplanır",
    r"\b[Kk]urucu": "yapıcı",
    r"\b[Bb]atch iş\b": "batch işi",
    r"\brank'(a|ta|tan|ın|ı|lı|taki|ına|ında)\b": "rank'e, rank'te, rank'in, rank'i, rank'li",
    # a decimal point in prose; 1.500 and 12.000 are Turkish thousands and pass
    r"(?<![\w.,`])(?:0\.\d+|\d+\.(?!\d{3}(?!\d))\d+)(?![\w.])": "a decimal comma (0,5) outside code",
    r"\b[Öö]ğrenme hızı": "öğrenme oranı",
    r"\b[Aa]şırı uydurma": "aşırı öğrenme",
    r"\b[Vv]eri kaçağı": "veri sızıntısı",
}

_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


def _prose(text: str) -> str:
    """The text without code blocks and inline code, which keep their own notation."""
    return _CODE.sub(" ", text)


def _turkish_texts() -> list[tuple[str, str]]:
    bank, problems = check_bank([BANK])
    assert not problems
    texts: list[tuple[str, str]] = []
    for question in bank.questions.values():
        texts.append((f"{question.id} stem", question.text.get("tr", "")))
        texts.append((f"{question.id} explanation", question.explanation.get("tr", "")))
        texts += [(f"{question.id} option {i + 1}", o.texts.get("tr", "")) for i, o in enumerate(question.options)]
    return texts


def test_turkish_texts_use_the_glossary_forms() -> None:
    found = []
    for where, text in _turkish_texts():
        prose = _prose(text)
        for pattern, wanted in FORBIDDEN.items():
            for match in re.finditer(pattern, prose):
                found.append(f"{where}: '{match.group(0)}' -> {wanted}")
    assert found == [], "\n".join(found[:50]) + f"\n({len(found)} in all)"


def test_the_glossary_rejects_what_it_lists() -> None:
    samples = ["tek-sıcak kodlama", "Kosinüs tavlama", "gradyanlar indirgeniyor", "kurucusunda", "batch iş bitti",
               "her rank'ta", "0.5 GiB", "%37.5", "öğrenme hızı"]
    for sample in samples:
        assert any(re.search(p, _prose(sample)) for p in FORBIDDEN), sample
    allowed = "her rank'te, rank'in, rank'i ve rank'li `0.5` ve 0,5 GiB, 12.000 adım"
    assert not any(re.search(p, _prose(allowed)) for p in FORBIDDEN)
