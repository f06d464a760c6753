"""The verify runner: a snippet must derive the key; failures, errors, timeouts and skips are told apart."""

from __future__ import annotations

import pytest

import asyncio
import dataclasses
from pathlib import Path

from bot.bank.verify import Zygote, summary, verify_all, verify_question
from bot.domain import Verify


@pytest.fixture(params=["fresh", "zygote"])
async def zygote(request):
    """Each runner test twice: a fresh interpreter per snippet, and a child forked from the warm zygote."""
    if request.param == "fresh":
        yield None
        return
    warm = await Zygote.start()
    assert warm is not None and warm.alive
    yield warm
    await warm.close()


def with_code(question, code: str, **changes):
    return dataclasses.replace(question, verify=Verify(code=code, **changes))


async def test_fixture_snippets_pass(bank) -> None:
    results = await verify_all(list(bank.questions.values()))
    assert [r.outcome for r in results] == ["pass"] * len(results) and len(results) == 3


async def test_a_wrong_derivation_fails(bank, zygote) -> None:
    result = await verify_question(with_code(bank.questions["fx-001"], "answer = pick_number(5)"), zygote=zygote)
    assert result.outcome == "fail" and "matches 0 options" in result.detail


async def test_a_derivation_of_another_option_fails(bank, zygote) -> None:
    result = await verify_question(with_code(bank.questions["fx-001"], "answer = pick_number(2)"), zygote=zygote)
    assert result.outcome == "fail" and "the key is 'a'" in result.detail


@pytest.mark.slow
async def test_errors_and_timeouts_are_reported(bank, zygote) -> None:
    question = bank.questions["fx-001"]
    crashed = await verify_question(with_code(question, "answer = 1 / 0"), zygote=zygote)
    assert crashed.outcome == "error" and "ZeroDivisionError" in crashed.detail
    slow = await verify_question(with_code(question, "import time\ntime.sleep(30)\nanswer = 'a'", timeout=1.0),
                                 zygote=zygote)
    assert slow.outcome == "error" and "timed out" in slow.detail


async def test_missing_requirements_are_skipped_and_counted(bank) -> None:
    question = with_code(bank.questions["fx-001"], "answer = 'a'", requires=("no_such_module_xyz",))
    result = await verify_question(question)
    assert result.outcome == "skip"
    assert "1 skipped" in summary([result]) and "no_such_module_xyz" in summary([result])


async def test_pick_text_and_ambiguity(bank, zygote) -> None:
    question = bank.questions["fx-101"]
    found = await verify_question(with_code(question, "answer = pick_text('training split')"), zygote=zygote)
    assert found.outcome == "pass"
    ambiguous = await verify_question(with_code(question, "answer = pick_text('split')"), zygote=zygote)
    assert ambiguous.outcome == "fail" and "matches 2 options" in ambiguous.detail


async def test_a_child_left_behind_neither_hangs_the_runner_nor_survives_it(bank, zygote, tmp_path) -> None:
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
    result = await verify_question(with_code(bank.questions["fx-001"], code, timeout=20.0), zygote=zygote)
    assert result.outcome == "pass" and result.seconds < 15
    child = int(marker.read_text())
    await asyncio.sleep(0.2)
    status = Path(f"/proc/{child}/status")
    assert not status.exists() or "State:\tZ" in status.read_text(), "the forked child was killed"



async def test_exit_codes_and_output_through_the_zygote(bank, zygote) -> None:
    question = bank.questions["fx-001"]
    exited = await verify_question(with_code(question, "import sys\nprint('noise')\nsys.exit(3)"), zygote=zygote)
    assert exited.outcome == "error" and "exit code 3" in exited.detail
    printed = await verify_question(with_code(question, "print('answer is coming')\nanswer = pick_number(6)"),
                                    zygote=zygote)
    assert printed.outcome == "pass"
