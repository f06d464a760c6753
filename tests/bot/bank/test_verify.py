"""The verify runner: a snippet must derive the key; failures, errors, timeouts and skips are told apart."""

from __future__ import annotations

import pytest

import asyncio
import dataclasses
from pathlib import Path

from bot.bank.verify import summary, verify_all, verify_question
from bot.domain import Verify


def with_code(question, code: str, **changes):
    return dataclasses.replace(question, verify=Verify(code=code, **changes))


async def test_fixture_snippets_pass(bank) -> None:
    results = await verify_all(list(bank.questions.values()))
    assert [r.outcome for r in results] == ["pass"] * len(results) and len(results) == 3


async def test_a_wrong_derivation_fails(bank) -> None:
    result = await verify_question(with_code(bank.questions["fx-001"], "answer = pick_number(5)"))
    assert result.outcome == "fail" and "matches 0 options" in result.detail


async def test_a_derivation_of_another_option_fails(bank) -> None:
    result = await verify_question(with_code(bank.questions["fx-001"], "answer = pick_number(2)"))
    assert result.outcome == "fail" and "the key is 'a'" in result.detail


@pytest.mark.slow
async def test_errors_and_timeouts_are_reported(bank) -> None:
    question = bank.questions["fx-001"]
    crashed = await verify_question(with_code(question, "answer = 1 / 0"))
    assert crashed.outcome == "error" and "ZeroDivisionError" in crashed.detail
    slow = await verify_question(with_code(question, "import time\ntime.sleep(30)\nanswer = 'a'", timeout=1.0))
    assert slow.outcome == "error" and "timed out" in slow.detail


async def test_missing_requirements_are_skipped_and_counted(bank) -> None:
    question = with_code(bank.questions["fx-001"], "answer = 'a'", requires=("no_such_module_xyz",))
    result = await verify_question(question)
    assert result.outcome == "skip"
    assert "1 skipped" in summary([result]) and "no_such_module_xyz" in summary([result])


async def test_pick_text_and_ambiguity(bank) -> None:
    question = bank.questions["fx-101"]
    assert (await verify_question(with_code(question, "answer = pick_text('training split')"))).outcome == "pass"
    ambiguous = await verify_question(with_code(question, "answer = pick_text('split')"))
    assert ambiguous.outcome == "fail" and "matches 2 options" in ambiguous.detail


async def test_a_child_left_behind_neither_hangs_the_runner_nor_survives_it(bank, tmp_path) -> None:
    marker = tmp_path / "child.pid"
    code = (
        "import os, time\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    time.sleep(120)\n"
        "    os._exit(0)\n"
        f"open({str(marker)!r}, 'w').write(str(pid))\n"
        "answer = pick_number(6)\n"
    )
    result = await verify_question(with_code(bank.questions["fx-001"], code, timeout=20.0))
    assert result.outcome == "pass" and result.seconds < 15
    child = int(marker.read_text())
    await asyncio.sleep(0.2)
    status = Path(f"/proc/{child}/status")
    assert not status.exists() or "State:\tZ" in status.read_text(), "the forked child was killed"
