"""Bad input, property-based: fuzzed clicks through the real Telegram adapter, fuzzed question files
through the real command.

tests/bot/test_properties.py fuzzes tokens and clicks at the core. Here every click is a Telegram
Update that the real PTB Application processes (handlers, error handler, pop-ups over HTTP to the fake
Bot API server): random bytes and text up to 64 bytes, mutated answer and menu tokens, strangers on
someone's interview, clicks from the wrong chat, late clicks (a ManualClock moved past deadlines and
the reveal, with ticks), and double clicks. Whatever comes:
- no exception reaches the error handler (a UserError, the designed path for a user's mistake, aside);
- every click gets exactly one pop-up, with text (a valid menu step answers by editing the menu);
- the answers table holds only first answers, by the interview's owner or a member of the daily
  question's chat, made before the deadline or reveal, with the option the counted click chose.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from telegram import Update
from telegram.ext import Application, ContextTypes

from adapters.telegram.app import build_application
from adapters.telegram.delivery import Pacing
from adapters.telegram.menus import parse_menu
from adapters.telegram.services import SERVICES
from bot.bank import load_bank
from bot.schedule.clock import ManualClock
from bot.core import Core
from bot.domain import ChatRef
from bot.errors import UserError
from bot.text.i18n import t
from bot.store import Database
from bot.store.interviews import get_asked
from bot.tokens import parse_answer_token
from tests.adapters.telegram.conftest import api  # noqa: F401 - the fake Bot API server fixture
from tests.adapters.telegram.fake_bot_api import TOKEN, FakeBotApi, Stored
from tests.reliability.support import FIXTURE_BANK, REPO, click, group, member

pytestmark = pytest.mark.slow  # python -m pytest -m "not slow" leaves these out

FAST = Pacing(overall=(1000, 1.0), group=(1000, 1.0), private=(1000, 1.0))
OWNER, STRANGER, MEMBER = member(81_001), member(81_002), member(81_003)
PEOPLE = {"owner": OWNER, "stranger": STRANGER, "member": MEMBER}
GROUP = group(-1_004_000_000_001)
REFUSALS = {t("en", f"refusal.{reason}") for reason in
            ("unknown", "closed", "not_yours", "wrong_chat", "wrong_message", "already_answered", "expired")}
CLICKS = settings(max_examples=60, deadline=None, derandomize=True,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
_ids = itertools.count(1)


# --- what a click is made of ---------------------------------------------------------------------------

def _bytes_64(text: str) -> str:
    """Telegram's callback_data is at most 64 bytes of UTF-8."""
    return text.encode()[:64].decode(errors="ignore")


MUTATION = st.tuples(st.sampled_from(["replace", "insert", "delete", "digit", "letter", "separator"]),
                     st.integers(0, 63), st.characters(codec="utf-8"))


def mutate(data: str, mutation: tuple[str, int, str]) -> str:
    """One edit of a token: a character replaced, inserted or deleted, or a digit, letter or ':' changed."""
    kind, at, char = mutation
    at %= len(data) + 1
    if kind == "replace":
        return data[:at] + char + data[at + 1:]
    if kind == "insert":
        return data[:at] + char + data[at:]
    if kind == "delete":
        return data[:at] + data[at + 1:]
    marks = {"digit": "0123456789", "letter": "abcdefgz", "separator": ":"}[kind]
    places = [index for index, item in enumerate(data) if item in marks] or [at % max(len(data), 1)]
    place = places[at % len(places)]
    swap = {"digit": "9071", "letter": "fzAa", "separator": [";", "::", "", " "]}[kind]
    return data[:place] + swap[ord(char[:1] or "a") % len(swap)] + data[place + 1:]


BUTTON = st.tuples(st.just("button"), st.sampled_from(["interview", "daily", "old"]), st.integers(0, 5), st.just([]))
DATA = st.one_of(
    BUTTON, BUTTON, BUTTON,  # real buttons, often: answers that count, doubles, late ones, strangers
    st.tuples(st.just("button"), st.sampled_from(["interview", "daily", "old"]), st.integers(0, 5),
              st.lists(MUTATION, min_size=1, max_size=2)),
    st.tuples(st.just("menu"), st.sampled_from(["m:t:0", "m:l:1:2", "m:c:0:0:3", "m:t:*"]), st.just(0),
              st.lists(MUTATION, min_size=1, max_size=2)),
    st.tuples(st.just("text"), st.text(max_size=64).map(_bytes_64), st.just(0), st.just([])),
    st.tuples(st.just("bytes"), st.binary(max_size=64).map(lambda raw: raw.decode("utf-8", "replace"))
              .map(_bytes_64), st.just(0), st.just([])),
)
CLICK = st.tuples(st.just("click"), st.sampled_from(["owner", "owner", "stranger", "member"]),
                  st.sampled_from(["interview", "daily", "old"]), DATA, st.booleans())  # the last: a double click
WAIT = st.tuples(st.just("wait"), st.sampled_from([1, 20, 61, 3600, 13 * 3600]), st.booleans())  # then a tick?
ACTIONS = st.lists(st.one_of(CLICK, CLICK, CLICK, WAIT), min_size=1, max_size=16)


# --- the bot under test --------------------------------------------------------------------------------

@dataclass
class Sent:
    """One click as sent, with the moment it was made and where."""

    query_id: str
    user: dict
    chat: dict
    data: str
    at: float


@dataclass
class World:
    api: FakeBotApi
    core: Core
    application: Application
    clock: ManualClock
    since: int  # the first message id of this world (the fake server serves every example)
    errors: list[BaseException] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)

    async def process(self, body: dict) -> None:
        update = Update.de_json({"update_id": next(_ids), **body}, self.application.bot)
        await self.application.process_update(update)

    def message(self, where: str, pick: int) -> Stored:
        """The interview's current question, the group's daily question, or any older message."""
        ours = [stored for stored in self.api.sent_to(OWNER["id"]) + self.api.sent_to(GROUP["id"])
                if stored.message_id >= self.since]
        if where == "interview":
            return [stored for stored in ours if stored.chat_id == OWNER["id"]][-1]
        if where == "daily":
            return [stored for stored in ours if stored.chat_id == GROUP["id"]][0]
        return ours[pick % len(ours)]

    def data(self, spec: tuple) -> str:
        kind, base, pick, mutations = spec
        if kind == "button":
            buttons = self.message(base, pick).data or ["a:1:a"]  # a closed question has none left
            base = buttons[pick % len(buttons)]
        for mutation in mutations:
            base = mutate(base, mutation)
        return _bytes_64(base)

    async def click(self, who: str, where: str, spec: tuple, double: bool) -> None:
        user, stored = PEOPLE[who], self.message(where, 0)
        data = self.data(spec)
        for _ in range(2 if double else 1):
            query_id = f"f{next(_ids)}"
            self.sent.append(Sent(query_id, user, self.api._chat(stored.chat_id), data, self.clock.now()))
            await self.process(click(query_id, user, self.api._message(stored), data))


async def no_sleep(seconds: float) -> None:
    await asyncio.sleep(0)


async def new_world(api: FakeBotApi, path: Path) -> World:
    """A fresh store; the owner in a timed interview (by /interview), the group with a daily question."""
    clock = ManualClock()
    core = Core(await Database.open(path), load_bank([FIXTURE_BANK]), clock, random.Random(3), scheduled=False)
    application = build_application(core, TOKEN, base_url=api.base_url, pacing=FAST, sleep=no_sleep,
                                    counter_delay=0.01, request_timeout=10)
    world = World(api, core, application, clock, since=max((id_ for _, id_ in api.messages), default=0) + 1)

    async def record(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        world.errors.append(context.error)  # type: ignore[arg-type]

    application.add_error_handler(record)
    await application.initialize()
    text = "/interview sync-basics 3 60s"
    await world.process({"message": {"message_id": next(_ids), "date": int(time.time()), "from": OWNER,
                                     "chat": api._chat(OWNER["id"]), "text": text,
                                     "entities": [{"type": "bot_command", "offset": 0, "length": 10}]}})
    assert await core.post_daily_now(ChatRef("telegram", str(GROUP["id"]), "group", GROUP["title"]))
    return world


async def close_world(world: World) -> None:
    services = world.application.bot_data[SERVICES]
    await services.counters.wait()
    await services.counters.close()
    await world.application.shutdown()
    await world.core.close()


_worlds = itertools.count()


@CLICKS
@given(actions=ACTIONS)
async def test_fuzzed_clicks_through_the_adapter(api: FakeBotApi, tmp_path: Path, actions: list[tuple]) -> None:
    world = await new_world(api, tmp_path / f"world{next(_worlds)}.sqlite3")
    first_call = len(api.calls)
    try:
        for action in actions:
            if action[0] == "click":
                await world.click(*action[1:])
            else:
                world.clock.advance(action[1])
                if action[2]:
                    await world.core.tick()
        await world.application.bot_data[SERVICES].counters.wait()
        await check(world, first_call)
    finally:
        await close_world(world)


async def check(world: World, first_call: int) -> None:
    unexpected = [error for error in world.errors if not isinstance(error, UserError)]
    assert not unexpected, f"an exception reached the error handler: {unexpected[0]!r}"
    popups: dict[str, list[dict]] = {}
    for call in world.api.calls[first_call:]:
        if call.method == "answerCallbackQuery" and call.applied:
            popups.setdefault(call.params["callback_query_id"], []).append(call.params)
    counted: dict[tuple[int, int], Sent] = {}
    db = world.core.db
    for sent in world.sent:
        answers = popups.get(sent.query_id, [])
        assert len(answers) == 1, f"click {sent.data!r} got {len(answers)} pop-ups"
        text, alert = answers[0].get("text") or "", bool(answers[0].get("show_alert"))
        event("a menu step" if not text else "a refusal: " + text[:30] if alert else "counted")
        if not text:
            assert parse_menu(world.core.bank, sent.data) and sent.chat["type"] == "private", \
                f"click {sent.data!r}: an empty pop-up"
            continue
        if alert:
            assert text in REFUSALS, f"click {sent.data!r}: {text!r} is not a refusal's message"
            continue
        token = parse_answer_token(sent.data)
        assert token is not None, f"{sent.data!r} counted"
        asked = await get_asked(db, token.asked_id)
        assert asked is not None
        key = (asked.id, sent.user["id"])
        assert key not in counted, f"{sent.data!r} by {sent.user['id']} counted twice"
        counted[key] = sent
        if asked.interview_id is not None:
            owner = await db.fetch_one(
                "SELECT u.platform_user_id FROM interviews i JOIN users u ON u.id = i.user_id WHERE i.id = ?",
                (asked.interview_id,))
            assert int(owner[0]) == sent.user["id"], f"{sent.data!r} counted for someone else's interview"
            assert asked.deadline is None or sent.at <= asked.deadline, f"{sent.data!r} counted late"
        else:
            chat = await db.fetch_one("SELECT platform_chat_id FROM chats WHERE id = ?", (asked.chat_id,))
            post = await db.fetch_one("SELECT reveal_at FROM daily_posts WHERE asked_id = ?", (asked.id,))
            assert int(chat[0]) == sent.chat["id"], f"{sent.data!r} counted from another chat"
            assert sent.at <= post[0], f"{sent.data!r} counted after the reveal"
    rows = await db.fetch_all(
        """SELECT a.asked_id, u.platform_user_id AS user, a.option_index FROM answers a
           JOIN users u ON u.id = a.user_id WHERE a.option_index IS NOT NULL""")
    stored = {(row["asked_id"], int(row["user"])): row["option_index"] for row in rows}
    assert len(stored) == len(rows)
    assert stored.keys() == counted.keys(), "the answers table and the counted clicks differ"
    for key, sent in counted.items():
        asked = await get_asked(db, key[0])
        assert stored[key] == asked.option_index_of(sent.data.rsplit(":", 1)[1]), f"{sent.data!r}: another option"
    timeouts = await db.fetch_all(
        """SELECT q.interview_id FROM answers a JOIN asked_questions q ON q.id = a.asked_id
           WHERE a.option_index IS NULL AND (q.interview_id IS NULL OR q.deadline IS NULL)""")
    assert not timeouts, "only a timed interview question records an unanswered timeout"


# --- question files -------------------------------------------------------------------------------------

FILES = settings(max_examples=12, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.function_scoped_fixture])
PROBLEM = re.compile(r"^(.+):(\d+): \S.*$")


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", "questions", "validate", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=False)


def assert_problems_or_ok(path: Path, result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    if result.returncode == 0:
        assert result.stdout.startswith("ok: "), result.stdout
        return
    assert result.returncode == 1, (result.returncode, result.stderr)
    lines = result.stdout.splitlines()
    assert lines, "a failed validation names its problems"
    for line in lines:
        match = PROBLEM.match(line)
        assert match and match.group(1) == str(path) and int(match.group(2)) >= 1, f"not FILE:LINE: {line!r}"


@FILES
@given(st.one_of(st.text(max_size=300), st.binary(max_size=300)))
def test_random_files_are_refused_with_file_and_line(tmp_path: Path, content: str | bytes) -> None:
    path = tmp_path / "random.yaml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = validate(path)
    assert_problems_or_ok(path, result)
    assert result.returncode == 1, "random content is not a question file"


@FILES
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 40), st.text(max_size=12)), min_size=1,
                max_size=3))
def test_mutated_files_give_file_and_line_never_a_traceback(tmp_path: Path, edits: list[tuple[int, int, str]]) -> None:
    text = (FIXTURE_BANK / "sync.yaml").read_text(encoding="utf-8")
    for at, cut, insert in edits:
        at %= len(text)
        text = text[:at] + insert + text[at + cut:]
    path = tmp_path / "mutated.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    assert_problems_or_ok(path, validate(path))
