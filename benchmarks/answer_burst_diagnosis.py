"""Answer burst's diagnosis: where the time goes when ours misses the goal, and Core.click alone.

Why a module of its own: benchmarks/answer_burst.py measures the ratio; this is what it runs beside it
to explain a miss (a sampled profile of the event loop, the database round trips of one click, and
prototypes of fixes that patch this process only and are undone after), and core_only, the figure of
Core.click without Telegram that every run reports. Imports the sides from
benchmarks/answer_burst_sides.py, nothing from answer_burst.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from telegram.ext import ApplicationBuilder

from benchmarks.answer_burst_sides import SEED, Bare, Clicks, Ours, Target, measured, question_for_core
from benchmarks.fake_telegram import ServerProcess
from benchmarks.profiling import Sampler
from benchmarks.sizes import scaled
from bot.core import Core
from bot.domain import ChatRef, UserRef

BOUNDED_CONCURRENCY = 8  # the prototype's concurrent_updates



# --- where the time goes ---------------------------------------------------------------------------

async def core_only(core: Core, target: Target, count: int, first_user: int) -> dict[str, Any]:
    """Core.click alone for `count` new members, 256 at a time (PTB's concurrent_updates(True)): the
    core and its store without Telegram, HTTP or PTB."""
    chat = ChatRef("telegram", str(target.chat_id), "group", "Bench group")
    data = target.data
    rng = random.Random(SEED)
    limit = asyncio.Semaphore(256)

    async def one(user: int) -> None:
        async with limit:
            await core.click(UserRef("telegram", str(user), f"Member {user}", "en"), chat, rng.choice(data))

    started = time.perf_counter()
    await asyncio.gather(*(one(first_user + index) for index in range(count)))
    seconds = time.perf_counter() - started
    return {"clicks": count, "seconds": round(seconds, 3), "clicks_per_s": round(count / seconds, 1),
            "us_per_click": round(seconds / count * 1e6)}


async def database_trips(core: Core, target: Target, count: int, first_user: int) -> dict[str, Any]:
    """The aiosqlite round trips (hand-offs to its thread and back) of one answer click, by kind, and the
    reads and one-call write transactions run on the event loop's own connections (no hand-off:
    bot/store/sqlite_reader.py, sqlite_writer.py)."""
    import aiosqlite.core
    from bot.store import sqlite_backend

    reader = getattr(sqlite_backend, "LoopReader", None) or getattr(sqlite_backend, "_Reader", None)  # (older trees:
    # `_Reader` inside sqlite_backend; None before reads ran on the event loop)
    original = aiosqlite.core.Connection._execute
    read_here = reader.fetch_all if reader else None
    writer = getattr(sqlite_backend, "LoopWriter", None)  # (None in trees whose writes all went to the thread)
    write_here = writer.run if writer else None
    seen: Counter[str] = Counter()
    inline = 0
    written_here = 0

    def counting_writes(self: Any, work: Any, argument: Any) -> Any:
        nonlocal written_here
        written_here += 1
        return write_here(self, work, argument)  # type: ignore[misc]

    def counting_here(self: Any, sql: str, parameters: Any) -> Any:
        nonlocal inline
        inline += 1
        return read_here(self, sql, parameters)  # type: ignore[misc]

    async def counting(self: Any, function: Any, *args: Any, **kwargs: Any) -> Any:
        name = getattr(function, "__name__", "call")
        statement = args[0].split(None, 2)[:2] if args and isinstance(args[0], str) else []
        seen[" ".join([name, *statement]) if name in ("execute", "executemany", "_execute_fetchall") else name] += 1
        return await original(self, function, *args, **kwargs)

    aiosqlite.core.Connection._execute = counting  # type: ignore[method-assign]
    if reader:
        reader.fetch_all = counting_here
    if writer:
        writer.run = counting_writes
    try:
        chat = ChatRef("telegram", str(target.chat_id), "group", "Bench group")
        for index in range(count):
            user = first_user + index
            await core.click(UserRef("telegram", str(user), f"Member {user}", "en"), chat,
                             target.data[index % len(target.data)])
    finally:
        aiosqlite.core.Connection._execute = original  # type: ignore[method-assign]
        if reader:
            reader.fetch_all = read_here
        if writer:
            writer.run = write_here
    per_click = {kind: round(number / count, 2) for kind, number in seen.most_common()}
    return {"per_click": round(sum(seen.values()) / count, 1), "reads_here_per_click": round(inline / count, 1),
            "write_transactions_per_click": round((seen["execute BEGIN IMMEDIATE"] + seen["_run_to_the_end"]
                                                   + seen["_run_each_to_the_end"] + written_here) / count, 2),
            "writes_here_per_click": round(written_here / count, 2),
            "by_kind": per_click}


def sampled_shares(sampler: Sampler) -> dict[str, float]:
    """The event loop's time during a burst of ours, split by what is on the stack (inclusive)."""
    def share(*parts: str) -> float:
        return round(sampler.share(lambda key: any(part in f"{key[0]}:{key[2]}" for part in parts)), 3)

    return {
        "answer_callback_query_http": share("_callbackquery.py:answer"),
        "aiohttp_client": share("aiohttp/client.py:_request"),
        "core_click": share("bot/core.py:click"),
        "counter_and_port": share("adapters/telegram/counters.py", "adapters/telegram/delivery.py"),
        "get_updates_and_parsing": share("_updater.py:polling_action_cb", "_update.py:de_json"),
        "selector_wait": round(sum(1 for stack in sampler.stacks if stack[0][2] in ("select", "poll"))
                               / max(1, sampler.samples), 3),
    }


@contextlib.contextmanager
def bounded_concurrency(limit: int = BOUNDED_CONCURRENCY) -> Iterator[None]:
    """Prototype: build_application with concurrent_updates(limit) instead of True (256 at once)."""
    import adapters.telegram.app as app

    original = app.ApplicationBuilder

    class Bounded(ApplicationBuilder):  # type: ignore[misc]
        def concurrent_updates(self, value: Any) -> Any:
            return super().concurrent_updates(limit)

    app.ApplicationBuilder = Bounded  # type: ignore[misc]
    try:
        yield
    finally:
        app.ApplicationBuilder = original  # type: ignore[misc]


@contextlib.contextmanager
def cached_users() -> Iterator[None]:
    """Prototype: ensure_user remembers the people it has seen in this process (same name and locale),
    so a click does not read its clicker again. (A real cache would also be told about /language; this
    one is for measuring.) Every clicker here is new, so the first click of each still misses."""
    import bot.caller
    from bot.store import people

    original = people.ensure_user
    seen: dict[tuple[str, str, str, str | None], Any] = {}

    async def ensure_user(db: Any, user: UserRef, now: float) -> Any:
        key = (user.platform, user.platform_id, user.name, user.locale)
        if key not in seen:
            seen[key] = await original(db, user, now)
        return seen[key]

    bot.caller.ensure_user = ensure_user  # type: ignore[assignment]
    try:
        yield
    finally:
        bot.caller.ensure_user = original  # type: ignore[assignment]


PROTOTYPES = {
    "bounded_concurrency": (bounded_concurrency,),
    "cached_users": (cached_users,),
    "all": (bounded_concurrency, cached_users),
}


async def prototypes(ours: Ours, bare: Bare, server: ServerProcess, clicks: Clicks, target: Target, count: int,
                     quick: bool) -> dict[str, Any]:
    """Each fix measured as ours, beside a fresh bare round (the VM drifts), as ratio_vs_bare. Not in a quick
    run: two more bot starts and bursts for a figure without a goal (the sampled profile still says where
    the time goes)."""
    results: dict[str, Any] = {}
    if quick:
        return {"what": "not measured in a quick run"}
    for name, patches in PROTOTYPES.items():
        baseline = await measured(bare, server, clicks, target, count)
        with contextlib.ExitStack() as stack:
            for patch in patches:
                stack.enter_context(patch())
            patched = await measured(ours, server, clicks, target, count)
        results[name] = {"answers_per_s": patched["answers_per_s"], "bare_answers_per_s": baseline["answers_per_s"],
                         "ratio_vs_bare": round(patched["answers_per_s"] / baseline["answers_per_s"], 3),
                         "burst_p50_ms": patched["p50_ms"], "burst_p99_ms": patched["p99_ms"]}
    results["what"] = ("not the bot's code: each patches this process for one round of ours, then is undone; "
                       "bounded_concurrency = "
                       f"concurrent_updates({BOUNDED_CONCURRENCY}); cached_users = ensure_user remembers the people it "
                       "has seen")
    return results


async def explain_miss(ours: Ours, bare: Bare, server: ServerProcess, clicks: Clicks, target: Target,
                       count: int, quick: bool, result: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    sampler = Sampler()
    profiled = await measured(ours, server, clicks, target, count, sampler=sampler)
    shares = sampled_shares(sampler)
    trips = await database_trips(ours.core, await question_for_core(ours, server), scaled(50, minimum=3),
                                 80_000_001)
    fixes = await prototypes(ours, bare, server, clicks, target, count, quick)
    ours_us = 1e6 / result["ours"]["answers_per_s"]
    bare_us = 1e6 / result["bare_aiohttp"]["answers_per_s"]
    concurrent_us = 1e6 / result["bare_concurrent"]["answers_per_s"]
    core_us = result["core_only"]["us_per_click"]
    miss = {"sampled_profile": sampler.summary(15), "sampled_shares": shares,
            "profiled_answers_per_s": profiled["answers_per_s"], "database_trips": trips, "prototypes": fixes,
            "us_per_click": {"ours": round(ours_us), "bare": round(bare_us), "bare_concurrent": round(concurrent_us),
                             "core_only": core_us}}
    top = ", ".join(f"{row['owner']} {row['share']:.0%}" for row in sampler.summary(8)["by_owner"][:8])
    notes = [
        f"per click: ours {ours_us:.0f} us, bare PTB {bare_us:.0f} us, bare PTB with concurrent updates "
        f"{concurrent_us:.0f} us, Core.click alone {core_us} us.",
        f"sampled event loop during a burst of ours: answerCallbackQuery's HTTP call (PTB -> aiohttp) "
        f"{shares['answer_callback_query_http']:.0%}, of which aiohttp's own request {shares['aiohttp_client']:.0%}; "
        f"Core.click (its share on "
        f"the event loop; the SQL runs in aiosqlite's thread) {shares['core_click']:.0%}; waiting in the selector "
        f"{shares['selector_wait']:.0%}.",
        f"own time by owner: {top}",
        f"one answer click (clicks one after another) = {trips['per_click']} aiosqlite round trips, "
        f"{trips['reads_here_per_click']} reads on the event loop's own connection and "
        f"{trips['write_transactions_per_click']} write transactions ({trips['writes_here_per_click']} of them on the "
        "event loop's own connection): every clicker of a burst is new, so their "
        "user row is written on their first click, then the answer's batch.",
    ]
    if any(isinstance(value, dict) for value in fixes.values()):
        notes.append("prototypes (ratio_vs_bare, each beside a fresh bare round): " + ", ".join(
            f"{name} {value['ratio_vs_bare']:.2f}" for name, value in fixes.items() if isinstance(value, dict)))
    return miss, notes
