"""The core's DeliveryPort on Discord: daily posts, reveals and interview timeouts sent over HTTP.

discord.py handles rate limits (429s) itself. Its errors are translated into the outcomes the core
treats differently, by Discord's JSON error code first and the HTTP status second:

- gone (ChatGone: the channel's daily question stops for good): 10003 Unknown Channel, 10004 Unknown
  Guild, 10008 Unknown Message (an edit of a deleted message is posted anew before it gets here),
  50007 Cannot send messages to this user (a DM channel whose person closed DMs or shares no server
  with the bot any more: for a DM that is gone, as a block is on Telegram), and any other 404;
- forbidden (ChatForbidden: the channel is still there but the bot may not post; its daily question
  pauses and resumes when a post gets through): 50001 Missing Access (no View Channel), 50013 Missing
  Permissions (no Send Messages, Embed Links, Attach Files ...), and any other 403 code: a 403 means
  "not allowed", which an admin can undo, never "deleted";
- unknown (DeliveryUnknown: a server error or timeout after sending: never resend);
- anything else a plain failure (DeliveryError, logged).
"""

from __future__ import annotations

import asyncio
import logging

import aiohttp
import discord

from adapters.discord.render import render
from bot.metrics import metered_send
from bot.port import ChatForbidden, ChatGone, DeliveryError, DeliveryUnknown
from bot.text.messages import Message
from adapters.common.counter import CounterDebouncer
from bot.core import ChatRef, Core
from bot.domain import ChatAddress
from bot.text.i18n import t

log = logging.getLogger(__name__)
UNKNOWN_MESSAGE = 10008  # the message was deleted: an edit falls back to a new message
GONE_CODES = frozenset({10003, 10004, UNKNOWN_MESSAGE, 50007})  # unknown channel, guild, message; DMs closed


def translate(error: Exception, *, sending: bool) -> DeliveryError:
    """A discord.py (or network) error as the core's delivery outcome (the rules are the module's docstring)."""
    if isinstance(error, discord.HTTPException) and (error.code in GONE_CODES or isinstance(error, discord.NotFound)):
        return ChatGone(f"{error.status} {error.code}: {error.text}")
    if isinstance(error, discord.Forbidden):
        return ChatForbidden(f"{error.status} {error.code}: {error.text}")
    if isinstance(error, discord.DiscordServerError) or isinstance(error, (asyncio.TimeoutError, aiohttp.ClientError, OSError)):
        return DeliveryUnknown(str(error) or type(error).__name__) if sending else DeliveryError(str(error))
    return DeliveryError(str(error) or type(error).__name__)


class DiscordPort:
    """Sends and edits messages in Discord channels (server channels and DM channels) by id."""

    platform = "discord"
    posts_per_second = 20.0  # well under Discord's ~50 requests/s per bot; each post is one request

    def __init__(self, client: discord.Client, core: Core, counter_delay: float = 2.0) -> None:
        self.client, self.core = client, core
        self.counters: CounterDebouncer[tuple[int, int]] = CounterDebouncer(self._show_count, counter_delay)
        self._asked: dict[tuple[int, int], int] = {}  # (channel, message) -> the daily question it shows

    def answered(self, channel_id: int, message_id: int, asked_id: int) -> None:
        """A member answered a daily question: its count on the message, soon (one edit for a burst)."""
        self._asked[(channel_id, message_id)] = asked_id
        self.counters.mark((channel_id, message_id))

    async def _show_count(self, key: tuple[int, int]) -> None:
        """The count only (never who answered what), read from the store; nothing once the question closed."""
        asked_id = self._asked.pop(key, None)
        count = await self.core.answers_so_far(asked_id) if asked_id is not None else None
        if not count:
            return
        channel_id, message_id = key
        language = await self.core.language(chat=ChatRef(self.platform, str(channel_id), "group"))
        message = self.client.get_partial_messageable(channel_id).get_partial_message(message_id)
        await message.edit(content=t(language, "discord.counter", count=count))

    def owns(self, chat: ChatAddress) -> bool:
        """Whether this process sends the channel's daily post and reveal (bot/port.py sends_here): the one
        whose gateway shards hold the channel's server, when the bot runs as several shard processes."""
        holds = getattr(self.client, "holds", None)
        return not callable(holds) or holds(int(chat.platform_id))

    def _channel(self, chat: ChatAddress) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(int(chat.platform_id))

    @metered_send("discord")
    async def send(self, chat: ChatAddress, message: Message) -> str:
        """Post the message; the reference is the id of the (last) Discord message, which has the buttons."""
        sent: discord.Message | None = None
        for number, part in enumerate(render(message)):
            try:
                sent = await self._channel(chat).send(**part.send_kwargs())
            except (discord.HTTPException, asyncio.TimeoutError, aiohttp.ClientError, OSError) as error:
                outcome = translate(error, sending=True)
                if number and not isinstance(outcome, (ChatGone, ChatForbidden)):
                    outcome = DeliveryUnknown(f"part {number + 1} failed after part 1 was sent: {error}")
                log.warning("channel %s: send failed: %s", chat.platform_id, type(outcome).__name__)
                raise outcome from error
        assert sent is not None
        return str(sent.id)

    @metered_send("discord")
    async def edit(self, chat: ChatAddress, ref: str, message: Message) -> None:
        """Replace the message (its counter and buttons too); a deleted message is posted anew."""
        first, *rest = render(message)
        self.counters.finalize((int(chat.platform_id), int(ref)))  # no counter edit lands over the reveal
        target = self._channel(chat).get_partial_message(int(ref))
        try:
            await target.edit(content=None, embeds=first.embeds, view=first.view(), attachments=first.files())
        except discord.NotFound as error:
            if error.code != UNKNOWN_MESSAGE:
                raise translate(error, sending=False) from error
            log.info("channel %s: message %s was deleted; posting the edit as a new message",
                     chat.platform_id, ref)
            await self.send(chat, message)
            return
        except (discord.HTTPException, asyncio.TimeoutError, aiohttp.ClientError, OSError) as error:
            raise translate(error, sending=False) from error
        for part in rest:
            try:
                await self._channel(chat).send(**part.send_kwargs())
            except (discord.HTTPException, asyncio.TimeoutError, aiohttp.ClientError, OSError) as error:
                raise translate(error, sending=True) from error
