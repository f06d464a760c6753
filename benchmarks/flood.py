"""Floods: one hostile person or a crowd must not stall anyone else, draw 429s, or keep the bot from stopping.

Measured on the real `interview-bot telegram` process against the fake Bot API in its own process,
enforcing Telegram's limits as sliding windows: 30 messages in any second overall and 20 in any minute
into one group (a message refused by either is a 429). Scenarios, one after another on one process:

  start_flood   -- one person sends 500 /start in 2 s; a second person's /help is pushed in the middle:
                   seconds until the bystander's reply arrives, and what the flooder got;
  board_flood   -- in one group, 60 /leaderboard from one member and then 60 from 60 members (week,
                   month, all) within 6 s; a bystander's DM /help in the middle: 429s, replies, latency;
  crowd         -- 200 people each send /help in a private chat at once: the overall pace, 429s, replies;
  sigterm       -- 150 members each ask something different in one group (minutes of the group's pace),
                   then SIGTERM: seconds until the process has exited.

The round-1 figures for the same floods (issue 11): the bystander had no reply in 150 s; 60 /leaderboard
drew 21 429s and dropped replies; the 200-person burst drew 23 429s.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.fake_telegram import ServerProcess
from benchmarks.figures import Figure
from benchmarks.sizes import stop_process, temporary_folder

NAME = "flood"
FIGURES = (
    Figure("start_flood.bystander_reply_s", " s", at_most=3.0),
    Figure("board_flood.bystander_reply_s", " s", at_most=3.0),
    Figure("http_429", "", at_most=0),
    Figure("board_flood.group_replies", ""),
    Figure("crowd.answered", ""),
    Figure("crowd.rate_over_limit", ""),
    Figure("sigterm.exit_s", " s", at_most=10.0),
)
ROOT = Path(__file__).resolve().parents[1]
OVERALL = {"count": 30, "window": 1.0, "model": "window"}
PER_GROUP = {"count": 20, "window": 60.0, "model": "window"}
FLOODER, BYSTANDER, GROUP = 7_000_001, 7_000_002, -1_004_000_000_001
_message_ids = itertools.count(1)


def person(user_id: int) -> dict[str, Any]:
    return {"id": user_id, "is_bot": False, "first_name": f"Person {user_id}", "language_code": "en"}


def command(user_id: int, chat: dict[str, Any], text: str) -> dict[str, Any]:
    name = text.split()[0]
    return {"message": {"message_id": next(_message_ids), "date": int(time.time()), "chat": chat,
                        "from": person(user_id), "text": text,
                        "entities": [{"type": "bot_command", "offset": 0, "length": len(name)}]}}


def private(user_id: int) -> dict[str, Any]:
    return {"id": user_id, "type": "private", "first_name": f"Person {user_id}"}


GROUP_CHAT = {"id": GROUP, "type": "supergroup", "title": "Flood group"}


async def first_reply_after(server: ServerProcess, chat_id: int, since: float, seconds: float) -> float | None:
    """Seconds from `since` (monotonic, shared by both processes) to the first message accepted for the chat."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sends = await server.get("/sends")
        times = [at for at, chat in sends["sent"] if chat == chat_id and at >= since]
        if times:
            return round(min(times) - since, 3)
        await asyncio.sleep(0.05)
    return None


async def counts(server: ServerProcess, chat_ids: set[int] | None = None) -> tuple[int, int]:
    """(messages accepted, 429s) so far, for the chats named or all."""
    sends = await server.get("/sends")
    accepted = sum(1 for _, chat in sends["sent"] if chat_ids is None or chat in chat_ids)
    refused = sum(1 for _, chat in sends["rejected"] if chat_ids is None or chat in chat_ids)
    return accepted, refused


async def start_flood(server: ServerProcess) -> dict[str, Any]:
    flood = [command(FLOODER, private(FLOODER), "/start") for _ in range(500)]
    await server.post("/push", {"updates": flood[:250], "spread_s": 1.0})
    await asyncio.sleep(1.0)
    pushed = (await server.post("/push", {"updates": [command(BYSTANDER, private(BYSTANDER), "/help")]}))["pushed_at"]
    await server.post("/push", {"updates": flood[250:], "spread_s": 1.0})
    latency = await first_reply_after(server, BYSTANDER, pushed, 150)
    await asyncio.sleep(3)
    flooder, _ = await counts(server, {FLOODER})
    return {"bystander_reply_s": latency if latency is not None else 150.0, "bystander_answered": latency is not None,
            "flooder_messages": flooder, "commands": 500}


async def board_flood(server: ServerProcess) -> dict[str, Any]:
    before, refused_before = await counts(server, {GROUP})
    one_member = [command(FLOODER + 10, GROUP_CHAT, "/leaderboard") for _ in range(60)]
    crowd = [command(8_000_000 + n, GROUP_CHAT, f"/leaderboard {('week', 'month', 'all')[n % 3]}") for n in range(60)]
    await server.post("/push", {"updates": one_member, "spread_s": 3.0})
    await asyncio.sleep(1.5)
    pushed = (await server.post("/push", {"updates": [command(BYSTANDER + 1, private(BYSTANDER + 1), "/help")]}))["pushed_at"]
    latency = await first_reply_after(server, BYSTANDER + 1, pushed, 150)
    await asyncio.sleep(1.5)
    await server.post("/push", {"updates": crowd, "spread_s": 3.0})
    await asyncio.sleep(8)
    after, refused = await counts(server, {GROUP})
    return {"bystander_reply_s": latency if latency is not None else 150.0, "group_replies": after - before,
            "group_429": refused - refused_before, "commands": 120}


async def crowd(server: ServerProcess, people: int = 200) -> dict[str, Any]:
    ids = {9_000_000 + n for n in range(people)}
    _, refused_before = await counts(server, ids)
    pushed = (await server.post("/push", {"updates": [command(user, private(user), "/help") for user in sorted(ids)]}))["pushed_at"]
    deadline = time.monotonic() + 60
    while True:
        sends = await server.get("/sends")
        times = sorted(at for at, chat in sends["sent"] if chat in ids and at >= pushed)
        answered = len({chat for _, chat in sends["sent"] if chat in ids})
        if answered >= people or time.monotonic() >= deadline:
            break
        await asyncio.sleep(0.2)
    refused = sum(1 for _, chat in sends["rejected"] if chat in ids)
    span = times[-1] - pushed if times else 0.0
    return {"people": people, "answered": answered, "messages": len(times), "http_429": refused - refused_before,
            "seconds": round(span, 2),
            "rate_over_limit": round(len(times) / span / OVERALL["count"], 3) if span > 0 else 0.0}


async def sigterm(server: ServerProcess, process: asyncio.subprocess.Process) -> dict[str, Any]:
    backlog = [command(8_100_000 + n, GROUP_CHAT, f"/help {n}") for n in range(150)]
    await server.post("/push", {"updates": backlog})
    await asyncio.sleep(3)
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), 60)
    except TimeoutError:
        return {"exit_s": 60.0, "exited": False}
    return {"exit_s": round(time.monotonic() - started, 2), "exited": True, "exit_code": process.returncode}


async def run(quick: bool) -> dict[str, Any]:
    """The shipped tree; with FLOOD_BASELINE_TREE=<a checkout of older code>, that tree's bot instead (the
    same scenarios, for before/after figures; it must accept `python -m bot telegram --base-url`)."""
    tree = Path(os.environ.get("FLOOD_BASELINE_TREE") or ROOT)
    with temporary_folder("flood") as folder:
        async with ServerProcess() as server:
            await server.post("/reset", {"limit": OVERALL, "group_limit": PER_GROUP})
            environment = {**os.environ, "TELEGRAM_BOT_TOKEN": server.token,
                           "INTERVIEW_BOT_DB": str(folder / "flood.sqlite3"), "INTERVIEW_BOT_LOG_LEVEL": "WARNING"}
            environment.pop("INTERVIEW_BOT_CONFIG", None)
            if tree != ROOT:
                environment["PYTHONPATH"] = str(tree)
            log = folder / "bot.log"
            with log.open("wb") as output:
                process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "bot", "telegram", "--base-url", server.base_url, cwd=tree, env=environment,
                    stdin=asyncio.subprocess.DEVNULL, stdout=output, stderr=output)
            try:
                await until_polling(server, process, log)
                result: dict[str, Any] = {"start_flood": await start_flood(server)}
                result["board_flood"] = await board_flood(server)
                result["crowd"] = await crowd(server)
                result["sigterm"] = await sigterm(server, process)
            finally:
                await stop_process(process, 10)
            _, refused = await counts(server)
            result["http_429"] = refused
            tail = log.read_text(errors="replace")
            result["bot_log_tracebacks"] = tail.count("Traceback")
            result["tree"] = "shipped" if tree == ROOT else str(tree)
    result["notes"] = [
        f"500 /start from one person: a bystander's /help answered after {result['start_flood']['bystander_reply_s']} s "
        f"(round 1: none in 150 s); the flooder got {result['start_flood']['flooder_messages']} messages.",
        f"120 /leaderboard in one group: {result['board_flood']['group_replies']} replies, "
        f"{result['board_flood']['group_429']} 429s (round 1: 21); a bystander's DM after "
        f"{result['board_flood']['bystander_reply_s']} s.",
        f"200 people at once: {result['crowd']['answered']} answered in {result['crowd']['seconds']} s, "
        f"{result['crowd']['http_429']} 429s (round 1: 23).",
        f"SIGTERM with 150 replies queued in one group: exited after {result['sigterm']['exit_s']} s.",
    ]
    return result


async def until_polling(server: ServerProcess, process: asyncio.subprocess.Process, log: Path) -> None:
    deadline = time.monotonic() + 120
    while (await server.get("/calls", method="getUpdates"))["count"] == 0:
        if process.returncode is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the bot did not start polling; its log ends:\n{log.read_text(errors='replace')[-2000:]}")
        await asyncio.sleep(0.1)
