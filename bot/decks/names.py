"""How decks are named and addressed: a deck's name, the `deck:NAME` topic people type, and the ids
its questions get, which no bank id can equal (bank ids hold no dot)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.limits import DECK_NAME_MAX

TOPIC_PREFIX = "deck:"  # what people type: deck:NAME, or deck:NAME@<chat id> where two groups share a name
INTERNAL_PREFIX = "deck."  # a deck's topic inside the core (deck.<deck id>) and its questions' ids
NAME = re.compile(rf"^[a-z0-9_-]{{1,{DECK_NAME_MAX}}}$")
_INTERNAL_TOPIC = re.compile(r"^deck\.([1-9][0-9]{0,11})$")
_QUESTION_ID = re.compile(r"^deck\.([1-9][0-9]{0,11})\.[0-9a-f]{10}$")


def deck_name(text: str) -> str | None:
    """The name as stored (lower-cased, surrounding spaces dropped), or None when it breaks the rule."""
    name = text.strip().lower()
    return name if NAME.match(name) else None


@dataclass(frozen=True)
class DeckTopic:
    """What `deck:NAME[@chat]` asks for: a deck name, and the platform's id of the chat when one is named."""

    name: str
    chat: str | None = None


def parse_topic(topic: str | None) -> DeckTopic | None:
    """`deck:NAME` or `deck:NAME@<chat id>` as typed (any case); None for every other topic. The name is
    not checked here: an unknown one is refused as an unknown topic, with the deck list named."""
    if topic is None or not topic.strip().lower().startswith(TOPIC_PREFIX):
        return None
    rest = topic.strip()[len(TOPIC_PREFIX):]
    name, _, chat = rest.partition("@")
    return DeckTopic(name.strip().lower(), chat.strip() or None)


def spelled(name: str) -> str:
    """A deck as people type it where a topic goes."""
    return f"{TOPIC_PREFIX}{name}"


def internal_topic(deck_id: int) -> str:
    return f"{INTERNAL_PREFIX}{deck_id}"


def deck_of_topic(topic: str | None) -> int | None:
    """The deck id of an internal deck topic (`deck.12`), else None."""
    match = _INTERNAL_TOPIC.match(topic or "")
    return int(match.group(1)) if match else None


def is_internal_topic(topic: str | None) -> bool:
    return topic is not None and topic.startswith(INTERNAL_PREFIX)


def question_id(deck_id: int, content_hash: str) -> str:
    return f"{INTERNAL_PREFIX}{deck_id}.{content_hash}"


def deck_of_question(question_id_: str) -> int | None:
    """The deck a question id belongs to, or None for a bank question."""
    match = _QUESTION_ID.match(question_id_)
    return int(match.group(1)) if match else None
