"""A person's progress and history as use cases: tables in their language, the chart from a child process."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

from bot.bank.loader import Bank
from bot.caller import Caller
from bot.progress.chart import draw_progress_chart
from bot.progress.stats import history, user_progress
from bot.progress.view import chart_labels, history_message, progress_message
from bot.asking.view import topic_label
from bot.learner.view import ability_blocks
from bot.schedule.clock import Clock, SystemClock
from bot.store import learner as beliefs
from bot.store.database import Database
from bot.store.scores import WEEK_S, utc_week_start
from bot.text.messages import Block, Message


TREND_WEEKS = 12  # /progress says how far each topic's ability moved since this many weeks ago (or its start)
CHARTS_KEPT = 256  # recent charts (about 30 KB each), until their owner answers again


class ProgressService:
    def __init__(self, db: Database, bank: Bank, clock: Clock | None = None) -> None:
        self.db, self.bank, self.clock = db, bank, clock or SystemClock()
        self._charts: OrderedDict[tuple, bytes] = OrderedDict()

    async def progress(self, caller: Caller) -> Message:
        """Accuracy per topic and level as text, with a PNG chart (drawn in the chart worker, and kept
        until the person answers again: asking twice costs the drawing once)."""
        assert caller.user is not None
        progress = await user_progress(self.db, self.bank, caller.user.id)
        image = None
        if progress.answered:
            key = (caller.user.id, caller.language, progress.answered, progress.right, progress.timed_out,
                   tuple(progress.weeks))
            image = self._charts.pop(key, None)
            if image is None:
                labels = chart_labels(self.bank, progress, caller.language)
                image = await draw_progress_chart(progress, caller.language, labels)
            self._charts[key] = image
            while len(self._charts) > CHARTS_KEPT:
                self._charts.popitem(last=False)
        message = progress_message(self.bank, progress, caller.language, image)
        lines = await self._abilities(caller.user.id, caller.language) if progress.answered else []
        return replace(message, blocks=(*message.blocks, *lines)) if lines else message

    async def _abilities(self, user_id: int, language: str) -> list[Block]:
        """Ability per topic now, and how far it moved since the earliest of the last weeks kept."""
        now = self.clock.now()
        abilities = await beliefs.abilities(self.db, user_id, now)
        weeks = await beliefs.weekly_abilities(self.db, user_id, now - TREND_WEEKS * WEEK_S)
        this_week = utc_week_start(now)
        earlier = {topic: kept[0] for topic, kept in weeks.items() if kept and kept[0][0] < this_week}
        return ability_blocks(abilities, language, lambda name: topic_label(self.bank, name, language), earlier)

    async def history(self, caller: Caller) -> Message:
        assert caller.user is not None
        return history_message(self.bank, await history(self.db, self.bank, caller.user.id), caller.language)
