"""Test doubles for the delivery port: records every send and edit, and can fail on command."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.core import ClickReply, Core
from bot.domain import ChatRef, UserRef
from bot.errors import AnswerRefused
from bot.lanes import current_lane
from bot.port import DeliveryError
from bot.text.messages import Message
from bot.domain import ChatAddress


@dataclass
class RecordingPort:
    """A DeliveryPort that keeps what it was asked to send; `failures` maps a chat id to an error to raise."""

    platform: str = "test"
    posts_per_second: float = 1000.0
    sent: list[tuple[str, Message]] = field(default_factory=list)
    edits: list[tuple[str, str, Message]] = field(default_factory=list)
    failures: dict[str, DeliveryError] = field(default_factory=dict)
    lanes: list[tuple[str, str]] = field(default_factory=list)  # (send|edit, the send lane it was made in)

    async def send(self, chat: ChatAddress, message: Message) -> str:
        self.lanes.append(("send", current_lane()))
        if chat.platform_id in self.failures:
            raise self.failures.pop(chat.platform_id)
        self.sent.append((chat.platform_id, message))
        return f"{chat.platform_id}/{len(self.sent)}"

    async def edit(self, chat: ChatAddress, ref: str, message: Message) -> None:
        self.lanes.append(("edit", current_lane()))
        self.edits.append((chat.platform_id, ref, message))

    def sent_to(self, chat_id: str) -> list[Message]:
        return [message for target, message in self.sent if target == chat_id]


async def click(core: Core, user: UserRef, chat: ChatRef, token: str) -> ClickReply:
    """A button press through the one door, Core.click, as every adapter makes it; a refusal raises
    `AnswerRefused` with its reason, so tests can say which refusal they expect."""
    reply = await core.click(user, chat, token)
    if reply.refused is not None:
        raise AnswerRefused(reply.refused)
    return reply
