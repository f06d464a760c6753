"""Footprint: the resident memory (VmRSS) of a running bot with both adapters and a bank of 10,000
generated questions; the same with the shipped bank beside it.

Why: the bot is meant to run on a small server, next to other things; its memory is mostly the
validated bank plus both platforms' libraries. The process measured is `interview-bot run` itself
(benchmarks/footprint_bot.py): the runner loads and validates the bank, opens the store, starts the
scheduler, and serves Telegram (long polling against the fake Bot API server in this process) and
Discord (its REST calls answered by a fake REST API in this process: login, application info, the
command tree synced, the dynamic answer buttons registered; the gateway is not connected, so there
is no websocket and no guild cache). Once it polls, it serves what a running bot serves: an
administrator's /daily in a group, members clicking the answer buttons, and a member's /progress in a
private chat (a chart: matplotlib is loaded the first time anyone asks, and stays). Then VmRSS is read
from /proc/<pid>/status; VmHWM is the peak (while the bank is loaded and validated).

The 10,000 questions are generated in the shipped bank's shape (benchmarks/bank_files.py, 24.5 MB
of YAML in 10 files).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from benchmarks.bank_files import write_bank
from benchmarks.figures import Figure
from benchmarks.sizes import scaled, stop_process, temporary_folder
from tests.adapters.telegram.fake_bot_api import FakeBotApi

NAME = "footprint"
GOAL_MB = 150.0
FIGURES = (
    Figure("rss_mb", " MB", at_most=GOAL_MB),
    Figure("rss_with_chart_worker_mb", " MB"),
    Figure("generated.chart_worker_mb", " MB"),
    Figure("generated.rss_after_clicks_mb", " MB"),
    Figure("generated.peak_mb", " MB"),
    Figure("shipped.rss_mb", " MB"),
    Figure("shipped.rss_after_clicks_mb", " MB"),
    Figure("bank_mb", " MB"),
    Figure("libraries_mb", " MB"),
)

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS, FILES = 10_000, 10
TOKEN = "123456:FOOTPRINT-fake-token"
ADMIN, GROUP = 7001, -1_003_000_000_001
MEMBERS_FULL, MEMBERS_QUICK = 1000, 1000  # distinct members clicking: 1,000+ users
APP_ID, BOT_ID = 900_000_000_000_000_101, 900_000_000_000_000_102
BOT_USER = {"id": str(BOT_ID), "username": "interview-bot", "discriminator": "0", "global_name": None,
            "avatar": None, "bot": True}
_ids = itertools.count(950_000_000_000_001_000)
_updates = itertools.count(1)


class FakeDiscordRest:
    """Discord's REST API as far as logging in and syncing commands go; everything else 404."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self.runner: web.AppRunner | None = None
        self.base = ""

    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", "/api/v10/{path:.*}", self.handle)
        self.runner = web.AppRunner(app, handle_signals=False)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base = f"http://127.0.0.1:{port}/api/v10"
        return self.base

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()

    async def handle(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["path"]
        self.requests.append((request.method, path))
        if request.method == "GET" and path == "/users/@me":
            return self.json(BOT_USER)
        if request.method == "GET" and path == "/oauth2/applications/@me":
            return self.json({"id": str(APP_ID), "name": "interview-bot", "description": "", "icon": None,
                              "bot_public": True, "bot_require_code_grant": False, "owner": BOT_USER,
                              "verify_key": "0" * 64, "flags": 0})
        if request.method == "PUT" and path.endswith("/commands"):
            commands = await request.json()
            return self.json([dict(command, id=str(next(_ids)), application_id=str(APP_ID), version="1")
                              for command in commands])
        return self.json({"message": "404: Not Found", "code": 0}, status=404)

    @staticmethod
    def json(body: Any, status: int = 200) -> web.Response:
        """discord.py parses a body as JSON only when the content type is exactly application/json."""
        return web.Response(body=json.dumps(body).encode(), status=status, headers={"Content-Type": "application/json"})


def proc_memory(pid: int) -> dict[str, float]:
    figures = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            figures[name] = round(int(value.split()[0]) / 1024, 1)
    return figures


def descendants(pid: int) -> list[int]:
    """Every live process under `pid` (the chart worker and multiprocessing's helper), from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry.name))
    found, stack = [], list(parents.get(pid, []))
    while stack:
        child = stack.pop()
        found.append(child)
        stack.extend(parents.get(child, []))
    return found


def children_rss_mb(pid: int) -> float:
    total = 0.0
    for child in descendants(pid):
        try:
            total += proc_memory(child).get("VmRSS", 0.0)
        except OSError:
            continue
    return round(total, 1)


def person(user_id: int) -> dict[str, Any]:
    return {"id": user_id, "is_bot": False, "first_name": f"Member {user_id}", "language_code": "en"}


def command(user_id: int, chat: dict[str, Any], text: str) -> dict[str, Any]:
    name = text.split()[0]
    return {"message": {"message_id": next(_updates), "date": int(time.time()), "chat": chat, "from": person(user_id),
                        "text": text, "entities": [{"type": "bot_command", "offset": 0, "length": len(name)}]}}


async def until(condition: Any, seconds: float, what: str, process: asyncio.subprocess.Process, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if process.returncode is not None or time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            problem = f"exited ({process.returncode})" if process.returncode is not None else f"took over {seconds:.0f} s"
            raise RuntimeError(f"the bot {problem} before {what}; its log ends:\n{tail}")
        await asyncio.sleep(0.02)


async def progress_latencies(api: FakeBotApi, users: range, process: asyncio.subprocess.Process,
                             log: Path) -> list[float]:
    """Milliseconds from a member's /progress reaching the server's update queue to the bot's reply (a
    chart drawn for them for the first time, the worker already warm), one member after another."""
    samples = []
    for user_id in users:
        started = time.perf_counter()
        api.push(command(user_id, {"id": user_id, "type": "private", "first_name": f"Member {user_id}"}, "/progress"))
        await until(lambda: api.sent_to(user_id), 60, f"/progress of {user_id}", process, log)
        samples.append(round((time.perf_counter() - started) * 1000, 1))
    return samples


async def measure(folder: Path, questions: Path | None, members: int, label: str,
                  progress_samples: int = 0) -> dict[str, Any]:
    """Start the bot, let it serve /daily, clicks and /progress, read its memory, stop it."""
    api = FakeBotApi(token=TOKEN)
    api.admins[GROUP] = {ADMIN}
    discord_api = FakeDiscordRest()
    await api.start()
    await discord_api.start()
    stages = folder / f"stages-{label}.jsonl"
    log = folder / f"bot-{label}.log"
    environment = {**os.environ, "TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_BASE_URL": api.base_url,
                   "DISCORD_BOT_TOKEN": "footprint-discord-token", "INTERVIEW_BOT_DB": str(folder / f"{label}.sqlite3"),
                   "INTERVIEW_BOT_LOG_LEVEL": "WARNING"}
    environment.pop("INTERVIEW_BOT_CONFIG", None)
    if questions is not None:
        environment["INTERVIEW_BOT_QUESTIONS"] = str(questions)
    else:
        environment.pop("INTERVIEW_BOT_QUESTIONS", None)
    started = time.perf_counter()
    with log.open("wb") as output:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.footprint_bot", discord_api.base, str(stages), cwd=ROOT,
            env=environment, stdin=asyncio.subprocess.DEVNULL, stdout=output, stderr=output)
    try:
        group = {"id": GROUP, "type": "supergroup", "title": "Footprint group"}
        await until(lambda: any(c.method == "getUpdates" for c in api.calls), 300, "the first getUpdates", process, log)
        start_s = time.perf_counter() - started
        synced = any(method == "PUT" for method, _ in discord_api.requests)
        at_start = proc_memory(process.pid)
        api.push(command(ADMIN, group, "/daily"))
        await until(lambda: api.sent_to(GROUP), 60, "the daily question", process, log)
        question = api.sent_to(GROUP)[0]
        message = api._message(question)
        for index in range(members):
            user_id = 8001 + index
            api.push({"callback_query": {"id": f"f{label}{index}", "from": person(user_id), "chat_instance": "ci",
                                         "data": question.data[index % len(question.data)], "message": message}})
        await until(lambda: len(api.calls_of("answerCallbackQuery")) >= members, 120, "the answers", process, log)
        after_clicks = proc_memory(process.pid)
        api.push(command(8001, {"id": 8001, "type": "private", "first_name": "Member 8001"}, "/progress"))
        await until(lambda: api.sent_to(8001), 120, "the /progress reply", process, log)
        progress_s = time.perf_counter() - started - start_s
        await asyncio.sleep(0.2)
        after_progress = proc_memory(process.pid)
        chart_worker_mb = children_rss_mb(process.pid)
        chart = any(stored.photo for stored in api.sent_to(8001))
        progress_ms = await progress_latencies(api, range(8002, 8002 + min(progress_samples, members - 1)), process, log)
    finally:
        await stop_process(process, 30)
        await api.stop()
        await discord_api.stop()
    before = [json.loads(line) for line in stages.read_text().splitlines()] if stages.exists() else []
    return {
        "questions": "generated" if questions is not None else "shipped",
        "rss_mb": after_progress["VmRSS"], "rss_after_clicks_mb": after_clicks["VmRSS"],
        "chart_worker_mb": chart_worker_mb, "rss_with_chart_worker_mb": round(after_progress["VmRSS"] + chart_worker_mb, 1),
        "progress_ms": progress_ms,
        "rss_at_start_mb": at_start["VmRSS"], "peak_mb": after_progress["VmHWM"],
        "rss_anon_mb": after_progress["RssAnon"], "rss_file_mb": after_progress["RssFile"],
        "before_start": {entry["stage"]: entry["VmRSS"] for entry in before},
        "start_to_polling_s": round(start_s, 2), "polling_to_progress_s": round(progress_s, 2), "clicks_answered": members, "progress_chart_sent": chart,
        "discord_commands_synced": synced, "exit_code": process.returncode,
    }


def bank_composition(folder: Path) -> dict[str, Any]:
    """The loaded bank's live objects by kind (sys.getsizeof, each object once), in MB: what the
    bank's share of the RSS is made of. Text is split by language: Turkish text has letters beyond
    Latin-1 (ş, ğ, ı), so CPython stores it with 2 bytes a character; English takes 1."""
    import sys as system
    from collections import Counter

    from bot.bank import load_bank

    bank = load_bank([folder])
    seen: set[int] = set()
    sizes: Counter[str] = Counter()

    def kind_of(name: str, kind: str) -> str:
        if name in ("tr", "en"):
            return f"text {name}"
        return "verify snippets" if name == "verify" or kind == "verify snippets" else kind

    def walk(value: Any, kind: str) -> None:
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, str):
            sizes[kind] += system.getsizeof(value)
            return
        sizes["containers and objects"] += system.getsizeof(value)
        if isinstance(value, dict):
            for key, item in value.items():
                walk(key, "keys")
                walk(item, kind_of(key, kind))
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item, kind)
        elif hasattr(value, "__dataclass_fields__"):
            if hasattr(value, "__dict__"):
                walk(vars(value), kind)
            for name in value.__dataclass_fields__:
                walk(getattr(value, name), kind_of(name, kind))

    for question in bank.questions.values():
        walk(question, "other strings")
    return {kind: round(size / 2**20, 1) for kind, size in sizes.most_common()}


def notes_for(result: dict[str, Any]) -> list[str]:
    generated, shipped = result["generated"], result["shipped"]
    stages = generated["before_start"]
    notes = [
        f"RSS with {result['questions']:,} generated questions: {generated['rss_mb']:g} MB after /daily, "
        f"{generated['clicks_answered']:,} members clicking and a /progress chart (peak {generated['peak_mb']:g} MB); "
        f"with the shipped bank {shipped['rss_mb']:g} MB. The chart worker (a spawned process with matplotlib, "
        f"kept for 5 minutes after the last chart) adds {generated['chart_worker_mb']:g} MB while it lives: "
        f"{generated['rss_with_chart_worker_mb']:g} MB in all.",
        f"where it goes: the interpreter {stages.get('interpreter', 0):g} MB; importing telegram, discord, aiohttp, "
        f"httpx and the bot +{result['libraries_mb']:g} MB; the {result['questions']:,} questions over the shipped "
        f"bank +{result['bank_mb']:g} MB.",
    ]
    if "bank_objects_mb" in result:
        notes.append("the bank's live objects (MB): " + ", ".join(
            f"{kind} {size:g}" for kind, size in result["bank_objects_mb"].items()))
    return notes


async def run(quick: bool) -> dict[str, Any]:
    members = scaled(MEMBERS_QUICK if quick else MEMBERS_FULL, minimum=3)
    count = scaled(QUESTIONS, minimum=20)
    with temporary_folder("footprint") as folder:
        bank = folder / "bank"
        write_bank(bank, count, min(FILES, count))
        generated = await measure(folder, bank, members, "generated")
        shipped = await measure(folder, None, members, "shipped")
        result: dict[str, Any] = {
            "questions": count, "rss_mb": generated["rss_mb"], "goal_rss_mb": GOAL_MB,
            "rss_with_chart_worker_mb": generated["rss_with_chart_worker_mb"], "members": members,
            "generated": generated, "shipped": shipped,
            "bank_mb": round(generated["rss_after_clicks_mb"] - shipped["rss_after_clicks_mb"], 1),
            "libraries_mb": round(generated["before_start"].get("imports", 0)
                                  - generated["before_start"].get("interpreter", 0), 1),
        }
        if not quick:
            result["bank_objects_mb"] = await asyncio.to_thread(bank_composition, bank)
    result["notes"] = notes_for(result)
    return result
