"""Answering an interaction: respond once within Discord's 3-second window, then follow up.

`in_time` runs the core's work and defers only when it would miss the window, so quick replies
are a single response and slow ones (charts, writes under load) show "thinking..." first.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

import discord

from adapters.discord.render import Part, render
from bot.replies import Document
from bot.text.messages import Message

log = logging.getLogger(__name__)
T = TypeVar("T")
RESPONSE_BUDGET_S = 1.5  # of the 3 s Discord allows, leaving room for the network


async def in_time(interaction: discord.Interaction, work: Awaitable[T], *, ephemeral: bool = False,
                  thinking: bool = True) -> T:
    """The work's result; if it takes longer than the budget, defer first so the interaction stays alive.

    For a button, thinking=False defers as an update of the clicked message (type 6)."""
    task = asyncio.ensure_future(work)
    budget = getattr(interaction.client, "response_budget", RESPONSE_BUDGET_S)
    done, _ = await asyncio.wait({task}, timeout=budget)
    if not done:
        try:
            await defer(interaction, ephemeral=ephemeral, thinking=thinking)
        except BaseException:
            task.add_done_callback(_finished)  # the work still completes; its outcome is only logged
            raise
    return await task


def _finished(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("work after a failed defer also failed", exc_info=task.exception())


async def defer(interaction: discord.Interaction, *, ephemeral: bool = False, thinking: bool = True) -> None:
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=ephemeral, thinking=thinking)
        log.debug("interaction %s deferred", interaction.id)


async def send_part(interaction: discord.Interaction, part: Part, *, ephemeral: bool = False) -> discord.Message:
    """A new message: the response if none was given yet, else a follow-up."""
    if not interaction.response.is_done():
        callback = await interaction.response.send_message(ephemeral=ephemeral, **part.send_kwargs())
        if isinstance(callback.resource, discord.InteractionMessage):
            return callback.resource
        return await interaction.original_response()
    return await interaction.followup.send(ephemeral=ephemeral, wait=True, **part.send_kwargs())


async def send(interaction: discord.Interaction, message: Message, *, ephemeral: bool = False) -> discord.Message:
    """The whole message (maybe several Discord messages); returns the last one, which carries the buttons."""
    sent: discord.Message | None = None
    for part in render(message):
        sent = await send_part(interaction, part, ephemeral=ephemeral)
    assert sent is not None
    return sent


async def sent_id(sending: Awaitable[discord.Message]) -> str:
    """The reference the core keeps for a sent message: its id."""
    return str((await sending).id)


async def send_file(interaction: discord.Interaction, document: Document, *, ephemeral: bool = False) -> None:
    """A file (an exported deck) as an attachment, its caption as the text beside it."""
    file = discord.File(io.BytesIO(document.data), filename=document.filename)
    if not interaction.response.is_done():
        await interaction.response.send_message(document.caption, file=file, ephemeral=ephemeral)
    else:
        await interaction.followup.send(document.caption, file=file, ephemeral=ephemeral)


async def tell(interaction: discord.Interaction, text: str, *, ephemeral: bool = True) -> None:
    """A short text reply (a refusal, a confirmation)."""
    if not interaction.response.is_done():
        await interaction.response.send_message(text, ephemeral=ephemeral)
    else:
        await interaction.followup.send(text, ephemeral=ephemeral)


async def update(interaction: discord.Interaction, message: Message) -> None:
    """Replace the clicked message (content, embeds, buttons); extra parts follow as new messages."""
    first, *rest = render(message)
    changes: dict[str, Any] = {"content": None, "embeds": first.embeds, "view": first.view(),
                               "attachments": first.files()}
    response_type = interaction.response.type
    if not interaction.response.is_done():
        await interaction.response.edit_message(**changes)
    elif response_type == discord.InteractionResponseType.deferred_message_update:
        await interaction.edit_original_response(**changes)
    elif interaction.message is not None:
        await interaction.message.edit(**changes)
    for part in rest:
        await send_part(interaction, part)
