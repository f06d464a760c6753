"""Daily broadcast: one daily question to many group chats through the core's run_due and the real
TelegramPort, against a fake Bot API server that enforces Telegram's overall flood limit; beside PTB's
AIORateLimiter doing the same job on the same server in the same run.

Why: at the daily post time every subscribed chat is due at once. Telegram allows a bot about 30
messages a second overall and answers 429 (retry_after) beyond that; a 429 costs a wait, and too many
can get a bot limited for longer. The goal is to use the limit (>= 0.95 of it) without one 429.

The server (benchmarks/fake_telegram.py, its own process) counts messages in every sliding window of
1 s and refuses the (limit+1)-th with 429 and retry_after: the strictest reading of "30 messages per
second". Time is scaled down by raising the limit on both sides by the same factor SCALE_FACTOR: the
server allows 30 x SCALE_FACTOR messages per second, the port's Pacing overall is (30 x SCALE_FACTOR,
1 s), the DailyService's broadcast rate (port.posts_per_second, 25 for Telegram) becomes 25 x
SCALE_FACTOR, and AIORateLimiter gets overall_max_rate = 30 x SCALE_FACTOR. The window stays 1 s, so
each limiter's burst (its capacity, one window's worth) keeps the same size relative to the limit.

  ours -- subscriptions for every chat (Core.subscribe), then DailyService.run_due() with the real
          TelegramPort of adapters.telegram.app.build_application: each post is recorded, rendered and
          sent (HTML and its answer buttons) through the port's pacer, and its message ref stored.
  ptb  -- a bare Application built with rate_limiter=AIORateLimiter(overall_max_rate=..., max_retries=3)
          sending the same message (text and keyboard) to the same chats, all at once (asyncio.gather).

Figures: achieved rate = (messages accepted - 1) / (last acceptance - first), over the allowed rate
(`rate_over_limit`), and over the rate the core is configured to broadcast at (25/30 of the limit);
the number of 429 answers; the most messages the server saw in any 1 s window. The same run also
measures both senders against the lenient model of the limit (a leaky bucket of the same capacity,
which is what aiolimiter implements on the sending side), so the figures show how much depends on it.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import shutil
import time
from bisect import bisect_left
from contextlib import contextmanager
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from telegram.constants import ParseMode
from telegram.ext import AIORateLimiter, ApplicationBuilder

from benchmarks.fake_telegram import ServerProcess
from benchmarks.figures import Figure
from benchmarks.sizes import scaled, temporary_folder
from bot.bank import load_bank
from bot.schedule.clock import ManualClock
from bot.core import Core
from bot.domain import ChatRef
from bot.store import Database

NAME = "broadcast"
GOAL_RATE = 0.95
FIGURES = (
    Figure("rate_over_limit", "", at_least=GOAL_RATE),
    Figure("http_429", "", at_most=0),
    Figure("ours.rate_over_configured", ""),
    Figure("ours.messages_per_s", "/s"),
    Figure("ours.max_in_1s_window", ""),
    Figure("ptb.rate_over_limit", ""),
    Figure("ptb.http_429", ""),
    Figure("ptb.failed", ""),
    Figure("evenly_paced_prototype.rate_over_limit", ""),
    Figure("evenly_paced_prototype.http_429", ""),
    Figure("unscaled_check.rate_over_limit", ""),
    Figure("unscaled_check.http_429", ""),
    Figure("bucket_model.ours.rate_over_limit", ""),
    Figure("bucket_model.ours.http_429", ""),
    Figure("bucket_model.ptb.rate_over_limit", ""),
    Figure("bucket_model.ptb.http_429", ""),
    Figure("capacity.ours_messages_per_s", "/s"),
)

TELEGRAM_LIMIT = 30  # messages per second, overall
CHATS_FULL, CHATS_QUICK = 2000, 400
SCALE_FACTOR_FULL, SCALE_FACTOR_QUICK = 5, 3
UNSCALED_CHATS = 300  # full run only: ours at the real limit, to check what scaling changes
EVEN_SHARE = 0.97  # the prototype paces one message every 1 / (0.97 x limit) s: ~30 ms of slack per window for jitter
POST_AT = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc).timestamp()  # a Monday, 09:00 UTC
FIRST_CHAT = -1_002_000_000_000
SEED = 20_260_702


class EvenPacer:
    """Prototype, not the bot's code: one message every `interval` seconds, never a burst.

    Callers go one at a time (a lock, first come first served); each waits for its slot, and the next
    slot is `interval` after this one. A caller that wakes a little late (the event loop's timers are
    about a millisecond late) keeps the timeline, so the lateness does not add up; one that wakes more
    than `tolerance` late (the loop was busy) moves the timeline instead of sending the missed slots
    at once. So no window of 1 s ever holds more than 1 + (1 + tolerance) / interval messages.
    It has the `acquire()` the port's Pacer awaits."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.tolerance = interval / 4
        self.next_slot = 0.0
        self.lock = asyncio.Lock()

    async def acquire(self) -> None:
        loop = asyncio.get_running_loop()
        async with self.lock:
            wait = self.next_slot - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self.next_slot = max(self.next_slot, loop.time() - self.tolerance) + self.interval


@contextmanager
def quiet(*names: str) -> Iterator[None]:
    """The port and PTB log each 429 and retry; hundreds of them would bury the table."""
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def chat_ids(count: int) -> list[int]:
    return [FIRST_CHAT - index for index in range(count)]


async def subscribe_all(path: Path, count: int) -> None:
    """A store file whose `count` group chats are all subscribed (Core.subscribe) for 09:00 UTC."""
    core = Core(await Database.open(path), load_bank(None), ManualClock(POST_AT - 600), random.Random(SEED),
                scheduled=False)
    try:
        for chat_id in chat_ids(count):
            await core.subscribe(ChatRef("telegram", str(chat_id), "group", f"Group {chat_id}"), "09:00", "UTC")
    finally:
        await core.close()  # the last connection: the WAL is checkpointed into the file, which can be copied


async def due_core(template: Path, path: Path) -> Core:
    """A core over a copy of the subscribed file, one minute after the post time: every chat is due."""
    shutil.copyfile(template, path)
    return Core(await Database.open(path), load_bank(None), ManualClock(POST_AT + 60), random.Random(SEED),
                scheduled=False)


def window_peak(times: list[float], window: float = 1.0) -> int:
    """The most acceptances within any `window` seconds (sorted times)."""
    best = 0
    for index, moment in enumerate(times):
        best = max(best, index - bisect_left(times, moment - window + 1e-9) + 1)
    return best


def ceiling(messages: int, limit: float, model: str) -> float | None:
    """rate_over_limit of the fastest sender the server would never refuse, for this many messages:
    above 1 because a first window's worth may go at once (None when all fit in that burst)."""
    if model == "bucket":
        fastest = (messages - limit) / limit  # `limit` at once, then one every 1/limit s
    else:
        fastest = (math.ceil(messages / limit) - 1) * 1.0  # `limit` at the start of each 1 s window
    return round((messages - 1) / fastest / limit, 3) if fastest > 0 else None


def rate_figures(sends: dict[str, Any], limit: float, seconds: float, model: str = "window") -> dict[str, Any]:
    times = sorted(moment for moment, _ in sends["sent"])
    chats = [chat for _, chat in sends["sent"]]
    span = times[-1] - times[0] if len(times) > 1 else 0.0
    rate = (len(times) - 1) / span if span > 0 else 0.0
    return {"messages": len(times), "distinct_chats": len(set(chats)), "seconds": round(seconds, 3),
            "send_span_s": round(span, 3), "messages_per_s": round(rate, 1),
            "rate_over_limit": round(rate / limit, 3), "http_429": len(sends["rejected"]),
            "max_in_1s_window": window_peak(times), "ceiling_rate_over_limit": ceiling(len(times), limit, model),
            "server_cpu_s": round(sends["server_cpu_s"], 2)}


async def ours(server: ServerProcess, folder: Path, template: Path, factor: int, model: str,
               evenly: bool = False) -> dict[str, Any]:
    """run_due through the real TelegramPort, everything scaled by `factor`. With `evenly` (a prototype,
    not the bot's code): the port's overall pacer is an EvenPacer (one message every 1 / (EVEN_SHARE x
    limit) s, no burst) and the DailyService broadcasts at the full limit, leaving the pacing to it."""
    from adapters.telegram.app import build_application
    from adapters.telegram.delivery import Pacing

    limit = TELEGRAM_LIMIT * factor
    core = await due_core(template, folder / f"broadcast-{model}-{'even' if evenly else 'shipped'}.sqlite3")
    application = build_application(core, server.token, base_url=server.base_url,
                                    pacing=Pacing(overall=(limit, 1.0)))
    port = core.ports["telegram"]
    configured = port.posts_per_second * factor  # type: ignore[attr-defined]
    if evenly:
        port.pacer.overall = EvenPacer(1.0 / (EVEN_SHARE * limit))  # type: ignore[attr-defined]
        configured = limit
    port.posts_per_second = configured  # type: ignore[attr-defined]  # the instance only: 25/s x factor
    try:
        await application.initialize()
        await server.post("/reset", {"limit": {"count": limit, "window": 1.0, "model": model}})
        started = time.perf_counter()
        with quiet("adapters", "bot"):
            summary = await core.daily.run_due()
        seconds = time.perf_counter() - started
        figures = rate_figures(await server.get("/sends"), limit, seconds, model)
        states = await core.db.fetch_all("SELECT state, count(*) AS n FROM daily_posts GROUP BY state")
        [sample] = (await server.get("/messages", chat_id=chat_ids(1)[0]))[:1] or [None]
    finally:
        await application.shutdown()
        await core.close()
    figures.update(posted=summary.posted, failed=summary.failed, post_states={row["state"]: row["n"] for row in states},
                   configured_per_s=configured, rate_over_configured=round(figures["messages_per_s"] / configured, 3))
    return {**figures, "sample": sample}


async def ptb(server: ServerProcess, count: int, factor: int, model: str, sample: dict[str, Any]) -> dict[str, Any]:
    """The same messages through a bare PTB bot with AIORateLimiter, all sends started at once."""
    from telegram import InlineKeyboardMarkup

    limit = TELEGRAM_LIMIT * factor
    limiter = AIORateLimiter(overall_max_rate=limit, overall_time_period=1, max_retries=3)
    application = ApplicationBuilder().token(server.token).base_url(server.base_url).rate_limiter(limiter).build()
    markup = InlineKeyboardMarkup.de_json(sample["markup"], application.bot) if sample["markup"] else None
    await application.initialize()
    try:
        await server.post("/reset", {"limit": {"count": limit, "window": 1.0, "model": model}})
        started = time.perf_counter()
        with quiet("telegram", "httpx"):
            outcomes = await asyncio.gather(*(application.bot.send_message(chat_id, sample["html"], parse_mode=ParseMode.HTML,
                                                                           reply_markup=markup)
                                              for chat_id in chat_ids(count)), return_exceptions=True)
        seconds = time.perf_counter() - started
        figures = rate_figures(await server.get("/sends"), limit, seconds, model)
    finally:
        await application.shutdown()
    failures = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    figures.update(failed=len(failures), failure_kinds=sorted({type(f).__name__ for f in failures}),
                   settings=f"AIORateLimiter(overall_max_rate={limit}, overall_time_period=1, max_retries=3)")
    return figures


async def capacity(server: ServerProcess, folder: Path, template: Path) -> dict[str, Any]:
    """How fast ours posts with no limit anywhere (pacing and broadcast rate out of the way): the scale
    factor must keep the limit well below this, or the figure would measure the CPU, not the pacing."""
    from adapters.telegram.app import build_application
    from adapters.telegram.delivery import Pacing

    core = await due_core(template, folder / "capacity.sqlite3")
    application = build_application(core, server.token, base_url=server.base_url,
                                    pacing=Pacing(overall=(100_000, 1.0), group=(100_000, 1.0)))
    core.ports["telegram"].posts_per_second = 100_000  # type: ignore[attr-defined]
    try:
        await application.initialize()
        await server.post("/reset", {})
        started = time.perf_counter()
        await core.daily.run_due()
        seconds = time.perf_counter() - started
        sends = await server.get("/sends")
    finally:
        await application.shutdown()
        await core.close()
    figures = rate_figures(sends, 1, seconds)
    return {"messages": figures["messages"], "seconds": round(seconds, 3),
            "ours_messages_per_s": round(figures["messages"] / seconds, 1)}


def notes_for(result: dict[str, Any]) -> list[str]:
    o, p, e, factor = result["ours"], result["ptb"], result["evenly_paced_prototype"], result["scale_factor"]
    limit = TELEGRAM_LIMIT * factor
    notes = [
        f"limit scaled x{factor}: {limit}/s on the server (sliding 1 s window), Pacing overall ({limit}, 1 s), "
        f"broadcast rate (port.posts_per_second) {o['configured_per_s']:g}/s, AIORateLimiter {limit}/s; ours with "
        f"no limit at all posts {result['capacity']['ours_messages_per_s']:g}/s. " + (
            f"A sender that never gets a 429 can reach at most {o['ceiling_rate_over_limit']} of the limit with "
            f"{o['messages']} messages (a first window's worth may go at once)." if o["ceiling_rate_over_limit"]
            else "All messages fit in one window's burst: the rates mean nothing at this size."),
        f"ours: {o['messages_per_s']:g}/s = {o['rate_over_limit']:.2f} of the limit (30/s x {factor}) and "
        f"{o['rate_over_configured']:.2f} of its configured broadcast rate (25/s x {factor}); "
        f"{o['http_429']} x 429; up to {o['max_in_1s_window']} messages in one 1 s window (limit {limit}).",
        "why: the DailyService's AsyncLimiter(posts_per_second, 1) and the port's AsyncLimiter(30, 1) are leaky "
        "buckets whose capacity is a whole second's worth: both let a second's worth go at once, then the steady "
        "rate, so the first second carries up to 25 + 25 = 50 messages where 30 are allowed; the surplus is "
        "refused (429), waits its retry_after and goes again. After that the 25/s headroom (0.83 of the limit) "
        "caps the rate.",
        f"PTB AIORateLimiter: {p['messages_per_s']:g}/s = {p['rate_over_limit']:.2f} of the limit; {p['http_429']} x 429 "
        f"(each pauses every send for retry_after + 0.1 s); {p['failed']} sends failed after 3 retries; up to "
        f"{p['max_in_1s_window']} in one window.",
        f"prototype (not the bot's code): the port's overall pacer replaced by an even pacer (one message every "
        f"1/({EVEN_SHARE:g} x {limit}) s on a fixed timeline, no burst) and the broadcast at the full limit: "
        f"{e['rate_over_limit']:.2f} of the limit, {e['http_429']} x 429.",
    ]
    if "unscaled_check" in result:
        u = result["unscaled_check"]
        notes.append(f"at Telegram's real limit (x1, {u['messages']} chats): ours {u['messages_per_s']:g}/s = "
                     f"{u['rate_over_limit']:.2f} of 30/s, {u['http_429']} x 429, up to {u['max_in_1s_window']} in one window.")
    if "bucket_model" in result:
        b = result["bucket_model"]
        notes.append(f"against the lenient model (a leaky bucket of capacity {limit}, as aiolimiter sends): ours "
                     f"{b['ours']['rate_over_limit']:.2f} of the limit with {b['ours']['http_429']} x 429, PTB "
                     f"{b['ptb']['rate_over_limit']:.2f} with {b['ptb']['http_429']} x 429"
                     + (f" (a sender never refused by this model reaches at most {b['ours']['ceiling_rate_over_limit']})."
                        if b["ours"]["ceiling_rate_over_limit"] else "."))
    return notes


async def run(quick: bool) -> dict[str, Any]:
    count = scaled(CHATS_QUICK if quick else CHATS_FULL, minimum=10)
    factor = SCALE_FACTOR_QUICK if quick else SCALE_FACTOR_FULL
    with temporary_folder("broadcast") as folder:
        template = folder / "subscribed.sqlite3"
        await subscribe_all(template, count)
        async with ServerProcess() as server:
            result: dict[str, Any] = {"chats": count, "scale_factor": factor,
                                      "limit_per_s": TELEGRAM_LIMIT * factor,
                                      "server_limit": "sliding window: at most limit messages in any 1 s, else 429"}
            result["capacity"] = await capacity(server, folder, template)
            result["ours"] = await ours(server, folder, template, factor, "window")
            sample = result["ours"].pop("sample")
            result["ptb"] = await ptb(server, count, factor, "window", sample)
            result["evenly_paced_prototype"] = await ours(server, folder, template, factor, "window", evenly=True)
            result["evenly_paced_prototype"].pop("sample")
            if not quick:
                # the scaling checked once at Telegram's real limit: 30/s, broadcast 25/s, fewer chats
                real = folder / "real.sqlite3"
                await subscribe_all(real, scaled(UNSCALED_CHATS, minimum=10))
                result["unscaled_check"] = await ours(server, folder, real, 1, "window")
                result["unscaled_check"].pop("sample")
                bucket_ours = await ours(server, folder, template, factor, "bucket")
                bucket_ours.pop("sample")
                result["bucket_model"] = {"ours": bucket_ours,
                                          "ptb": await ptb(server, count, factor, "bucket", sample)}
    result["rate_over_limit"] = result["ours"]["rate_over_limit"]
    result["http_429"] = result["ours"]["http_429"]
    result["goal_rate_over_limit"] = GOAL_RATE
    result["notes"] = notes_for(result)
    return result
