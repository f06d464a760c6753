"""The validated-file cache: a hit gives the same questions, an edit or a validator change is a miss."""

from __future__ import annotations

import textwrap

from bot.bank import cache as bank_cache
from bot.bank.loader import check_bank
from tests.conftest import FIXTURE_BANK


def test_a_second_load_reads_the_cache_and_an_edit_is_validated_again(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(bank_cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    first, problems = check_bank([FIXTURE_BANK])
    assert not problems and list((tmp_path / "cache").iterdir())
    calls = []
    monkeypatch.setattr("bot.bank.loader.validate_file", lambda *a: calls.append(a) or (None, [], []))
    second, _ = check_bank([FIXTURE_BANK])
    assert calls == [] and second.questions == first.questions and second.topics == first.topics
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "t.yaml").write_text(textwrap.dedent("""\
        role: ml-engineer
        specialty: x
        topic: y
        questions: []
        """), encoding="utf-8")
    check_bank([bank])
    assert len(calls) == 1, "a file not seen before is validated"
    (bank / "t.yaml").write_text((bank / "t.yaml").read_text() + "\n", encoding="utf-8")
    check_bank([bank])
    assert len(calls) == 2, "an edited file is validated again"


def test_the_cache_can_be_turned_off_and_a_broken_entry_is_a_miss(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(bank_cache.CACHE_VARIABLE, "0")
    check_bank([FIXTURE_BANK])
    assert bank_cache.cache_folder() is None
    monkeypatch.setenv(bank_cache.CACHE_VARIABLE, str(tmp_path))
    check_bank([FIXTURE_BANK])
    for entry in tmp_path.iterdir():
        entry.write_bytes(b"not a pickle")
    bank, problems = check_bank([FIXTURE_BANK])
    assert not problems and bank.questions


class _RunsCode:
    """A pickle that, when loaded, would create a file: what a hostile cache entry could do."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_an_entry_is_plain_data_a_pickle_never_runs_and_a_wrong_shape_is_rebuilt(tmp_path, monkeypatch) -> None:
    import json
    import pickle

    folder = tmp_path / "cache"
    monkeypatch.setenv(bank_cache.CACHE_VARIABLE, str(folder))
    first, _ = check_bank([FIXTURE_BANK])
    entries = sorted(folder.iterdir())
    assert entries and all(json.loads(entry.read_text(encoding="utf-8"))["format"] for entry in entries)
    marker = tmp_path / "ran"
    for payload in (pickle.dumps(_RunsCode(str(marker))), pickle.dumps(42), b"42", b'{"format": 1}',
                    json.dumps({"format": 1, "topic": None, "questions": [42], "problems": []}).encode()):
        for entry in entries:
            entry.write_bytes(payload)
        bank, problems = check_bank([FIXTURE_BANK])
        assert not problems and bank.questions == first.questions, payload
        assert not marker.exists(), "a cache entry ran code"
        assert all(json.loads(entry.read_text(encoding="utf-8"))["format"] for entry in entries), "rebuilt"
