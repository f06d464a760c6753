"""People in the store, on both backends: a member met for the first time gets one record, kept at every
later sight, with the name and locale following the platform; several workers meeting one new member at
once make one record; and on PostgreSQL a new member's first sight costs one round trip, as a known
member's does (a daily burst in a new group is all first sights)."""

from __future__ import annotations

import asyncio

from benchmarks.pg_proxy import ProxyProcess
from bot.domain import UserRef
from bot.store import Database
from bot.store.people import ensure_user


async def test_a_member_gets_one_record_whose_name_and_locale_follow_the_platform(db: Database) -> None:
    first = await ensure_user(db, UserRef("telegram", "42", "Ada\u202e", "tr"), 10.0)
    again = await ensure_user(db, UserRef("telegram", "42", "Ada", None), 20.0)
    assert again == first and first.name == "Ada" and first.locale == "tr", "cleaned name, locale kept"
    renamed = await ensure_user(db, UserRef("telegram", "42", "Ada L.", "en"), 30.0)
    assert (renamed.id, renamed.name, renamed.locale) == (first.id, "Ada L.", "en")
    other = await ensure_user(db, UserRef("discord", "42", "Ada"), 40.0)
    assert other.id != first.id, "the same id on another platform is another person"
    rows = await db.fetch_all("SELECT id, created_at FROM users ORDER BY id")
    assert [(row[0], row[1]) for row in rows] == [(first.id, 10.0), (other.id, 40.0)]


async def test_workers_meeting_one_new_member_at_once_make_one_record(postgres_store_url: str) -> None:
    workers = [await Database.open(postgres_store_url) for _ in range(6)]
    try:
        records = await asyncio.gather(*(ensure_user(db, UserRef("telegram", "7", "Bo"), 5.0)
                                         for db in workers * 3))
        assert len({record.id for record in records}) == 1
        assert (await workers[0].fetch_one("SELECT count(*) FROM users"))[0] == 1
        drawn = "SELECT last_value FROM users_id_seq"
        before = (await workers[0].fetch_one(drawn))[0]
        for db in workers:
            assert (await ensure_user(db, UserRef("telegram", "7", "Bo"), 6.0)).id == records[0].id
        assert (await workers[0].fetch_one(drawn))[0] == before, "a known member's sights draw no ids"
    finally:
        for db in workers:
            await db.close()


async def test_a_new_members_first_sight_is_one_round_trip_on_postgresql(postgres_server,
                                                                          postgres_store_url: str) -> None:
    async with ProxyProcess(postgres_server.port) as proxy:
        db = await Database.open(postgres_store_url.replace(f":{postgres_server.port}/", f":{proxy.port}/"))
        try:
            await ensure_user(db, UserRef("telegram", "1", "Warm"), 1.0)  # the statement prepared
            for sight in ("new", "known"):
                before = (await proxy.chunks())["to_server"]
                record = await ensure_user(db, UserRef("telegram", "2", "Dee"), 2.0)
                assert (await proxy.chunks())["to_server"] - before == 1, f"a {sight} member's sight"
                assert record.name == "Dee"
        finally:
            await db.close()
