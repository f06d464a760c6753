"""A person's progress and history as use cases: tables in their language, the chart from a child process."""

from __future__ import annotations

from bot.bank.loader import Bank
from bot.caller import Caller
from bot.progress.chart import draw_progress_chart
from bot.progress.stats import history, user_progress
from bot.progress.view import chart_labels, history_message, progress_message
from bot.store.database import Database
from bot.text.messages import Message


class ProgressService:
    def __init__(self, db: Database, bank: Bank) -> None:
        self.db, self.bank = db, bank

    async def progress(self, caller: Caller) -> Message:
        """Accuracy per topic and level as text, with a PNG chart (drawn in a child process)."""
        assert caller.user is not None
        progress = await user_progress(self.db, self.bank, caller.user.id)
        image = None
        if progress.answered:
            image = await draw_progress_chart(progress, caller.language, chart_labels(self.bank, progress, caller.language))
        return progress_message(self.bank, progress, caller.language, image)

    async def history(self, caller: Caller) -> Message:
        assert caller.user is not None
        return history_message(self.bank, await history(self.db, self.bank, caller.user.id), caller.language)
