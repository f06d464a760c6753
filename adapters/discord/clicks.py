"""A click on an answer button: the core decides, the clicker is answered, the message follows.

In a DM interview the clicked embed is edited to show the result and the next question follows.
In a server channel the feedback is ephemeral (only the clicker sees right or wrong) and the
message shows at most a count of answers, edited at most once per few seconds (counter.py).
"""

from __future__ import annotations

import logging

import discord

from adapters.discord.errors import report_failure
from adapters.discord.people import chat_ref, is_private, user_ref
from adapters.discord.replies import in_time, send, sent_id, tell, update
from adapters.common.deliver import deliver

log = logging.getLogger(__name__)


async def answer_click(interaction: discord.Interaction, token: str) -> None:
    """Hand the token to the core and render what it says."""
    client = interaction.client
    core = client.core  # type: ignore[attr-defined]
    user, chat = user_ref(interaction), chat_ref(interaction)
    try:
        # In a DM the answer edits the clicked message (defer as an update); elsewhere it is ephemeral.
        clicked = str(interaction.message.id) if interaction.message is not None else None
        reply = await in_time(interaction, core.click(user, chat, token, message_ref=clicked), ephemeral=True,
                              thinking=not is_private(interaction))
        if reply.edit is not None:
            await update(interaction, reply.edit)
        else:
            await tell(interaction, reply.popup, ephemeral=True)
        for outgoing in reply.follow_ups:
            await deliver(core, lambda message: sent_id(send(interaction, message)), outgoing)
        if reply.counter is not None and interaction.message is not None:
            client.port.answered(int(chat.platform_id), interaction.message.id, reply.counter[0])  # type: ignore[attr-defined]
        log.info("click %s by user %s in channel %s: %s", token, user.platform_id, chat.platform_id,
                 "edit" if reply.edit is not None else "popup")
    except Exception as error:  # noqa: BLE001 - the clicker gets a polite message, the log the traceback
        await report_failure(interaction, error)
