"""Fixtures for the Discord adapter: a Core over the fixture bank, a client whose HTTP is recorded."""

from __future__ import annotations

import random

import pytest

from bot.core import Core
from tests.adapters.discord.harness import Discord, Recorder, make_client


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def core(db, bank, clock) -> Core:
    return Core(db, bank, clock, random.Random(5), scheduled=False)


@pytest.fixture
async def discord_(core, recorder, monkeypatch):
    client = await make_client(core, recorder, monkeypatch)
    yield Discord(client, recorder)
    await client.port.counters.close()
