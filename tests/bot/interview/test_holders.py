"""One live interview per person and store (issue 27, finding 1), enforced in the core for every platform:
a second process is refused or takes the interview over; the first learns it moved; nobody stops or
reports an interview another live process holds."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from bot.core import Core, UserError
from bot.domain import ChatRef, InterviewFilters, UserRef
from bot.interview.holders import alive, this_process

ALICE = UserRef("console", "alice", "Alice", "en")
TERMINAL = ChatRef("console", "terminal:alice", "private", "terminal", "en")
CHAT = ChatRef("test", "dm-alice")
FIRST = this_process("console")  # this test process: alive
SECOND = f"console:{socket.gethostname()}:{os.getppid()}"  # its parent: alive too


def dead_holder() -> str:
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return f"console:{socket.gethostname()}:{finished.stdout.strip()}"


def letter_of(outgoing) -> str:  # noqa: ANN001
    return outgoing.message.buttons[0][0].token


async def test_a_second_process_is_refused_then_takes_over_and_the_first_learns_it(core: Core) -> None:
    first = await core.start_interview(ALICE, TERMINAL, InterviewFilters(count=3), FIRST)
    with pytest.raises(UserError) as refused:
        await core.start_interview(ALICE, TERMINAL, InterviewFilters(count=3), SECOND)
    assert refused.value.key == "interview.running"
    with pytest.raises(UserError):  # another platform (a chat) cannot start over it either
        await core.start_interview(ALICE, CHAT, InterviewFilters(count=3))
    with pytest.raises(UserError):
        await core.resume_interview(ALICE, SECOND)
    assert await core.stop_interview(ALICE, SECOND) is None, "never stop someone else's interview"
    assert await core.latest_report(ALICE, SECOND) is None, "never report someone else's interview"
    moved = await core.resume_interview(ALICE, SECOND, takeover=True)
    assert moved is not None and moved.asked_id == first.asked_id
    token = letter_of(first)
    refused_click = await core.click(ALICE, TERMINAL, token, holder=FIRST)
    assert refused_click.refused == "moved"
    with pytest.raises(UserError) as gone:
        await core.current_question(ALICE, FIRST)
    assert gone.value.key == "interview.moved"
    assert (await core.click(ALICE, TERMINAL, token, holder=SECOND)).refused is None
    assert await core.stop_interview(ALICE, FIRST) is None
    assert await core.stop_interview(ALICE, SECOND) is not None
    report = await core.latest_report(ALICE, SECOND)
    assert report is not None and report.total == 1 and await core.latest_report(ALICE, FIRST) is None


async def test_a_dead_process_holds_nothing(core: Core) -> None:
    gone = dead_holder()
    assert not alive(gone) and alive(FIRST) and alive("console:another-host:1")
    kept = await core.start_interview(ALICE, TERMINAL, InterviewFilters(count=2), gone)
    resumed = await core.resume_interview(ALICE, FIRST)  # --resume after a kill: no takeover needed
    assert resumed is not None and resumed.asked_id == kept.asked_id
    with pytest.raises(UserError):  # now this live process holds it
        await core.start_interview(ALICE, TERMINAL, InterviewFilters(count=2), SECOND)
    fresh = await core.start_interview(ALICE, TERMINAL, InterviewFilters(count=2), FIRST)  # its own: a new one
    assert fresh.asked_id != kept.asked_id
