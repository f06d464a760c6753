"""Is this member an administrator of this group? Asked with getChatMember, remembered for a minute."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from telegram import Bot, ChatMember
from telegram.error import TelegramError

log = logging.getLogger(__name__)
ADMIN_STATUSES = (ChatMember.ADMINISTRATOR, ChatMember.OWNER)


class AdminCheck:
    """getChatMember with a short cache, so a burst of commands costs one request per member."""

    def __init__(self, bot: Bot, ttl: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.bot, self.ttl, self.clock = bot, ttl, clock
        self._known: dict[tuple[int, int], tuple[float, bool]] = {}

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        now = self.clock()
        cached = self._known.get((chat_id, user_id))
        if cached is not None and cached[0] > now:
            return cached[1]
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError as error:
            log.warning("chat %d: getChatMember for user %d failed: %s", chat_id, user_id, error)
            return False
        admin = member.status in ADMIN_STATUSES
        self._forget_expired(now)
        self._known[(chat_id, user_id)] = (now + self.ttl, admin)
        return admin

    def _forget_expired(self, now: float) -> None:
        if len(self._known) > 1000:
            self._known = {key: value for key, value in self._known.items() if value[0] > now}
