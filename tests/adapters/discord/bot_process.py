"""`interview-bot` as a process whose Discord is a local fake: the real command line, runner, Core, store
and discord.py client; only Discord's two addresses (the REST API base and the gateway URL) differ.

Run as `python -m tests.adapters.discord.bot_process API_BASE GATEWAY_URL discord --shard-count 2 ...`
with the bot's usual environment (DISCORD_BOT_TOKEN, INTERVIEW_BOT_DB, INTERVIEW_BOT_QUESTIONS).
discord.py has no option for either address (a bot always talks to discord.com), so they are set on
its classes before the command runs, as benchmarks/footprint_bot.py does for the REST API.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    api, gateway, *command = argv
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = api  # type: ignore[misc]  # every REST call, the interaction callbacks too
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)  # where each shard first connects
    from bot.app.cli import main as cli_main

    return cli_main(command)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
