"""The verdict in words, in the person's language: a line per topic, an overall line, and /progress lines."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timezone

from bot.learner.ability import Estimate
from bot.learner.verdict import Level, level
from bot.text.i18n import t
from bot.text.messages import Block, Paragraph

Label = Callable[[str], str]  # a topic id as the person reads it


def _number(language: str, text: str) -> str:
    if text.lstrip("+-") == "0.0":
        text = "0.0"  # no sign on a zero that rounding made
    return text.replace(".", ",") if language == "tr" else text  # Turkish writes a decimal comma


def _values(language: str, verdict: Level) -> dict[str, object]:
    return {"band": t(language, f"learner.band.{verdict.band}"),
            "certainty": t(language, f"learner.certainty.{verdict.certainty}"),
            "confidence": round(100 * verdict.confidence), "ability": _number(language, f"{verdict.ability:+.1f}"),
            "se": _number(language, f"{verdict.se:.1f}"), "answers": verdict.answers}


def level_blocks(levels: Mapping[str, Level], overall: Level | None, language: str, label: Label) -> list[Block]:
    """The report's verdict: the level per topic with its confidence, then overall (across topics)."""
    if not levels:
        return []
    lines = [t(language, "learner.topic_line", topic=label(name), **_values(language, verdict))
             for name, verdict in sorted(levels.items(), key=lambda pair: label(pair[0]).casefold())]
    blocks: list[Block] = [Paragraph(t(language, "learner.title"), "title"),
                           Paragraph("\n".join(f"- {line}" for line in lines))]
    if overall is not None and len(levels) > 1:  # one topic: the overall line would only repeat it
        blocks.append(Paragraph(t(language, "learner.overall", **_values(language, overall))))
    blocks.append(Paragraph(t(language, "learner.scale"), "muted"))
    return blocks


def _progress_line(language: str, topic: str, estimate: Estimate, then: tuple[float, Estimate] | None) -> str:
    line = t(language, "learner.progress_line", topic=topic, **_values(language, level(estimate)))
    if then is None:
        return line
    week, earlier = then
    change = _number(language, f"{estimate.value - earlier.value:+.1f}")
    day = datetime.fromtimestamp(week, tz=timezone.utc).strftime("%Y-%m-%d")
    return f"{line}; " + t(language, "learner.progress_since", change=change, date=day)


def ability_blocks(abilities: Mapping[str, Estimate], language: str, label: Label,
                   earlier: Mapping[str, tuple[float, Estimate]] | None = None) -> list[Block]:
    """/progress: ability per topic as it stands now, one line each, with how far it moved since the
    earliest week in `earlier` (week start, belief at that week's end)."""
    if not abilities:
        return []
    earlier = earlier or {}
    lines = [_progress_line(language, label(name), estimate, earlier.get(name))
             for name, estimate in sorted(abilities.items(), key=lambda pair: label(pair[0]).casefold())]
    return [Paragraph(t(language, "learner.progress_title"), "title"),
            Paragraph("\n".join(f"- {line}" for line in lines))]
