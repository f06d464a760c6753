"""The clicks' memory of sent daily posts (bot/daily/open_posts.py): a burst reads a post once, and a post
remembered as open never lets an answer in after its question closed, wherever it closed."""

from __future__ import annotations

from dataclasses import replace

from bot.daily.open_posts import CHAT_FRESH_S, OpenPosts
from bot.domain import LETTERS, AskedQuestion, ChatRef, UserRef
from bot.store import daily as posts
from bot.store import interviews as records
from bot.store.people import find_chat, set_chat_language
from bot.text.i18n import t
from bot.tokens import answer_token
from tests.bot.daily.test_service import GROUP, at

ASKED = AskedQuestion(7, "q", 3, None, 0, (1, 0, 2), 100.0, None, None)


def post(state: str = "sent", reveal_at: float = 200.0) -> posts.DailyPost:
    return posts.DailyPost(1, 3, 7, "scheduled", "2026-05-04", state, reveal_at, 101.0 if state == "sent" else None)


def test_only_a_sent_open_post_with_its_message_is_remembered() -> None:
    memory = OpenPosts()
    memory.remember(ASKED, "3:9", post("pending"), 150.0)
    memory.remember(ASKED, None, post(), 150.0)  # where it went is not known yet
    memory.remember(AskedQuestion(7, "q", 3, None, 0, (1, 0, 2), 100.0, None, 140.0), "3:9", post(), 150.0)
    memory.remember(ASKED, "3:9", post(), 250.0)  # past its reveal instant
    assert memory.get(7, 150.0) is None
    memory.remember(ASKED, "3:9", post(), 150.0)
    known = memory.get(7, 150.0)
    assert known is not None and known.message_ref == "3:9" and known.asked == ASKED


def test_a_chat_record_serves_the_same_chat_for_a_moment() -> None:
    memory = OpenPosts()
    memory.remember(ASKED, "3:9", post(), 150.0)
    group = ChatRef("test", "g", "group", "G")
    record = object()
    memory.remember_chat(7, group, record, 150.0)  # type: ignore[arg-type]
    assert memory.chat(7, group, 150.0 + CHAT_FRESH_S) is record
    assert memory.chat(7, group, 150.1 + CHAT_FRESH_S) is None
    assert memory.chat(7, replace(group, title="G2"), 150.0) is None
    memory.remember_chat(8, group, record, 150.0)  # type: ignore[arg-type]  # no such post remembered
    assert memory.chat(8, group, 150.0) is None


def test_a_post_is_forgotten_at_its_reveal_instant_or_when_told() -> None:
    memory = OpenPosts()
    memory.remember(ASKED, "3:9", post(reveal_at=200.0), 150.0)
    assert memory.get(7, 200.0) is not None
    assert memory.get(7, 200.5) is None and memory.get(7, 150.0) is None  # gone, not only hidden
    memory.remember(ASKED, "3:9", post(), 150.0)
    memory.forget(7)
    assert memory.get(7, 150.0) is None


def test_the_oldest_posts_go_first_past_the_limit() -> None:
    memory = OpenPosts(limit=2)
    for asked_id in (1, 2, 3):
        asked = AskedQuestion(asked_id, "q", 3, None, 0, (0, 1), 100.0, None, None)
        memory.remember(asked, f"3:{asked_id}", posts.DailyPost(asked_id, 3, asked_id, "scheduled", "d", "sent",
                                                                200.0, 101.0), 150.0)
    assert [memory.get(n, 150.0) is not None for n in (1, 2, 3)] == [False, True, True]


async def posted_question(core, daily, clock, bank, db) -> tuple[int, str, str]:
    """A daily question posted in GROUP: its asked id, a right and a wrong letter."""
    clock.set(at("2026-05-04 07:00", "UTC"))
    await core.subscribe(GROUP, "09:00", "UTC", reveal_after_hours=2)
    clock.set(at("2026-05-04 09:00", "UTC"))
    await daily.run_due()
    asked_id = int(next(iter(await db.fetch_all("SELECT id FROM asked_questions")))[0])
    row = await db.fetch_one("SELECT option_order, question_id FROM asked_questions WHERE id = ?", (asked_id,))
    right = LETTERS[[int(c) for c in row["option_order"]].index(bank.questions[row["question_id"]].correct_index)]
    wrong = next(letter for letter in LETTERS[: len(row["option_order"])] if letter != right)
    return asked_id, right, wrong


async def test_a_burst_reads_the_post_once(core, clock, bank, db) -> None:
    daily = core.daily
    asked_id, right, _ = await posted_question(core, daily, clock, bank, db)
    reads: list[str] = []
    original = db.fetch_all

    async def counting(sql, parameters=()):
        reads.append(sql)
        return await original(sql, parameters)

    db.fetch_all = counting
    for number in range(5):
        clock.advance(2 * CHAT_FRESH_S)
        reply = await core.click(UserRef("test", f"m{number}", f"Member {number}"), GROUP, answer_token(asked_id, right))
        assert reply.refused is None and reply.counter == (asked_id, number + 1)
    post_reads = [sql for sql in reads if "FROM daily_posts" in sql or "FROM asked_questions" in sql]
    assert len(post_reads) <= 2, post_reads  # the first click's reads; the four after it read neither
    chat_reads = [sql for sql in reads if "FROM chats" in sql]
    assert len(chat_reads) == 5, "a click every two moments: each reads the chat again"
    reads.clear()
    clock.advance(2 * CHAT_FRESH_S)
    for number in range(5, 10):
        clock.advance(CHAT_FRESH_S / 10)
        await core.click(UserRef("test", f"m{number}", f"Member {number}"), GROUP, answer_token(asked_id, right))
    assert len([sql for sql in reads if "FROM chats" in sql]) == 1, "five clicks within a moment read it once"


async def test_the_pop_up_follows_the_groups_language(core, clock, bank, db) -> None:
    """Changed here: the very next click speaks it. Changed by another worker (the store alone): the clicks
    speak it within CHAT_FRESH_S. A title the click shows differently is stored at once."""
    daily = core.daily
    asked_id, right, _ = await posted_question(core, daily, clock, bank, db)
    token = answer_token(asked_id, right)
    for number in range(2):  # the post, then its chat, remembered
        assert (await core.click(UserRef("test", f"m{number}", "M"), GROUP, token)).popup == t("en", "daily.right")
    await core.set_language("tr", UserRef("test", "admin", "Admin"), GROUP)
    assert (await core.click(UserRef("test", "m2", "M"), GROUP, token)).popup == t("tr", "daily.right")
    group = await find_chat(db, GROUP.platform, GROUP.platform_id)
    await set_chat_language(db, group.id, "en")  # another worker's /language
    clock.advance(CHAT_FRESH_S + 0.1)
    assert (await core.click(UserRef("test", "m3", "M"), GROUP, token)).popup == t("en", "daily.right")
    renamed = replace(GROUP, title="Study group 2")
    assert (await core.click(UserRef("test", "m4", "M"), renamed, token)).refused is None
    assert (await find_chat(db, GROUP.platform, GROUP.platform_id)).title == "Study group 2"


async def test_a_question_closed_by_another_worker_takes_no_answer(core, clock, bank, db) -> None:
    """This process remembers the post as open; another worker's reveal closes its question in the store
    (this process hears nothing of it). A click then is refused as closed and nothing is recorded."""
    daily = core.daily
    asked_id, right, wrong = await posted_question(core, daily, clock, bank, db)
    first = await core.click(UserRef("test", "m0", "Member 0"), GROUP, answer_token(asked_id, right))
    assert first.refused is None and daily.open_posts.get(asked_id, clock.now()) is not None
    async with db.transaction() as connection:  # what another worker's reveal does first
        await records.close_asked(connection, asked_id, clock.now())
    clock.advance(1)
    late = await core.click(UserRef("test", "m1", "Member 1"), GROUP, answer_token(asked_id, wrong))
    assert late.refused == "closed" and late.alert and late.counter is None
    assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == 1


async def test_a_click_past_the_reveal_instant_is_refused_before_the_reveal_runs(core, clock, bank, db) -> None:
    daily = core.daily
    asked_id, right, _ = await posted_question(core, daily, clock, bank, db)
    assert (await core.click(UserRef("test", "m0", "Member 0"), GROUP, answer_token(asked_id, right))).refused is None
    clock.set(at("2026-05-04 11:00:01", "UTC"))  # due, not yet revealed
    late = await core.click(UserRef("test", "m1", "Member 1"), GROUP, answer_token(asked_id, right))
    assert late.refused == "closed"
    elsewhere = await core.click(UserRef("test", "m2", "Member 2"), ChatRef("test", "other", "group"),
                                 answer_token(asked_id, right))
    assert elsewhere.refused is not None
    assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == 1
