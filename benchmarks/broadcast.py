"""Daily broadcast storm, measured on the shipped process: N groups subscribed for the same minute,
the real `interview-bot telegram` started against a fake Bot API that enforces Telegram's 30
messages per sliding second, and every post counted at the server.

Why: 09:00 is popular. Round 1 measured `run_due()` called once and never saw what the running bot
did around it (a job per subscription, each a whole tick: 1,000 groups at one minute posted their
first message 383 s late and grew the process to 4.29 GB). This benchmark measures the process as
shipped: start-up, the timer, the broadcast, the port's pacing, the store.

The store holds each subscription's next post instant, as the bot that saved it wrote it, a few seconds
after the process starts ("the minute" below; not a whole minute, which idled up to 80 s a run).
`polling_s_before_posts_due` says whether the lead covered the start-up.

Figures, counted from the minute (not from the first send):
  rate_over_limit -- posts accepted / (last acceptance - the minute) / 30;
  http_429        -- 429 answers the server gave;
  rss_mb          -- the bot process's peak resident memory (VmHWM), start-up included;
  first_post_late_s, posted, duplicates (a chat posted twice), seconds.
Beside it, the baseline: a bare python-telegram-bot Application with AIORateLimiter sending the same
message to a sample of the chats at once (its rate counted from its first request).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from telegram.constants import ParseMode
from telegram.ext import AIORateLimiter, ApplicationBuilder

from benchmarks.fake_telegram import ROOT, ServerProcess
from benchmarks.figures import Figure
from benchmarks.sizes import scaled, stop_process, temporary_folder
from bot.store import Database

NAME = "broadcast"
GOAL_RATE = 0.95
TELEGRAM_LIMIT = 30  # messages in any sliding second, as the fake enforces it
CHATS_QUICK, CHATS_FULL = 2_000, 10_000
BASELINE_CHATS_QUICK, BASELINE_CHATS_FULL = 300, 600  # 10 or 20 s at the limit
LEAD_SECONDS = 6  # the posts are due this long after the process starts (it polled after 1.4 s at load 9.5)
FIRST_CHAT = -1_001_000_000_000
FIGURES = (
    Figure("rate_over_limit", "", at_least=GOAL_RATE),
    Figure("http_429", "", at_most=0),
    Figure("rss_mb", "MB", at_most=200),
    Figure("first_post_late_s", "s"),
    Figure("duplicates", "", at_most=0),
    Figure("baseline.rate_over_limit", ""),
    Figure("baseline.http_429", ""),
)


def chat_ids(count: int) -> list[int]:
    return [FIRST_CHAT - index for index in range(count)]


def the_minute(lead: float = 20) -> datetime:
    """The next whole UTC minute at least `lead` seconds ahead (for a tree that computes the post instant
    itself at start: a store written by older code)."""
    moment = datetime.now(timezone.utc) + timedelta(seconds=lead + 60)
    return moment.replace(second=0, microsecond=0)


def the_moment(lead: float = LEAD_SECONDS) -> datetime:
    """The instant `lead` seconds ahead: the posts' next instant, written into the store as a running bot
    leaves it. Waiting for a whole minute instead idled 20 to 80 s a run (50 on average), for nothing the
    bot does differently: it wakes for the stored instant, whatever its second."""
    return datetime.now(timezone.utc) + timedelta(seconds=lead)


async def subscribe_all(path: Path, count: int, minute: datetime, scheduled: bool = False) -> None:
    """A store file with `count` Telegram groups subscribed for `minute` UTC, as admins would leave it.

    With `scheduled`, each subscription's next post instant is `minute` itself, as the bot that saved the
    subscription wrote it (its post time is that minute's HH:MM); without, it is left for the bot to compute
    at start, as after an upgrade from a schema before v6, so `minute` must be a whole minute."""
    database = await Database.open(path)
    now = time.time()
    try:
        async with database.transaction() as connection:
            await connection.executemany(
                "INSERT INTO chats (platform, platform_chat_id, kind, title, created_at) VALUES ('telegram', ?, 'group', ?, ?)",
                [(str(chat_id), f"Group {chat_id}", now) for chat_id in chat_ids(count)])
            await connection.execute(
                """INSERT INTO subscriptions (chat_id, post_time, timezone, reveal_after_s, active, created_at, updated_at)
                   SELECT id, ?, 'UTC', 43200, 1, ?, ? FROM chats""", (minute.strftime("%H:%M"), now, now))
            if scheduled:
                await connection.execute("UPDATE subscriptions SET next_post_at = ?", (minute.timestamp(),))
    finally:
        await database.close()


def peak_rss_mb(pid: int) -> tuple[float, float]:
    """(current, peak) resident memory of a process in MB, from /proc."""
    values = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(("VmRSS:", "VmHWM:")):
                values[line.split(":")[0]] = int(line.split()[1]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


async def polling_from(server: ServerProcess, process: asyncio.subprocess.Process, until: float) -> float | None:
    """The monotonic instant (to 0.1 s) the bot first asked for updates, or None if not before `until`: whether
    the lead before the posts' instant covered the process's start."""
    while time.monotonic() < until and process.returncode is None:
        if (await server.get("/calls", method="getUpdates"))["count"]:
            return time.monotonic()
        await asyncio.sleep(0.1)
    return None


def ready_ahead(ready: float | None, minute_mono: float) -> float | None:
    """Seconds between the bot polling and the posts' instant (None: it was not polling by then)."""
    return round(minute_mono - ready, 2) if ready is not None else None


async def storm(server: ServerProcess, folder: Path, count: int, catch_up: bool = False) -> dict[str, Any]:
    """The real process, `count` groups due at one minute; figures counted at the server from the minute.

    With `catch_up` (tiny smoke runs) the minute is the one just begun: the bot posts at start, as after
    a restart within the grace window, and nobody waits for the next minute."""
    minute = datetime.now(timezone.utc).replace(second=0, microsecond=0) if catch_up else the_moment()
    path = folder / f"storm-{count}.sqlite3"
    await subscribe_all(path, count, minute, scheduled=not catch_up)
    await server.post("/reset", {"limit": {"count": TELEGRAM_LIMIT, "window": 1.0, "model": "window"}})
    environment = {**os.environ, "TELEGRAM_BOT_TOKEN": server.token, "INTERVIEW_BOT_DB": str(path),
                   "INTERVIEW_BOT_LOG_LEVEL": "WARNING"}
    log_path = folder / f"storm-{count}.log"
    with open(log_path, "wb") as log_file:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "telegram", "--base-url", server.base_url, cwd=ROOT, env=environment,
            stdout=log_file, stderr=asyncio.subprocess.STDOUT)
        minute_mono = time.monotonic() + (minute.timestamp() - time.time())  # the server stamps with monotonic
        deadline = minute_mono + count / TELEGRAM_LIMIT * 2 + 120
        sends: dict[str, Any] = {"sent": [], "rejected": []}
        rss_samples: list[float] = []
        try:
            ready = await polling_from(server, process, minute_mono)
            while time.monotonic() < deadline and process.returncode is None:
                await asyncio.sleep(1.0)
                rss_samples.append(peak_rss_mb(process.pid)[0])
                sends = await server.get("/sends")
                if len({chat for _, chat in sends["sent"]}) >= count and time.monotonic() > minute_mono:
                    await asyncio.sleep(3)  # a duplicate would arrive now
                    sends = await server.get("/sends")
                    break
            peak = peak_rss_mb(process.pid)[1] if process.returncode is None else max(rss_samples, default=0.0)
        finally:
            await stop_process(process, 15)
    times = sorted(moment for moment, _ in sends["sent"])
    chats = [chat for _, chat in sends["sent"]]
    last = times[-1] if times else minute_mono
    span = last - minute_mono
    tracebacks = log_path.read_text(encoding="utf-8", errors="replace").count("Traceback")
    return {
        "chats": count, "posted": len(set(chats)), "duplicates": len(chats) - len(set(chats)),
        "http_429": len(sends["rejected"]), "seconds_from_minute": round(span, 2),
        "first_post_late_s": round(times[0] - minute_mono, 3) if times else None,
        "rate_over_limit": round(len(times) / span / TELEGRAM_LIMIT, 3) if span > 0 else 0.0,
        "rss_mb": round(peak, 1), "rss_mb_at_end": round(rss_samples[-1], 1) if rss_samples else None,
        "polling_s_before_posts_due": ready_ahead(ready, minute_mono),
        "tracebacks_in_log": tracebacks, "exit_code": process.returncode,
    }


async def baseline(server: ServerProcess, count: int) -> dict[str, Any]:
    """A bare PTB bot with AIORateLimiter(30/s, max_retries=3) sending one message to `count` chats at once."""
    application = (ApplicationBuilder().token(server.token).base_url(server.base_url)
                   .rate_limiter(AIORateLimiter(overall_max_rate=TELEGRAM_LIMIT, overall_time_period=1, max_retries=3))
                   .build())
    await application.initialize()
    try:
        await server.post("/reset", {"limit": {"count": TELEGRAM_LIMIT, "window": 1.0, "model": "window"}})
        logging.getLogger("telegram").setLevel(logging.CRITICAL)
        outcomes = await asyncio.gather(*(application.bot.send_message(chat_id, "<b>Question</b> of the day",
                                                                       parse_mode=ParseMode.HTML)
                                          for chat_id in chat_ids(count)), return_exceptions=True)
        sends = await server.get("/sends")
    finally:
        await application.shutdown()
    times = sorted(moment for moment, _ in sends["sent"])
    span = times[-1] - times[0] if len(times) > 1 else 0.0
    return {"chats": count, "posted": len(times), "http_429": len(sends["rejected"]),
            "failed": sum(isinstance(outcome, BaseException) for outcome in outcomes),
            "rate_over_limit": round((len(times) - 1) / span / TELEGRAM_LIMIT, 3) if span > 0 else 0.0}


async def run(quick: bool) -> dict[str, Any]:
    count = scaled(CHATS_QUICK if quick else CHATS_FULL, minimum=10)
    with temporary_folder("broadcast") as folder:
        async with ServerProcess() as server:
            result = await storm(server, folder, count, catch_up=count < 100)
            result["baseline"] = await baseline(server, scaled(BASELINE_CHATS_QUICK if quick else BASELINE_CHATS_FULL,
                                                               minimum=10))
    result["goal_rate_over_limit"] = GOAL_RATE
    b = result["baseline"]
    result["notes"] = [
        f"the real `interview-bot telegram` process, {count} groups subscribed for one minute, the fake Bot API "
        f"enforcing {TELEGRAM_LIMIT} messages in any sliding second: {result['posted']} posted "
        f"({result['duplicates']} twice), first {result['first_post_late_s']} s after the minute, "
        f"{result['rate_over_limit']} of the limit counted from the minute, {result['http_429']} x 429, "
        f"peak RSS {result['rss_mb']} MB.",
        f"baseline, a bare PTB bot with AIORateLimiter({TELEGRAM_LIMIT}/s, max_retries=3) sending to {b['chats']} "
        f"chats at once: {b['rate_over_limit']} of the limit from its first send, {b['http_429']} x 429, "
        f"{b['failed']} failed.",
    ]
    return result
