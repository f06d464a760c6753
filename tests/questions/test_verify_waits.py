"""A proof never gives up before the harness does. The harness retries a snippet once, in a fresh
interpreter, only when its own `verify.timeout` runs out (bot/bank/verify.py), because a multi-process
proof (ranks of a gloo DDP step) can stall on a loaded machine. A snippet that waited with a shorter
deadline of its own (`q.get(timeout=30)` under a 60 s limit) turned such a stall into an error that is
never retried: a flaky proof. So no snippet waits with a deadline of its own."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from bot.bank.loader import check_bank
from bot.bank.verify import verify_question
from bot.domain import Verify

BANK = Path(__file__).parents[2] / "questions"
OWN_DEADLINE = re.compile(r"\.(?:get|join|wait)\([^)]*\btimeout\s*=")  # a queue's get, a process's join or wait


def test_no_proof_waits_with_a_deadline_of_its_own() -> None:
    bank, _ = check_bank([BANK])
    own = sorted(q.id for q in bank.questions.values() if q.verify is not None and OWN_DEADLINE.search(q.verify.code))
    assert own == [], "wait without a timeout: the question's verify.timeout is the one deadline"


RANKS = """
import multiprocessing as mp, os, time
def rank(r, q):
    if r == 1 and not os.path.exists({marker!r}):
        open({marker!r}, "w").close()
        time.sleep({delay})              # the first attempt's rank 1 is slow ({delay} s), or stalls (600 s)
    q.put((r, r + 1))
ctx = mp.get_context("fork"); q = ctx.Queue()
ps = [ctx.Process(target=rank, args=(r, q)) for r in range(2)]
for p in ps: p.start()
got = dict(q.get({wait}) for _ in ps)
for p in ps: p.join()
answer = pick_number(2 * sum(got.values()))   # 2 * (1 + 2)
"""


def ranks(question, tmp_path: Path, name: str, delay: float, wait: str, timeout: float):
    code = RANKS.format(marker=str(tmp_path / name), delay=delay, wait=wait)
    return dataclasses.replace(question, verify=Verify(code=code, timeout=timeout))


async def test_a_slow_rank_is_waited_for(bank, tmp_path) -> None:
    question = bank.questions["fx-001"]  # keyed: a, "6"
    assert (await verify_question(ranks(question, tmp_path, "patient", 1.5, "", 10.0))).outcome == "pass"
    hasty = await verify_question(ranks(question, tmp_path, "hasty", 1.5, "timeout=0.5", 10.0))
    assert hasty.outcome == "error" and "Empty" in hasty.detail, "the old shape: an error the harness never retries"


async def test_a_stalled_rank_is_a_harness_timeout_and_the_retry_proves_it(bank, tmp_path) -> None:
    question = bank.questions["fx-001"]
    result = await verify_question(ranks(question, tmp_path, "stalled", 600, "", 2.0))
    assert result.outcome == "pass" and (tmp_path / "stalled").exists()
