"""Shared fixtures: a small fixture bank, a real SQLite file per test, a clock that moves on command."""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path

import pytest

from bot.bank import load_bank
from bot.bank.loader import Bank
from bot.core import Core
from bot.schedule.clock import ManualClock
from bot.interview.engine import InterviewEngine
from bot.store import Database

FIXTURE_BANK = Path(__file__).parent / "fixtures" / "bank"
# The tests' validated-file cache lives in their own folder (and their subprocesses inherit it).
os.environ.setdefault("INTERVIEW_BOT_BANK_CACHE", tempfile.mkdtemp(prefix="interview-bot-bank-cache-"))


@pytest.fixture(scope="session")
def bank() -> Bank:
    return load_bank([FIXTURE_BANK], keep_verify=True)  # the verify runner tests need the snippets


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store.sqlite3"


@pytest.fixture
async def db(db_path: Path):
    database = await Database.open(db_path)
    yield database
    await database.close()


@pytest.fixture
def core(db: Database, bank: Bank, clock: ManualClock) -> Core:
    """The one door, unscheduled: tests tick it themselves with the clock they move."""
    return Core(db, bank, clock, random.Random(7), scheduled=False)


@pytest.fixture
def engine(core: Core) -> InterviewEngine:
    return core.engine
