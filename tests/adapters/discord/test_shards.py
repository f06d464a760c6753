"""--shard-count and --shard-ids: one process runs some of a sharded bot's gateway shards.

The bot runs as real processes against a local Discord that shards as Discord does
(tests/adapters/discord/fake_discord.py): one process with both shards, two processes with one each
on one PostgreSQL store (each server's daily question posted once, by the process running its shard),
a dropped shard that resumes and gets the click sent meanwhile, and shard options the gateway refuses.
In process, with the clock moved: which daily posts and reveals a process holding some shards takes."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import sys
import time
from pathlib import Path

import discord
import pytest

from adapters.discord.client import InterviewClient, ShardedInterviewClient, make_client
from adapters.discord.delivery import DiscordPort
from adapters.platform_commands import shard_options
from bot.bank import load_bank
from bot.core import ChatRef, Core
from bot.port import UNOWNED_AFTER_S
from bot.schedule.clock import SystemClock
from bot.store import Database
from tests.adapters.discord.fake_discord import FakeDiscord, Guild, guild_create, guilds_over_shards
from tests.adapters.discord.harness import BOT_USER, Recorder
from tests.reliability.support import FIXTURE_BANK, REPO, eventually


async def test_a_process_runs_the_shards_it_is_given(core) -> None:
    client = make_client(core, shard_count=4, shard_ids=[2, 3])
    assert isinstance(client, ShardedInterviewClient) and isinstance(client, discord.AutoShardedClient)
    assert (client.shard_count, client.shard_ids) == (4, [2, 3])
    assert not client.sync, "only the process with shard 0 syncs the command tree"
    assert client.port.posts_per_second == DiscordPort.posts_per_second / 2, "half the shards: half the pace"
    first = make_client(core, shard_count=4, shard_ids=[0, 1])
    assert first.sync and first.shard_ids == [0, 1]
    both = make_client(core, shard_count=2)
    assert both.shard_ids == [0, 1] and both.port.posts_per_second == DiscordPort.posts_per_second
    plain = make_client(core)
    assert type(plain) is InterviewClient and plain.sync


@pytest.mark.parametrize("count, ids, expected, problem", [
    (None, None, {}, None),
    (4, None, {"shard_count": 4, "shard_ids": None}, None),
    (4, "1,0", {"shard_count": 4, "shard_ids": [0, 1]}, None),
    (None, "0", {}, "--shard-ids needs --shard-count"),
    (4, "0,4", {}, "--shard-ids must be between 0 and 3 (--shard-count 4)"),
    (4, "a,b", {}, "--shard-ids must be numbers separated by commas, like 0,1, not 'a,b'"),
    (0, None, {}, "--shard-count must be between 1 and 1024, not 0"),
])
def test_shard_options_are_checked(count, ids, expected, problem) -> None:
    assert shard_options(argparse.Namespace(shard_count=count, shard_ids=ids)) == (expected, problem)


# -- the bot as processes against a fake Discord that shards as Discord does -------------------------------

TOKEN = "shard-test-token"
ADA = {"id": "800000000000000101", "username": "ada", "discriminator": "0", "global_name": "Ada", "avatar": None}


class BotProcess:
    """One `interview-bot discord ...` process, its Discord the fake (tests/adapters/discord/bot_process.py)."""

    def __init__(self, fake: FakeDiscord, name: str, store: str, args: list[str], log_path: Path) -> None:
        self.fake, self.name, self.store, self.args, self.log_path = fake, name, store, args, log_path
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        env = {**os.environ, "DISCORD_BOT_TOKEN": TOKEN, "INTERVIEW_BOT_DB": self.store,
               "INTERVIEW_BOT_QUESTIONS": str(FIXTURE_BANK), "INTERVIEW_BOT_LOG_LEVEL": "INFO"}
        with self.log_path.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "tests.adapters.discord.bot_process", self.fake.api(self.name),
                self.fake.gateway(self.name), "discord", *self.args, cwd=REPO, env=env,
                stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log)

    async def stop(self) -> int:
        """SIGTERM, as systemd stops a unit; the exit status."""
        assert self.process is not None
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
        return await asyncio.wait_for(self.process.wait(), 20)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


async def subscribe_due_now(store: str, guilds: list[Guild]) -> None:
    """Each guild's channel subscribed to the daily question at the current minute: due at once (within the
    hour of grace), so the processes post as soon as they can, with their own clock."""
    at = time.strftime("%H:%M", time.gmtime(time.time() - 60))
    core = Core(await Database.open(store), load_bank([FIXTURE_BANK]), SystemClock(), random.Random(3),
                scheduled=False)
    try:
        for guild in guilds:
            await core.subscribe(ChatRef("discord", str(guild.channel_id), "group", "ml-study"), at, "UTC")
    finally:
        await core.close()


def daily_posts(fake: FakeDiscord) -> dict[int, list[str]]:
    """Channel id -> the processes that posted a message with answer buttons there (a daily question)."""
    found: dict[int, list[str]] = {}
    for process, request in fake.sent("POST", "/messages"):
        if request.path.startswith("/channels/") and any(key.startswith("a:") for key in request.custom_ids()):
            found.setdefault(int(request.path.split("/")[2]), []).append(process)
    return found


def posted_message(fake: FakeDiscord, guild: Guild) -> tuple[int, str]:
    """(message id, first answer button's custom id) of the daily question in the guild's channel."""
    for message_id, message in fake.recorder.messages.items():
        if int(message["channel_id"]) == guild.channel_id and message["components"]:
            return message_id, message["components"][0]["components"][0]["custom_id"]
    raise AssertionError(f"no daily question in channel {guild.channel_id}")


async def click_and_wait(fake: FakeDiscord, guild: Guild, who: dict) -> tuple[int, str]:
    """A member's click on the guild's daily question, sent on the guild's shard; (interaction id, the
    process whose shard received it)."""
    message_id, custom_id = posted_message(fake, guild)
    interaction_id, payload = fake.click(guild, message_id, custom_id, who)
    session = await fake.dispatch(guild, "INTERACTION_CREATE", payload)
    await eventually(lambda: fake.callbacks(interaction_id), 15, f"an answer to the click in guild {guild.id}")
    return interaction_id, session.process


async def stored_answers(store: str) -> int:
    async with await Database.open(store) as db:
        row = await db.fetch_one("SELECT count(*) AS n FROM answers")
    return row["n"]


async def test_one_process_runs_both_shards_and_a_resume_loses_no_click(tmp_path: Path) -> None:
    guilds = guilds_over_shards(2, per_shard=2)
    fake = FakeDiscord(2, guilds)
    await fake.start()
    store = str(tmp_path / "store.sqlite3")
    await subscribe_due_now(store, guilds)
    bot = BotProcess(fake, "solo", store, ["--shard-count", "2"], tmp_path / "bot.log")
    try:
        await bot.start()
        await eventually(lambda: len(daily_posts(fake)) == len(guilds), 30, "a daily question in every guild")
        await eventually(lambda: len(fake.current) == 2, 30, "both shards identified")  # 5 s apart, as Discord asks
        assert sorted(identify.shard for identify in fake.identifies) == [[0, 2], [1, 2]]
        assert all(identify.accepted and identify.process == "solo" for identify in fake.identifies)

        for guild in guilds:  # each click arrives on its guild's shard, and is answered once
            interaction_id, _ = await click_and_wait(fake, guild, ADA)
            [(_, answer)] = fake.callbacks(interaction_id)
            assert answer.ephemeral and answer.callback_type == 4

        # Shard 1's socket drops; while it is down (its RESUME held at the gate), a member clicks in a guild
        # of shard 1. discord.py resumes the session from its last sequence number; the click comes on RESUME.
        on_shard_1 = next(guild for guild in guilds if guild.shard(2) == 1)
        fake.resume_gate.clear()
        session = fake.current[1]
        await fake.drop(1)
        await eventually(fake.resume_asked.is_set, 15, "shard 1 asking to resume")
        message_id, custom_id = posted_message(fake, on_shard_1)
        late_id, payload = fake.click(on_shard_1, message_id, custom_id, {**ADA, "id": "800000000000000102"})
        await fake.dispatch(on_shard_1, "INTERACTION_CREATE", payload)
        assert not fake.callbacks(late_id), "the shard is down: nothing can have answered yet"
        fake.resume_gate.set()
        await eventually(lambda: fake.callbacks(late_id), 15, "an answer to the click sent while shard 1 was down")
        [resume] = fake.resumes
        assert (resume.shard, resume.session_id, resume.replayed) == (1, session.id, 1)
        assert len(fake.identifies) == 2, "the shard resumed its session; it did not identify anew"
        await asyncio.sleep(1.0)  # time for any duplicate answer or post to show
        assert len(fake.callbacks(late_id)) == 1
        assert await stored_answers(store) == len(guilds) + 1
        assert all(len(processes) == 1 for processes in daily_posts(fake).values()), daily_posts(fake)
        assert await bot.stop() == 0
        assert "Traceback" not in bot.log()
    finally:
        if bot.process is not None and bot.process.returncode is None:
            bot.process.kill()
        await fake.stop()


async def test_two_processes_each_post_their_own_shards_guilds_once(tmp_path: Path, postgres_url: str) -> None:
    guilds = guilds_over_shards(2, per_shard=3)
    fake = FakeDiscord(2, guilds)
    await fake.start()
    await subscribe_due_now(postgres_url, guilds)
    bots = [BotProcess(fake, f"shard{shard}", postgres_url, ["--shard-count", "2", "--shard-ids", str(shard)],
                       tmp_path / f"shard{shard}.log") for shard in (0, 1)]
    try:
        await asyncio.gather(*(bot.start() for bot in bots))
        await eventually(lambda: len(daily_posts(fake)) == len(guilds), 30, "a daily question in every guild")
        await eventually(lambda: len(fake.current) == 2, 30, "both shards identified")
        assert sorted((identify.process, identify.shard) for identify in fake.identifies) == \
            [("shard0", [0, 2]), ("shard1", [1, 2])]
        await asyncio.sleep(2.0)  # both processes keep ticking: time for a second post anywhere to show
        posted = daily_posts(fake)
        owners = {guild.channel_id: f"shard{guild.shard(2)}" for guild in guilds}
        assert posted == {channel: [owner] for channel, owner in owners.items()}, \
            "each guild's question is posted once, by the process that runs the guild's shard"

        for guild in guilds:  # a click reaches the process of its guild's shard, and is answered there, once
            interaction_id, receiver = await click_and_wait(fake, guild, ADA)
            assert receiver == owners[guild.channel_id]
            assert [process for process, _ in fake.callbacks(interaction_id)] == [receiver]
        assert await stored_answers(postgres_url) == len(guilds)
        for bot in bots:
            assert await bot.stop() == 0
            assert "Traceback" not in bot.log()
    finally:
        for bot in bots:
            if bot.process is not None and bot.process.returncode is None:
                bot.process.kill()
        await fake.stop()


# -- in process: which daily work a process holding some of the shards takes ------------------------------

async def shard_client(core: Core, recorder: Recorder, shard_ids: list[int]) -> ShardedInterviewClient:
    """A client of a process that runs `shard_ids` of 2 shards, as after login; its HTTP recorded."""
    client = make_client(core, shard_count=2, shard_ids=shard_ids)
    assert isinstance(client, ShardedInterviewClient)
    client.sync = False
    client.http.request = recorder.http  # type: ignore[method-assign]
    await client._async_setup_hook()
    client._connection.user = discord.ClientUser(state=client._connection, data=BOT_USER)
    await client.setup_hook()
    return client


def posted_in(recorder: Recorder, method: str) -> list[int]:
    return [int(request.path.split("/")[2]) for request in recorder.requests
            if request.method == method and request.path.startswith("/channels/")]


async def test_a_shard_process_leaves_other_shards_servers_to_their_process_until_overdue(core, clock,
                                                                                          recorder) -> None:
    ours, theirs = sorted(guilds_over_shards(2, per_shard=1), key=lambda guild: guild.shard(2) != 1)
    client = await shard_client(core, recorder, [1])
    client._connection.parse_guild_create(guild_create(ours))  # our shard delivered our server; not theirs
    clock.set(clock.now() // 60 * 60)  # on the minute: the posts are due now, not late
    at = time.strftime("%H:%M", time.gmtime(clock.now()))
    for guild in (ours, theirs):
        await core.subscribe(ChatRef("discord", str(guild.channel_id), "group", "ml-study"), at, "UTC",
                             reveal_after_hours=1)
    await core.tick()
    assert posted_in(recorder, "POST") == [ours.channel_id], "only the server on our shard, at once"
    clock.advance(UNOWNED_AFTER_S - 5)
    await core.tick()
    assert posted_in(recorder, "POST") == [ours.channel_id], "the other shard's process has time to post"
    clock.advance(10)  # it has not: it is down; this process posts for it, once
    theirs_posted_at = clock.now()
    await core.tick()
    await core.tick()
    assert posted_in(recorder, "POST") == [ours.channel_id, theirs.channel_id]

    clock.set(theirs_posted_at + 3600)  # both reveals due (an hour after each post): ours is revealed at once
    await core.tick()
    assert posted_in(recorder, "PATCH") == [ours.channel_id]
    clock.advance(UNOWNED_AFTER_S - 5)
    await core.tick()
    assert posted_in(recorder, "PATCH") == [ours.channel_id]
    clock.advance(10)  # theirs is left to their process for as long as a post is
    await core.tick()
    assert posted_in(recorder, "PATCH") == [ours.channel_id, theirs.channel_id]
    await client.close()


async def test_a_process_that_runs_every_shard_posts_everywhere_at_once(core, clock, recorder) -> None:
    guilds = guilds_over_shards(2, per_shard=1)
    client = await shard_client(core, recorder, [0, 1])  # nothing in its cache yet: it still holds them all
    at = time.strftime("%H:%M", time.gmtime(clock.now()))
    for guild in guilds:
        await core.subscribe(ChatRef("discord", str(guild.channel_id), "group", "ml-study"), at, "UTC")
    await core.tick()
    assert sorted(posted_in(recorder, "POST")) == sorted(guild.channel_id for guild in guilds)
    await client.close()


@pytest.mark.parametrize("args, identified, line", [
    (["--shard-count", "3", "--shard-ids", "2"], [2, 3],
     "interview-bot: Discord refused shard 2 (4010 Invalid Shard): check --shard-count and --shard-ids"),
    ([], None, "interview-bot: Discord refused the connection (4011 Sharding Required): the bot is in too many "
               "servers for its shards: give it a larger --shard-count"),
])
async def test_a_shard_the_gateway_refuses_stops_the_bot_with_one_clear_line(tmp_path: Path, args, identified,
                                                                             line) -> None:
    fake = FakeDiscord(2, guilds_over_shards(2, per_shard=1))  # a bot that Discord shards in two
    await fake.start()
    bot = BotProcess(fake, "wrong", str(tmp_path / "store.sqlite3"), args, tmp_path / "bot.log")
    try:
        await bot.start()
        assert bot.process is not None
        status = await asyncio.wait_for(bot.process.wait(), 30)
        assert [(identify.shard, identify.accepted) for identify in fake.identifies] == [(identified, False)]
        log = bot.log()
        assert status == 1 and line in log, log[-2000:]
        assert "Traceback" not in log
    finally:
        if bot.process is not None and bot.process.returncode is None:
            bot.process.kill()
        await fake.stop()
