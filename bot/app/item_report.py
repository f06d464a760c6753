"""`interview-bot questions report`: item analysis for authors, read from the database (bot/learner/analysis)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from bot.app.config import Settings
from bot.bank import BankError, load_bank
from bot.learner.analysis import ItemStats, analyse
from bot.store import learner as beliefs
from bot.store.database import Database
from bot.store.item_steps import fold_pending

DEFAULT_MIN_ANSWERS = 10


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text[:20]!r}") from None
    if not 1 <= value <= 10_000_000:
        raise argparse.ArgumentTypeError(f"must be from 1 to 10000000, not {value}")
    return value


def add_report_parser(actions: argparse._SubParsersAction) -> None:
    report = actions.add_parser(
        "report", help="item analysis from the answers in the database (flags likely wrong keys)",
        description="Per question: answers, share right, discrimination (point-biserial with the rest score), "
                    "each option's share, and flags: wrong_key, dead_distractor, off_label. Flagged "
                    "questions first.")
    report.add_argument("--json", action="store_true", help="print JSON")
    report.add_argument("--min-answers", type=_count, default=DEFAULT_MIN_ANSWERS, metavar="N",
                        help=f"only questions with at least N answers (default {DEFAULT_MIN_ANSWERS})")
    report.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace, settings: Settings) -> int:
    if not settings.db_path.is_file():
        print(f"interview-bot: no database at {settings.db_path} (nothing answered yet, or --db is wrong)",
              file=sys.stderr)
        return 1
    try:
        bank = load_bank([settings.questions_path] if settings.questions_path else None)
    except BankError as error:
        print(f"interview-bot: the question bank has problems:\n{error}", file=sys.stderr)
        return 1
    items = asyncio.run(_analyse(settings, bank.questions, args.min_answers))
    print(json.dumps(report_json(items), indent=2, ensure_ascii=False) if args.json else format_report(items))
    return 0


async def _analyse(settings: Settings, questions: dict, min_answers: int) -> list[ItemStats]:
    db = await Database.open(settings.db_path)
    try:
        rows = await beliefs.answer_rows(db)
        await fold_pending(db)  # steps logged by answers on PostgreSQL and not yet folded count too
        calibrated = await beliefs.item_difficulties(db)
    finally:
        await db.close()
    return analyse(rows, questions, calibrated, min_answers)


def report_json(items: list[ItemStats]) -> dict[str, Any]:
    return {"questions": [
        {"id": item.id, "label": item.label, "answers": item.answers, "p_correct": item.p_correct,
         "discrimination": item.discrimination, "difficulty": item.difficulty,
         "options": [{"letter": o.letter, "share": o.share, "key": o.key} for o in item.options],
         "flags": list(item.flags)}
        for item in _ordered(items)]}


def _ordered(items: list[ItemStats]) -> list[ItemStats]:
    return sorted(items, key=lambda item: (not item.flags, item.id))


def format_report(items: list[ItemStats]) -> str:
    if not items:
        return "no question has enough answers yet (see --min-answers)"
    lines = [f"{'question':<14} {'label':>5} {'answers':>7} {'right':>6} {'discr':>6}  options in file order (key*)  flags"]
    for item in _ordered(items):
        discrimination = "-" if item.discrimination is None else f"{item.discrimination:+.2f}"
        options = " ".join(f"{o.letter}{'*' if o.key else ''}:{round(100 * o.share)}%" for o in item.options)
        lines.append(f"{item.id:<14} {item.label:>5} {item.answers:>7} {item.p_correct:>6.0%} {discrimination:>6}  "
                     f"{options}  {', '.join(item.flags)}")
    flagged = sum(1 for item in items if item.flags)
    lines.append(f"{len(items)} question(s) analysed, {flagged} flagged")
    return "\n".join(lines)
