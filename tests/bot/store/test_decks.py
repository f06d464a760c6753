"""The deck store on both backends: a replace keeps the row and moves the version (every worker's cache
key), the per-chat limit holds inside the write, a removal leaves the answers and frees the daily
question's topic, a chat merge carries decks over, /forget blanks the uploader, and the 30-day purge."""

from __future__ import annotations

import asyncio

import pytest

from bot.bank.loader import Bank
from bot.decks.codec import encode
from bot.decks.library import Library
from bot.decks.parse import parse_deck
from bot.domain import ChatRef, InterviewFilters, UserRef
from bot.limits import DECK_REMOVAL_GRACE_S
from bot.store import Database
from bot.store import decks as store
from bot.store.daily import create_post, get_subscription, save_subscription
from bot.store.interviews import ask, create_interview, finish_interview
from bot.store.forget import forget_user
from bot.store.people import ensure_chat, ensure_user, find_chat, move_chat
from tests.bot.decks.files import CSV, GIFT

QUESTIONS = encode(parse_deck("w.gift", GIFT.encode(), "en")[1])
OTHER_QUESTIONS = encode(parse_deck("w.csv", CSV.replace("Which split", "On which split").encode(), "en")[1])


async def group(db: Database, platform_id: str = "g1") -> int:
    return (await ensure_chat(db, ChatRef("test", platform_id, "group", "G"), 0.0)).id


async def test_a_replace_keeps_the_row_and_moves_the_version(db: Database) -> None:
    chat = await group(db)
    first, replaced = await store.save_deck(db, chat, "week", QUESTIONS, 3, None, "Ana", 10.0, 20)
    assert not replaced and first.version == 1 and first.added_by_name == "Ana"
    second, replaced = await store.save_deck(db, chat, "week", OTHER_QUESTIONS, 3, None, "Bo", 20.0, 20)
    assert replaced and second.id == first.id and second.version == 2 and second.added_at == 20.0
    stored = await store.deck_questions(db, first.id)
    assert stored is not None and (stored.version, stored.questions, stored.retired) == (2, OTHER_QUESTIONS, None)


async def test_the_limit_counts_inside_the_write_and_allows_a_replace(db: Database) -> None:
    chat, other = await group(db), await group(db, "g2")
    for number in range(3):
        await store.save_deck(db, chat, f"d{number}", QUESTIONS, 3, None, "", 0.0, 3)
    with pytest.raises(store.TooManyDecks):
        await store.save_deck(db, chat, "d3", QUESTIONS, 3, None, "", 0.0, 3)
    await store.save_deck(db, chat, "d1", OTHER_QUESTIONS, 3, None, "", 0.0, 3)  # a replace
    assert not (await store.save_deck(db, other, "d3", QUESTIONS, 3, None, "", 0.0, 3))[1], "another chat's own 3"
    assert [deck.name for deck in await store.list_decks(db, chat)] == ["d0", "d1", "d2"]


async def test_a_removal_frees_the_daily_topic_and_only_for_the_version_confirmed(db: Database) -> None:
    chat = await group(db)
    deck, _ = await store.save_deck(db, chat, "week", QUESTIONS, 3, None, "", 0.0, 20)
    await save_subscription(db, chat, "09:00", "UTC", None, f"deck.{deck.id}", None, 3600, 0.0, 100.0)
    await store.save_deck(db, chat, "week", OTHER_QUESTIONS, 3, None, "", 1.0, 20)
    assert await store.delete_deck(db, deck.id, 1, 0.0) is None, "confirmed for the upload since replaced"
    assert (await get_subscription(db, chat)).topic == f"deck.{deck.id}"
    assert (await store.delete_deck(db, deck.id, 2, 0.0)).name == "week"
    assert (await get_subscription(db, chat)).topic is None, "the daily question goes back to every topic"
    assert await store.list_decks(db, chat) == []


async def test_a_chat_merge_carries_the_decks_over(db: Database) -> None:
    old, new = await group(db, "old"), await group(db, "new")
    await store.save_deck(db, old, "only-old", QUESTIONS, 3, None, "", 0.0, 20)
    await store.save_deck(db, old, "both", QUESTIONS, 3, None, "old", 0.0, 20)
    await store.save_deck(db, new, "both", OTHER_QUESTIONS, 3, None, "new", 0.0, 20)
    await move_chat(db, "test", "old", "new")  # the decks move in the merge's transaction: the old record can go
    assert await find_chat(db, "test", "old") is None
    decks = {deck.name: deck for deck in await store.list_decks(db, new)}
    assert sorted(decks) == ["both", "only-old"] and decks["both"].added_by_name == "new"


async def test_forget_blanks_the_uploader_and_keeps_the_deck(db: Database) -> None:
    chat = await group(db)
    person = await ensure_user(db, UserRef("test", "u1", "Ana"), 0.0)
    await store.save_deck(db, chat, "week", QUESTIONS, 3, person.id, "Ana", 0.0, 20)
    await forget_user(db, person.id)  # in its one transaction, the decks' uploader first, then the person
    [deck] = await store.list_decks(db, chat)
    assert deck.added_by is None and deck.added_by_name == "" and deck.count == 3


async def test_the_purge_waits_thirty_days_from_the_first_removal(db: Database) -> None:
    gone, back, kept = await group(db, "gone"), await group(db, "back"), await group(db, "kept")
    for chat in (gone, back, kept):
        await store.save_deck(db, chat, "week", QUESTIONS, 3, None, "", 0.0, 20)
    await store.mark_left(db, gone, 100.0)
    await store.mark_left(db, gone, 500.0)  # a second notice does not restart the count
    await store.mark_left(db, back, 200.0)
    assert await store.mark_back(db, back) and not await store.mark_back(db, kept)
    assert await store.next_purge(db) == 100.0
    assert await store.purge_left(db, 99.0) == []
    assert len(await store.purge_left(db, 100.0)) == 1
    assert await store.list_decks(db, gone) == [] and await store.next_purge(db) is None
    assert len(await store.list_decks(db, back)) == len(await store.list_decks(db, kept)) == 1


async def test_two_workers_see_a_replace_at_their_next_check(db_path) -> None:
    """Each worker caches decks by version: one replaces, the other loads the new version when it next
    readies the chat, and a removal is seen the same way."""
    async with await Database.open(db_path) as first, await Database.open(db_path) as second:
        chat = await group(first)
        one, two = Library(Bank(), first), Library(Bank(), second)
        deck, _ = await store.save_deck(first, chat, "week", QUESTIONS, 3, None, "", 0.0, 20)
        [held] = await two.ready_chat(chat)
        assert held.version == 1 and two.get(next(iter(held.questions))) is not None
        assert one.select(("deck.1",)) == [], "nothing is loaded before it is readied"
        await store.save_deck(first, chat, "week", OTHER_QUESTIONS, 3, None, "", 1.0, 20)
        [held] = await two.ready_chat(chat)
        assert held.version == 2 and {q.stem("en") for q in held.questions.values()} >= {"On which split is a scaler fitted on?"}
        assert len(two.select((f"deck.{deck.id}",))) == 3 and list(two.questions) == [], "iteration is the bank's"
        await store.delete_deck(first, deck.id, None, 0.0)
        assert await two.ready_chat(chat) == [] and two.select((f"deck.{deck.id}",)) == []


async def test_uploads_at_once_never_pass_the_limit(db_path) -> None:
    """Eight workers adding different decks to one chat at the same moment: the limit still holds."""
    workers = [await Database.open(db_path) for _ in range(8)]
    try:
        chat = await group(workers[0])
        await store.save_deck(workers[0], chat, "first", QUESTIONS, 3, None, "", 0.0, 5)

        async def upload(number: int) -> bool:
            try:
                await store.save_deck(workers[number], chat, f"d{number}", QUESTIONS, 3, None, "", 0.0, 5)
            except store.TooManyDecks:
                return False
            return True

        stored = await asyncio.gather(*(upload(number) for number in range(8)))
        assert sum(stored) == 4 and len(await store.list_decks(workers[0], chat)) == 5
    finally:
        for worker in workers:
            await worker.close()


async def test_one_new_name_uploaded_by_several_workers_at_once_is_one_deck(db_path) -> None:
    """The same new name from eight workers at the same moment: one adds it, the others replace it; none
    meets the unique (chat, name) key as an error."""
    workers = [await Database.open(db_path) for _ in range(8)]
    try:
        chat = await group(workers[0])
        saved = await asyncio.gather(*(store.save_deck(worker, chat, "dup", QUESTIONS, 3, None, "", 0.0, 20)
                                       for worker in workers))
        assert sorted(replaced for _, replaced in saved) == [False] + [True] * 7
        [deck] = await store.list_decks(workers[0], chat)
        assert deck.name == "dup" and deck.version == 8
    finally:
        for worker in workers:
            await worker.close()


async def test_a_removal_keeps_the_row_only_while_a_question_of_it_is_live(db: Database) -> None:
    chat, person = await group(db), (await ensure_user(db, UserRef("test", "u1", "Ana"), 0.0)).id
    deck, _ = await store.save_deck(db, chat, "week", QUESTIONS, 3, None, "", 0.0, 20)
    day = 86400.0
    old = await create_post(db, chat, f"deck.{deck.id}.a", (0, 1), "manual", "d0", 9 * day, 0.0)
    interview = await create_interview(db, person, chat, InterviewFilters(), [f"deck.{deck.id}.b"], "en", 9 * day)
    await ask(db, f"deck.{deck.id}.b", chat, interview, 0, (0, 1), 9 * day, None)
    now = 9 * day + 10
    assert old is not None and await store.live_question_ids(db, deck.id, now) == {f"deck.{deck.id}.b"}, \
        "a post asked more than 8 days ago is not live any more"
    removed = await store.delete_deck(db, deck.id, None, now)
    assert removed is not None and await store.list_decks(db, chat) == []
    assert await store.get_deck(db, chat, "week") is None, "nobody names a removed deck"
    kept = await store.deck_by_id(db, deck.id)
    assert kept is not None and kept.removed_at == now and kept.version == 2, "marked, its version moved"
    assert await store.delete_deck(db, deck.id, None, now) is None, "removed once"
    assert not await store.sweep(db, deck.id, now, None, kept.version), "the interview's question is open"
    async with db.transaction() as connection:
        await finish_interview(connection, interview, "stopped", now)
    assert await store.live_question_ids(db, deck.id, now) == set(), "a stopped interview's question is not live"
    assert not await store.sweep(db, deck.id, now, None, kept.version), "kept through the removal's grace"
    later = now + DECK_REMOVAL_GRACE_S
    assert await store.sweep(db, deck.id, later, None, kept.version) and await store.deck_by_id(db, deck.id) is None


async def test_a_post_made_from_a_deck_as_it_was_removed_keeps_the_deck_for_its_reveal(db: Database) -> None:
    """Another worker read the deck a moment before the removal committed and posts its question just after:
    with nothing live at the removal, the deck must still be there for that post's reveal."""
    chat = await group(db)
    deck, _ = await store.save_deck(db, chat, "week", QUESTIONS, 3, None, "", 0.0, 20)
    removed = await store.delete_deck(db, deck.id, None, 100.0)
    assert removed is not None and await store.live_question_ids(db, deck.id, 100.0) == set()
    post = await create_post(db, chat, f"deck.{deck.id}.a", (0, 1), "manual", "d0", 100.5 + 3600, 100.5)
    assert post is not None
    later = 100.0 + DECK_REMOVAL_GRACE_S + 1
    assert not await store.sweep(db, deck.id, later, None, removed.version + 1), "its post is still open"
    assert await store.deck_by_id(db, deck.id) is not None


async def test_the_sweep_leaves_a_removed_name_uploaded_again(db: Database) -> None:
    chat = await group(db)
    deck, _ = await store.save_deck(db, chat, "week", QUESTIONS, 3, None, "", 0.0, 20)
    await create_post(db, chat, f"deck.{deck.id}.a", (0, 1), "manual", "d0", 100.0, 1.0)
    await store.delete_deck(db, deck.id, None, 2.0)
    [kept] = await store.kept_for_live(db)
    again, replaced = await store.save_deck(db, chat, "week", OTHER_QUESTIONS, 3, None, "", 3.0, 20,
                                            retire=lambda live: "[]" if f"deck.{deck.id}.a" in live else None)
    assert again.id == deck.id and not replaced and again.removed_at is None, "taken up again, as a new deck"
    assert not await store.sweep(db, deck.id, 4.0, None, kept.version), "an upload since: not deleted"
    assert (await store.deck_questions(db, deck.id)).retired == "[]", "its live question kept"
    assert [row.name for row in await store.list_decks(db, chat)] == ["week"]


async def test_the_minute_sweep_reads_the_decks_waiting_for_it_not_the_table(db: Database) -> None:
    """Every worker looks for decks to sweep each minute; with thousands of groups' decks that must not be a
    scan of them all: SQLite's plan for the read goes through the partial index of the waiting rows."""
    chat = await group(db)
    for number in range(30):
        await store.save_deck(db, chat, f"d{number}", QUESTIONS, 3, None, "", 0.0, 50)
    deck = await store.get_deck(db, chat, "d7")
    assert deck is not None and await store.delete_deck(db, deck.id, None, 5.0) is not None
    assert [kept.id for kept in await store.kept_for_live(db)] == [deck.id]
    if db.dialect.name == "sqlite":
        plan = " ".join(str(tuple(row)) for row in await db.fetch_all(
            f"EXPLAIN QUERY PLAN SELECT id FROM decks WHERE {store.AWAITING_SWEEP}"))
        assert "decks_awaiting_sweep" in plan, plan
