"""Running chat platforms: one process, one store, one bank, one scheduler, every platform that has a token.

The platform modules are imported only here, when a platform is actually started, so that
`interview-bot console` and `interview-bot questions` never load telegram or discord.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable

from bot.bank import BankError
from bot.app.config import Settings
from bot.core import Core

log = logging.getLogger(__name__)
Serve = Callable[[Core, Settings, asyncio.Event], Awaitable[None]]


def _telegram(options: dict) -> Serve:
    from adapters.telegram.app import serve

    return lambda core, settings, stop: serve(core, settings, stop, **options)


def _discord(options: dict) -> Serve:
    from adapters.discord.client import serve

    return lambda core, settings, stop: serve(core, settings, stop, **options)


async def _serve_all(settings: Settings, services: dict[str, Serve]) -> int:
    core = await Core.open(settings.db_path, settings.questions_path)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    try:
        await core.start()
        tasks = [asyncio.create_task(serve(core, settings, stop), name=name) for name, serve in services.items()]
        log.info("serving %s", ", ".join(services))
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        stop.set()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            if task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
    finally:
        await core.close()
    return 0


def run_platforms(settings: Settings, wanted: dict[str, dict]) -> int:
    """Start the named platforms ({'telegram': {...options}, 'discord': {...}}) until a signal."""
    builders = {"telegram": _telegram, "discord": _discord}
    services = {name: builders[name](options) for name, options in wanted.items()}
    try:
        return asyncio.run(_serve_all(settings, services))
    except BankError as error:
        print(f"interview-bot: the question bank has problems:\n{error}")
        return 1
