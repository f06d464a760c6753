"""Answer buttons that keep working across restarts: a DynamicItem whose custom_id is the core's token.

Nothing about a button lives in memory: the custom_id `a:<asked_id>:<letter>` is matched by the
template, and the store decides whether the click counts. As in discord.py's dynamic_counter
example, the template, `from_custom_id` and the `callback` live in this one class; the callback hands
the click to the client, whose `answer_click` (clicks.py) talks to the core. This module imports
nothing of the adapter, so the renderer can build views of these buttons without an import cycle.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord


class AnswersClicks(Protocol):
    async def answer_click(self, interaction: discord.Interaction, token: str) -> None: ...

# An answer, /forget's confirmation, or /deck remove's (deck:rm:<deck id>:<version>:<user id>, see bot/decks/service.py)
TEMPLATE = r"a:(?P<asked_id>[0-9]+):(?P<letter>[a-f])|forget:yes|deck:rm:[0-9]+:[0-9]+:[0-9]+"


class AnswerButton(discord.ui.DynamicItem[discord.ui.Button], template=TEMPLATE):
    """One answer option of a question; its custom_id is the answer token."""

    def __init__(self, token: str, label: str | None = None, row: int | None = None) -> None:
        match = re.fullmatch(TEMPLATE, token)
        if match is None:
            raise ValueError(f"not an answer token: {token!r}")
        default = match["letter"].upper() if match["letter"] else token
        super().__init__(discord.ui.Button(label=label or default, custom_id=token,
                                           style=discord.ButtonStyle.secondary), row=row)

    @classmethod
    def from_token(cls, token: str, label: str, row: int | None = None) -> AnswerButton:
        return cls(token, label, row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> AnswerButton:
        return cls(match.group(0), getattr(item, "label", None))

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        client: AnswersClicks = interaction.client  # type: ignore[assignment]
        await client.answer_click(interaction, self.custom_id)


def is_answer_custom_id(custom_id: str) -> bool:
    return re.fullmatch(TEMPLATE, custom_id) is not None
