"""The port through which the core sends without a user event: daily posts, reveals, timeouts.

Each adapter implements it for its platform and translates its platform's errors into the few
outcomes the core must treat differently. A send is not idempotent: the core records its intent
before calling `send`, and an unknown outcome is recorded as such, never blindly repeated.
"""

from __future__ import annotations

from typing import Protocol

from bot.text.messages import Message
from bot.domain import ChatAddress


UNOWNED_AFTER_S = 600.0  # work its own process has not done this late (past a 12,000-post broadcast) is anyone's


class DeliveryError(Exception):
    """A send or edit failed for a reason the core only logs."""


class ChatGone(DeliveryError):
    """The bot was blocked, removed, or the chat deleted: stop posting there."""


class ChatForbidden(DeliveryError):
    """The chat is still there but the bot may not post in it now (a Discord channel where it lost the
    Send Messages or View Channel permission): pause, do not stop; a later post may get through.
    Not a ChatGone: nothing that stops a chat for good may catch it."""


class ChatMoved(DeliveryError):
    """The platform gave the chat a new id (a Telegram group upgraded to a supergroup)."""

    def __init__(self, new_platform_id: str) -> None:
        super().__init__(f"chat moved to {new_platform_id}")
        self.new_platform_id = new_platform_id


class DeliveryUnknown(DeliveryError):
    """The request may have been delivered (a timeout or 5xx after sending): do not resend."""


class DeliveryPort(Protocol):
    platform: str
    posts_per_second: float  # a broadcast's even pace: at (or just under) the platform's overall limit

    async def send(self, chat: ChatAddress, message: Message) -> str:
        """Post a new message; returns a reference that `edit` understands. Retries only what is safe."""

    async def edit(self, chat: ChatAddress, ref: str, message: Message) -> None:
        """Replace a posted message's content (buttons removed when `message` has none)."""


class PollPort(DeliveryPort, Protocol):
    """A DeliveryPort whose platform has native quiz polls (Telegram). The core sends a message that carries
    a `Poll` through `send_poll` when the port has it, and with buttons through `send` otherwise."""

    async def send_poll(self, chat: ChatAddress, message: Message) -> tuple[str, str]:
        """Post `message.poll`; returns (a ref that `close_poll` understands, the platform's poll id)."""

    async def close_poll(self, chat: ChatAddress, ref: str) -> None:
        """Stop a posted poll taking votes (nothing happens if it is already closed)."""


def poll_port(port: DeliveryPort) -> PollPort | None:
    """The port as a PollPort, when its platform has polls."""
    return port if callable(getattr(port, "send_poll", None)) and callable(getattr(port, "close_poll", None)) \
        else None  # type: ignore[return-value]


def sends_here(port: DeliveryPort | None, chat: ChatAddress, late_s: float) -> bool:
    """Whether this process sends the chat's scheduled post or reveal, `late_s` seconds after it fell due.

    A port may name the chats that are another process's own (`owns`: a sharded Discord bot, where the
    process whose gateway shards hold a server is the one to post in its channels). This process leaves
    those alone, unless the work is UNOWNED_AFTER_S late: then their process is down, or no process
    knows the chat (a deleted channel), and any process takes it (the store's claim keeps it to one)."""
    owns = getattr(port, "owns", None)
    return not callable(owns) or owns(chat) or late_s >= UNOWNED_AFTER_S
