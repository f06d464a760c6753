"""Property-based tests: random and mutated button tokens, clicks and question files never crash or record wrongly."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.bank.validate import validate_file
from bot.core import Core
from bot.domain import ChatRef, InterviewFilters, UserRef
from bot.store import Database
from bot.tokens import answer_token, parse_answer_token
from tests.conftest import FIXTURE_BANK

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@given(st.text(max_size=80))
def test_any_text_either_parses_to_ids_or_is_rejected(text: str) -> None:
    parsed = parse_answer_token(text)
    if parsed is not None:
        assert answer_token(parsed.asked_id, parsed.letter) == text
        assert len(text.encode()) <= 64


@given(st.integers(min_value=1, max_value=10**12 - 1), st.sampled_from("abcdef"))
def test_every_token_we_make_fits_telegram_and_round_trips(asked_id: int, letter: str) -> None:
    token = answer_token(asked_id, letter)
    assert len(token.encode()) <= 64 and parse_answer_token(token) == (parse_answer_token(token))
    assert parse_answer_token(token).asked_id == asked_id


def _mutations() -> st.SearchStrategy[tuple[int, int, str]]:
    return st.tuples(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=40),
                     st.text(alphabet=st.characters(codec="utf-8"), max_size=12))


@SETTINGS
@given(_mutations())
def test_mutated_question_files_give_problems_not_exceptions(mutation: tuple[int, int, str]) -> None:
    text = (FIXTURE_BANK / "sync.yaml").read_text(encoding="utf-8")
    at, cut, insert = mutation
    at %= len(text)
    mutated = text[:at] + insert + text[at + cut:]
    topic, questions, problems = validate_file(mutated, "mutated.yaml")
    for problem in problems:
        assert problem.file == "mutated.yaml" and problem.line >= 1 and problem.field and problem.message
    for question in questions:
        assert sum(option.correct for option in question.options) == 1


async def _count_answers(db: Database) -> int:
    return (await db.fetch_one("SELECT count(*) FROM answers"))[0]


@SETTINGS
@given(clicks=st.lists(st.tuples(st.sampled_from(["owner", "stranger"]), st.integers(-2, 3),
                                 st.sampled_from(list("abcdefz")), st.integers(0, 120)), min_size=1, max_size=12))
async def test_random_clicks_record_at_most_one_answer_per_question(tmp_path_factory, bank, clicks) -> None:
    path: Path = tmp_path_factory.mktemp("clicks") / "db.sqlite3"
    from bot.schedule.clock import ManualClock

    clock = ManualClock()
    async with await Database.open(path) as db:
        core = Core(db, bank, clock, random.Random(0), scheduled=False)
        owner = UserRef("test", "owner", "Owner")
        chat = ChatRef("test", "owner")
        first = await core.start_interview(owner, chat, InterviewFilters(count=3, time_limit_s=60))
        for who, offset, letter, seconds in clicks:
            clock.advance(seconds)
            user = owner if who == "owner" else UserRef("test", "stranger", "S")
            token = f"a:{max(1, first.asked_id + offset)}:{letter}"
            reply = await core.click(user, chat, token)
            assert reply.popup  # always a clear message
            if who == "stranger":
                assert reply.alert and reply.edit is None
            await core.tick()
        rows = await db.fetch_all("SELECT asked_id, user_id, count(*) AS n FROM answers GROUP BY asked_id, user_id")
        assert all(row["n"] == 1 for row in rows)
        strangers = await db.fetch_one(
            "SELECT count(*) FROM answers a JOIN users u ON u.id = a.user_id WHERE u.platform_user_id = 'stranger'")
        assert strangers[0] == 0
        late = await db.fetch_one(
            """SELECT count(*) FROM answers a JOIN asked_questions q ON q.id = a.asked_id
               WHERE a.option_index IS NOT NULL AND a.answered_at > q.deadline""")
        assert late[0] == 0, "an answer after the deadline is never recorded as an answer"
