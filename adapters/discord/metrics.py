"""/metrics on Discord: interactions in flight and the 429s that discord.py retries by itself.

discord.py handles rate limits inside its HTTP client and says so only in a log line; a logging
filter on that logger counts them (it never hides a record).
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from bot.metrics import count_rate_limited, in_flight

RATE_LIMIT_LOGGER = "discord.http"
RATE_LIMIT_WORDS = "We are being rate limited"


class MeteredTree(app_commands.CommandTree):
    """The command tree, counting each slash command while it runs."""

    async def _call(self, interaction: discord.Interaction) -> None:
        with in_flight("discord"):
            await super()._call(interaction)


class CountRateLimits(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(RATE_LIMIT_WORDS):
            count_rate_limited("discord")
        return True


def count_rate_limits() -> None:
    """Count discord.py's 429 retries (once per process, however many clients)."""
    logger = logging.getLogger(RATE_LIMIT_LOGGER)
    if not any(isinstance(f, CountRateLimits) for f in logger.filters):
        logger.addFilter(CountRateLimits())
