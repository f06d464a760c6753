"""Shared fixtures: a small fixture bank, a real SQLite file per test, a clock that moves on command."""

from __future__ import annotations

import atexit
import itertools
import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from bot.bank import load_bank
from bot.bank.loader import Bank
from bot.core import Core
from bot.schedule.clock import ManualClock
from bot.interview.engine import InterviewEngine
from bot.store import Database
from tests.postgres import PostgresServer, find_bin

FIXTURE_BANK = Path(__file__).parent / "fixtures" / "bank"
# The tests' validated-file cache lives in their own folder (and their subprocesses inherit it), removed
# when the run ends (a folder a run was given stays the giver's).
if "INTERVIEW_BOT_BANK_CACHE" not in os.environ:
    os.environ["INTERVIEW_BOT_BANK_CACHE"] = tempfile.mkdtemp(prefix="interview-bot-bank-cache-")
    atexit.register(shutil.rmtree, os.environ["INTERVIEW_BOT_BANK_CACHE"], True)


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


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server for this test session (each xdist worker starts its own). Missing PostgreSQL
    skips the PostgreSQL half of the suite on a developer's machine, and fails it under CI=true."""
    bin_dir = find_bin()
    if bin_dir is None:
        message = "PostgreSQL (initdb, pg_ctl) not found: install postgresql or set INTERVIEW_BOT_PG_BIN"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    server = PostgresServer(bin_dir)
    server.start()
    yield server
    server.stop()


_database_numbers = itertools.count(1)
_EMPTY_TABLES = """DO $$ BEGIN EXECUTE (
    SELECT 'TRUNCATE ' || string_agg(quote_ident(tablename), ', ') || ' RESTART IDENTITY CASCADE'
    FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_version'); END $$"""


def _psql(server: PostgresServer, sql: str, database: str = "postgres") -> None:
    subprocess.run([str(server.bin_dir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", server.url(database),
                    "-c", sql], check=True, capture_output=True, timeout=60)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer):
    """The URL of a new, empty database on the session's server, dropped after the test (about a
    second each: for tests of migrations and copies; the rest share one database, emptied per test)."""
    name = f"test_{os.getpid()}_{next(_database_numbers)}"
    _psql(postgres_server, f"CREATE DATABASE {name}")
    yield postgres_server.url(name)
    _psql(postgres_server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def _postgres_shared(postgres_server: PostgresServer) -> str:
    """One database per session with the latest schema, created and migrated once."""
    import asyncio

    _psql(postgres_server, "CREATE DATABASE shared")
    url = postgres_server.url("shared")

    async def migrate() -> None:
        await (await Database.open(url)).close()

    asyncio.run(migrate())
    return url


@pytest.fixture
def postgres_store_url(postgres_server: PostgresServer, _postgres_shared: str) -> str:
    """The session's database at the latest schema, every table emptied and its ids restarted: for the
    test as good as new, in a few milliseconds."""
    _psql(postgres_server, _EMPTY_TABLES, "shared")
    return _postgres_shared
