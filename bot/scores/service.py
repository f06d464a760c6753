"""Boards as use cases: a chat's board in the chat's own time zone, and groups ranked against each other."""

from __future__ import annotations

from bot.caller import Caller
from bot.daily.schedule import chat_zone
from bot.schedule.clock import Clock
from bot.scores.boards import Period, chat_board, groups_board
from bot.scores.view import board_message, groups_message
from bot.store.daily import get_subscription
from bot.store.database import Database
from bot.text.messages import Message


class ScoresService:
    def __init__(self, db: Database, clock: Clock) -> None:
        self.db, self.clock = db, clock

    async def leaderboard(self, caller: Caller, period: Period = "week") -> Message:
        """The chat's board for the period; weeks and months begin in the chat's daily-question zone."""
        assert caller.chat is not None
        tz = chat_zone(await get_subscription(self.db, caller.chat.id))
        me = caller.user.id if caller.user else None
        board = await chat_board(self.db, caller.chat.id, period, self.clock.now(), tz, me)
        return board_message(board, caller.language, me)

    async def groups(self, language: str) -> Message:
        return groups_message(await groups_board(self.db, self.clock.now()), language)
