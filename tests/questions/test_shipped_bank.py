"""The shipped bank: valid, matching its JSON Schema, and every proof passing (none skipped under CI)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import jsonschema
import pytest
import yaml

from bot.bank.loader import check_bank, find_files
from bot.bank.verify import summary, verify_all

BANK = Path(__file__).parents[2] / "questions"


def test_shipped_bank_is_valid() -> None:
    bank, problems = check_bank([BANK])
    assert [str(p) for p in problems] == []
    assert len(bank.questions) > 0


@pytest.mark.slow
@pytest.mark.parametrize("path", find_files([BANK]), ids=lambda p: p.name)
def test_files_match_the_json_schema(path: Path) -> None:
    schema = json.loads((BANK / "schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), schema)


def test_schema_rejects_what_the_validator_rejects() -> None:
    schema = json.loads((BANK / "schema.json").read_text(encoding="utf-8"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"role": "ml-engineer", "specialty": "x", "topic": "y",
                             "questions": [{"id": "a", "difficulty": 4}]}, schema)


@pytest.mark.slow
def test_every_proof_passes() -> None:
    bank, _ = check_bank([BANK])
    results = asyncio.run(verify_all(list(bank.questions.values())))
    bad = [r.line() for r in results if r.outcome in ("fail", "error")]
    assert bad == [], "\n".join(bad)
    skipped = [r.line() for r in results if r.outcome == "skip"]
    if os.environ.get("CI"):
        assert skipped == [], "CI installs the verify extra: no proof may be skipped\n" + "\n".join(skipped)
    elif skipped:
        pytest.skip(summary(results))


def test_bank_reaches_its_figures() -> None:
    """The figures the bank issues ask for: sizes per topic and specialty, difficulty spread, key balance,
    no length or shape tell, proofs, both languages."""
    from bot.bank.stats import bank_stats

    bank, _ = check_bank([BANK])
    stats = bank_stats(bank.questions.values())
    assert stats["total"] >= 600
    for name in ("distributed-strategies-sync", "throughput-profiling-bottlenecks", "ml-scaling-performance"):
        assert stats["topics"][name]["total"] >= 100, name
    specialties: dict[str, list[int]] = {}
    for topic in stats["topics"].values():
        specialties.setdefault(topic["specialty"], []).append(topic["total"])
    for specialty, (questions, topics) in {"deep-learning": (90, 3), "classical-ml": (90, 3),
                                           "feature-engineering": (60, 3)}.items():
        assert sum(specialties[specialty]) >= questions and len(specialties[specialty]) >= topics, specialty
    for name, topic in stats["topics"].items():
        assert all(topic["difficulty_share"].get(str(d), 0) >= 0.2 for d in (1, 2, 3)), name
        assert set(topic["by_seniority"]) == {"junior", "mid", "senior"}, name
    assert stats["bilingual"] == stats["total"]
    assert all(0.2 <= cell["share"] <= 0.3 for cell in stats["keyed_letter"].values())
    assert set(stats["keyed_letter"]) == {"a", "b", "c", "d"}
    for language, tell in stats["prose_length_tell"].items():
        assert 0.12 <= tell["key_shortest"] <= 0.30, (language, tell["key_shortest"])
        assert 0.12 <= tell["key_longest"] <= 0.30, (language, tell["key_longest"])
        assert tell["shape_tells"] == [], (language, tell["shape_tells"])
    assert stats["verify"]["share"] >= 0.35
    assert all(len(q.options) == 4 for q in bank.questions.values())
