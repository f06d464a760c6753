from __future__ import annotations

import random

import pytest

from bot.core import Core
from tests.fakes import RecordingPort


@pytest.fixture
def port() -> RecordingPort:
    return RecordingPort()


@pytest.fixture
def core(db, bank, clock, port) -> Core:
    core = Core(db, bank, clock, random.Random(5), scheduled=False)
    core.add_port(port)
    return core
