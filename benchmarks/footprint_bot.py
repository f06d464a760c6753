"""The bot process the footprint benchmark measures: `interview-bot run` with both adapters, where
Discord's network is the only thing replaced (no connection to Discord is possible here).

Run as `python -m benchmarks.footprint_bot DISCORD_API STAGES_FILE` with the bot's usual environment
(TELEGRAM_BOT_TOKEN, TELEGRAM_BASE_URL, DISCORD_BOT_TOKEN, INTERVIEW_BOT_DB, INTERVIEW_BOT_QUESTIONS).
Then it is bot.app.cli.main(["run"]): the runner opens the store, loads and validates the bank, starts
the scheduler, and serves Telegram (long polling against the fake Bot API server) and Discord side by
side over one Core. For Discord, discord.py's REST calls go to DISCORD_API, a fake REST API in the
benchmark process (the real HTTPClient and its aiohttp session: login, application info, the command
tree synced with its translations, the dynamic answer buttons registered); only the gateway
connection is replaced by a wait, so there is no websocket and no guild cache.

STAGES_FILE gets one JSON line per stage before the bot starts (VmRSS of the bare interpreter, then
after importing both platforms' libraries); the benchmark reads the running process's own figures
from /proc/<pid>/status.

FOOTPRINT_PROTOTYPES (comma-separated) applies prototypes of memory fixes to this process only (not
the bot's code):
  chart_in_subprocess -- the /progress chart is drawn in a short-lived process (spawned, one chart
                         each), so matplotlib is never imported here;
  trim_after_load     -- after the bank is loaded: gc.collect() and glibc's malloc_trim(0), which hands
                         the freed YAML parse trees back to the system;
  drop_verify         -- the loaded questions without their verify snippets (only `questions verify`
                         runs them; the bot never does).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path


def memory() -> dict[str, float]:
    """VmRSS, VmHWM, RssAnon and RssFile of this process, in MB (Linux /proc)."""
    figures = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            figures[name] = round(int(value.split()[0]) / 1024, 1)
    return figures


def stage(path: Path, name: str) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"stage": name, **memory()}) + "\n")


def _draw_in_subprocess() -> None:
    import bot.progress.view as view
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    draw = view.progress_chart_png

    def progress_chart_png(progress: object, language: str, labels: object = None) -> bytes:
        with ProcessPoolExecutor(1, mp_context=get_context("spawn"), max_tasks_per_child=1) as pool:
            return pool.submit(draw, progress, language, labels).result()

    view.progress_chart_png = progress_chart_png  # type: ignore[assignment]


def _after_load(trim: bool, drop_verify: bool) -> None:
    import ctypes
    import dataclasses
    import gc

    import bot.core

    load = bot.core.load_bank

    def load_bank(paths: object = None) -> object:
        bank = load(paths)  # type: ignore[arg-type]
        if drop_verify:
            for key, question in list(bank.questions.items()):
                bank.questions[key] = dataclasses.replace(question, verify=None)
        if trim:
            gc.collect()
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        return bank

    bot.core.load_bank = load_bank  # type: ignore[assignment]


def prototypes(names: set[str]) -> None:
    if "chart_in_subprocess" in names:
        _draw_in_subprocess()
    if names & {"trim_after_load", "drop_verify"}:
        _after_load("trim_after_load" in names, "drop_verify" in names)


def main(argv: list[str]) -> int:
    discord_api, stages = argv[0], Path(argv[1])
    stage(stages, "interpreter")
    import discord.http
    import telegram.ext  # noqa: F401  - what the runner imports when it starts Telegram

    from adapters.discord import client as discord_client
    from adapters.telegram import app as telegram_app  # noqa: F401
    from bot.app.cli import main as cli_main

    stage(stages, "imports")
    discord.http.Route.BASE = discord_api  # type: ignore[misc]  # every REST call to the fake

    async def connect(self: discord_client.InterviewClient, *, reconnect: bool = True) -> None:
        await asyncio.Event().wait()  # the gateway: nothing arrives; cancelled when the bot stops

    discord_client.InterviewClient.connect = connect  # type: ignore[method-assign]
    prototypes({name for name in os.environ.get("FOOTPRINT_PROTOTYPES", "").split(",") if name})
    return cli_main(["run"])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
