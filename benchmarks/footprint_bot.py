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
"""

from __future__ import annotations

import asyncio
import json
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
    return cli_main(["run"])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
