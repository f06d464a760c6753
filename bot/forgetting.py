"""The core's doors for forgetting a person (`Core` inherits them): what /forget deletes, the button that
confirms it, and the deletion, one transaction in bot/store/forget.py (their name leaves the group decks
they added too; the decks stay with the groups)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.caller import resolve
from bot.domain import ChatRef, UserRef
from bot.replies import ClickReply
from bot.store.forget import Forgotten, forget_user
from bot.text.i18n import t
from bot.text.messages import Button, Message, Paragraph
from bot.tokens import FORGET_TOKEN

if TYPE_CHECKING:
    from bot.schedule.clock import Clock
    from bot.store.database import Database

log = logging.getLogger("bot.core")


class ForgetDoors:
    """/forget: ask, confirm, delete."""

    db: Database
    clock: Clock
    if TYPE_CHECKING:  # Core's
        async def language(self, user: UserRef | None = None, chat: ChatRef | None = None) -> str: ...

    async def forget_request(self, user: UserRef) -> Message:
        """What /forget deletes, and the button that confirms it (pressing it is the consent)."""
        language = await self.language(user)
        return Message((Paragraph(t(language, "forget.ask")),),
                       ((Button(t(language, "forget.button"), FORGET_TOKEN),),))

    async def forget(self, user: UserRef) -> Forgotten | None:
        """Delete everything held about this person; None when nothing was held."""
        person = (await resolve(self.db, self.clock.now(), user, create=False)).user
        if person is None:
            return None
        forgotten = await forget_user(self.db, person.id)
        log.info("user %d forgotten at their request (%d answers, %d interviews)", person.id, forgotten.answers,
                 forgotten.interviews)
        return forgotten

    async def _forget_click(self, user: UserRef) -> ClickReply:
        language = await self.language(user)  # before: afterwards nothing of their choice is left
        forgotten = await self.forget(user)
        text = t(language, "forget.done" if forgotten is not None else "forget.nothing")
        return ClickReply(text, edit=Message((Paragraph(text),)))
