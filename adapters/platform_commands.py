"""The `telegram`, `discord` and `run` subcommands; light to import (platform libraries load on start)."""

from __future__ import annotations

import argparse
import sys
from urllib.parse import urlsplit

from bot.app.config import Settings


def add_platform_parsers(commands: argparse._SubParsersAction) -> None:
    telegram = commands.add_parser(
        "telegram", help="run the Telegram bot (TELEGRAM_BOT_TOKEN)",
        description="Run the Telegram bot: long polling by default, or a webhook with --webhook and --listen.")
    telegram.add_argument("--base-url", metavar="URL",
                          help="another Bot API server, e.g. http://127.0.0.1:8081/bot (also TELEGRAM_BASE_URL)")
    telegram.add_argument("--base-file-url", metavar="URL",
                          help="where that server serves files (default: the Bot API URL with /file before /bot, "
                               "e.g. http://127.0.0.1:8081/file/bot; also TELEGRAM_BASE_FILE_URL)")
    telegram.add_argument("--webhook", metavar="URL", help="public HTTPS URL Telegram should post updates to")
    telegram.add_argument("--listen", metavar="HOST:PORT", default="127.0.0.1:8443",
                          help="where the webhook server listens (default 127.0.0.1:8443)")
    telegram.add_argument("--webhook-secret", metavar="TOKEN",
                          help="secret token Telegram sends with each update (default: derived from the bot token)")
    telegram.add_argument("--workers", metavar="N", type=int, default=1,
                          help="how many webhook workers serve this bot on one PostgreSQL store; each keeps to "
                               "1/N of Telegram's flood limits (default 1)")
    telegram.set_defaults(handler=_run_telegram)

    discord = commands.add_parser("discord", help="run the Discord bot (DISCORD_BOT_TOKEN)",
                                  description="Run the Discord bot with slash commands and buttons.")
    discord.add_argument("--list-commands", action="store_true",
                         help="print the slash-command tree with localized descriptions and exit (no connection)")
    discord.add_argument("--sync-guild", metavar="GUILD_ID", type=int,
                         help="sync commands to one server only (instant; global sync can take up to an hour)")
    discord.add_argument("--shard-count", metavar="N", type=int,
                         help="run as a sharded bot with N gateway shards in all (AutoShardedClient)")
    discord.add_argument("--shard-ids", metavar="0,1",
                         help="the shards this process runs (default: all of --shard-count); processes with "
                              "disjoint ids share one PostgreSQL store")
    discord.set_defaults(handler=_run_discord)

    run = commands.add_parser("run", help="run every platform whose token is set, in one process",
                              description="Run Telegram and Discord side by side over one store and one scheduler.")
    run.set_defaults(handler=_run_all)
    for parser in (telegram, discord, run):
        parser.add_argument("--metrics", metavar="HOST:PORT",
                            help="serve Prometheus metrics at http://HOST:PORT/metrics (see docs/operations.md)")


def _telegram_options(args: argparse.Namespace, settings: Settings) -> dict:
    return {"base_url": getattr(args, "base_url", None) or settings.telegram_base_url,
            "base_file_url": getattr(args, "base_file_url", None) or settings.telegram_base_file_url,
            "webhook": getattr(args, "webhook", None), "listen": getattr(args, "listen", "127.0.0.1:8443"),
            "webhook_secret": getattr(args, "webhook_secret", None), "workers": getattr(args, "workers", 1)}


def telegram_option_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with --listen or --webhook, in one line; None when both are usable."""
    host, _, port = str(getattr(args, "listen", "")).rpartition(":")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        return f"--listen must be HOST:PORT (for example 127.0.0.1:8443), not {str(args.listen)[:64]!r}"
    workers = getattr(args, "workers", 1)
    if not 1 <= workers <= 64:
        return f"--workers must be between 1 and 64, not {workers}"
    webhook = getattr(args, "webhook", None)
    if webhook is not None:
        parts = urlsplit(webhook)
        if parts.scheme != "https" or not parts.hostname:
            return f"--webhook must be a public https:// URL (Telegram posts only to HTTPS), not {webhook[:64]!r}"
    return None


def metrics_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with --metrics, in one line; None when it is absent or usable."""
    from bot.metrics import parse_address

    metrics = getattr(args, "metrics", None)
    if metrics is not None and parse_address(metrics) is None:
        return f"--metrics must be HOST:PORT (for example 127.0.0.1:9100), not {metrics[:64]!r}"
    return None


def _run_telegram(args: argparse.Namespace, settings: Settings) -> int:
    from adapters.runner import run_platforms

    problem = telegram_option_problem(args) or metrics_problem(args)
    if problem is not None:
        print(f"interview-bot telegram: {problem}", file=sys.stderr)
        return 2
    if not settings.telegram_token:
        print("interview-bot telegram: set TELEGRAM_BOT_TOKEN (from @BotFather) first", file=sys.stderr)
        return 2
    return run_platforms(settings, {"telegram": _telegram_options(args, settings)}, metrics=args.metrics)


def shard_options(args: argparse.Namespace) -> tuple[dict, str | None]:
    """(shard_count, shard_ids) for the client from --shard-count and --shard-ids, or a one-line problem."""
    count, text = getattr(args, "shard_count", None), getattr(args, "shard_ids", None)
    if count is None:
        return {}, ("--shard-ids needs --shard-count" if text else None)
    if not 1 <= count <= 1024:
        return {}, f"--shard-count must be between 1 and 1024, not {count}"
    if text is None:
        return {"shard_count": count, "shard_ids": None}, None
    try:
        ids = sorted({int(part) for part in text.split(",")})
    except ValueError:
        return {}, f"--shard-ids must be numbers separated by commas, like 0,1, not {text[:64]!r}"
    if not ids or ids[0] < 0 or ids[-1] >= count:
        return {}, f"--shard-ids must be between 0 and {count - 1} (--shard-count {count})"
    return {"shard_count": count, "shard_ids": ids}, None


def _run_discord(args: argparse.Namespace, settings: Settings) -> int:
    if args.list_commands:
        from adapters.discord.commands import print_command_tree

        print_command_tree()
        return 0
    from adapters.runner import run_platforms

    shards, shard_problem = shard_options(args)
    problem = metrics_problem(args) or shard_problem
    if problem is not None:
        print(f"interview-bot discord: {problem}", file=sys.stderr)
        return 2
    if not settings.discord_token:
        print("interview-bot discord: set DISCORD_BOT_TOKEN (the application's bot token) first", file=sys.stderr)
        return 2
    return run_platforms(settings, {"discord": {"sync_guild": args.sync_guild, **shards}}, metrics=args.metrics)


def _run_all(args: argparse.Namespace, settings: Settings) -> int:
    from adapters.runner import run_platforms

    wanted: dict[str, dict] = {}
    if settings.telegram_token:
        wanted["telegram"] = _telegram_options(args, settings)
    if settings.discord_token:
        wanted["discord"] = {"sync_guild": None}
    if not wanted:
        print("interview-bot run: set TELEGRAM_BOT_TOKEN and/or DISCORD_BOT_TOKEN", file=sys.stderr)
        return 2
    if metrics_problem(args):
        print(f"interview-bot run: {metrics_problem(args)}", file=sys.stderr)
        return 2
    return run_platforms(settings, wanted, metrics=args.metrics)
