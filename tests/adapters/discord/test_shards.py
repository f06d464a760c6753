"""--shard-count and --shard-ids: one process runs some of a sharded bot's gateway shards."""

from __future__ import annotations

import argparse

import discord
import pytest

from adapters.discord.client import InterviewClient, ShardedInterviewClient, make_client
from adapters.platform_commands import shard_options


async def test_a_process_runs_the_shards_it_is_given(core) -> None:
    client = make_client(core, shard_count=4, shard_ids=[2, 3])
    assert isinstance(client, ShardedInterviewClient) and isinstance(client, discord.AutoShardedClient)
    assert (client.shard_count, client.shard_ids) == (4, [2, 3])
    assert not client.sync, "only the process with shard 0 syncs the command tree"
    first = make_client(core, shard_count=4, shard_ids=[0, 1])
    assert first.sync and first.shard_ids == [0, 1]
    assert make_client(core, shard_count=2).shard_ids == [0, 1]
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
