"""Send one of the core's outgoing messages with the platform's own send, then record where it went.

A question's message reference goes back to the core (`Core.posted`), so its deadline or its reveal
can edit it later; every adapter does this in exactly this order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.core import Core, Message, Outgoing


async def deliver(core: Core, send: Callable[[Message], Awaitable[str]], outgoing: Outgoing) -> str:
    """`send` the message (returning the platform's reference), then tell the core where a question went."""
    ref = await send(outgoing.message)
    if outgoing.asked_id is not None:
        await core.posted(outgoing.asked_id, ref)
    return ref
