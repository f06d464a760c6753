"""Running chat platforms: one process, one store, one bank, one scheduler, every platform that has a token.

The platform modules are imported only here, when a platform is actually started, so that
`interview-bot console` and `interview-bot questions` never load telegram or discord.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Awaitable, Callable

from bot.bank import BankError
from bot.app.config import Settings
from bot.core import Core
from bot.metrics import serve_metrics
from bot.store import StoreGone

log = logging.getLogger(__name__)
Serve = Callable[[Core, Settings, asyncio.Event], Awaitable[None]]
GATEWAY_REFUSALS: dict[object, tuple[str, str]] = {  # gateway closes that no reconnect mends, and the cure
    4010: ("Invalid Shard", "check --shard-count and --shard-ids (the same count in every process, each id below it)"),
    4011: ("Sharding Required", "the bot is in too many servers for its shards: give it a larger --shard-count"),
}


def _telegram(options: dict) -> Serve:
    from adapters.telegram.app import serve

    return lambda core, settings, stop: serve(core, settings, stop, **options)


def _discord(options: dict) -> Serve:
    from adapters.discord.client import serve

    return lambda core, settings, stop: serve(core, settings, stop, **options)


async def _serve_all(settings: Settings, services: dict[str, Serve], metrics: str | None = None) -> int:
    core = await Core.open(settings.db_path, settings.questions_path, review_retention=settings.review_retention)
    try:
        exporter = serve_metrics(metrics) if metrics else None
    except BaseException:
        await core.close()
        raise
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    platforms_stop = asyncio.Event()  # set once the core's own work has stopped (below)
    try:
        await core.start()
        tasks = [asyncio.create_task(serve(core, settings, platforms_stop), name=name)
                 for name, serve in services.items()]
        gone = asyncio.create_task(core.db.gone.wait(), name="store watch")
        signalled = asyncio.create_task(stop.wait(), name="stop signal")
        log.info("serving %s", ", ".join(services))
        done, _ = await asyncio.wait([*tasks, gone, signalled], return_when=asyncio.FIRST_COMPLETED)
        # a signal, the store gone, or a platform stopped (an error): first the daily posts and reveals
        # being sent end (no new one begins), while the platforms' connections are still open; then the
        # platforms stop
        await core.stop_work()
        platforms_stop.set()
        gone.cancel()
        signalled.cancel()
        await asyncio.gather(*tasks, gone, signalled, return_exceptions=True)
        for task in done:  # a platform that failed before the stop: its error is the exit's
            if task in tasks and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
        if core.db.gone.is_set():
            raise StoreGone(f"the store {core.db.path} was deleted or replaced while running")
    finally:
        if exporter is not None:
            exporter.close()
        await core.close()
    return 0


def startup_problem(error: BaseException) -> str | None:
    """One line for a platform that cannot be reached or refuses the token at start-up; None for a bug."""
    kind = f"{type(error).__module__}.{type(error).__name__}"
    if kind == "telegram.error.InvalidToken":
        return "Telegram rejected the bot token: check TELEGRAM_BOT_TOKEN (@BotFather gives a new one)"
    if kind == "discord.errors.LoginFailure":
        return "Discord rejected the bot token: check DISCORD_BOT_TOKEN (the application's Bot page)"
    if kind.startswith("telegram.error.") and type(error).__name__ in ("NetworkError", "TimedOut"):
        return f"cannot reach the Telegram Bot API: {error} (check the network or TELEGRAM_BASE_URL)"
    code = getattr(error, "code", None)
    if kind == "discord.errors.ConnectionClosed" and code in GATEWAY_REFUSALS:
        shard, (name, cure) = getattr(error, "shard_id", None), GATEWAY_REFUSALS[code]
        return f"Discord refused {'the connection' if shard is None else f'shard {shard}'} ({code} {name}): {cure}"
    if kind.startswith("aiohttp.") and "Connect" in type(error).__name__:
        return f"cannot reach Discord: {error} (check the network)"
    if isinstance(error, OSError) and "address" in str(error).lower():
        return f"cannot listen: {error}"
    return None


def run_platforms(settings: Settings, wanted: dict[str, dict], *, metrics: str | None = None) -> int:
    """Start the named platforms ({'telegram': {...options}, 'discord': {...}}) until a signal; with
    `metrics` (HOST:PORT), serve Prometheus metrics there meanwhile."""
    builders = {"telegram": _telegram, "discord": _discord}
    services = {name: builders[name](options) for name, options in wanted.items()}
    try:
        return asyncio.run(_serve_all(settings, services, metrics))
    except BankError as error:
        print(f"interview-bot: the question bank has problems:\n{error}", file=sys.stderr)
        return 1
    except Exception as error:
        problem = startup_problem(error)
        if problem is None:
            raise
        log.debug("start-up failed", exc_info=error)
        print(f"interview-bot: {problem}", file=sys.stderr)
        return 1
