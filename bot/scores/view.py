"""Leaderboards as neutral messages: a table of the top members, and the caller's own rank."""

from __future__ import annotations

from bot.text.i18n import t
from bot.text.units import counted, decimal
from bot.text.names import clean_name, short_name
from bot.text.messages import Block, Message, Paragraph, Table
from bot.scores.boards import Board, BoardRow, GroupRow, MIN_ACTIVE_MEMBERS


def _cells(row: BoardRow) -> tuple[str, ...]:
    return (str(row.rank), short_name(clean_name(row.name)) or "?", str(row.points), f"{row.accuracy:.0%}", f"{row.streak} ({row.best_streak})")


def board_message(board: Board, language: str, caller_id: int | None = None) -> Message:
    blocks: list[Block] = [Paragraph(t(language, f"board.title_{board.period}"), "title")]
    if not board.rows:
        blocks.append(Paragraph(t(language, "board.empty")))
        return Message(tuple(blocks))
    header = tuple(t(language, "board.columns").split("|"))
    rows = [_cells(row) for row in board.rows]
    if board.me is not None:
        rows.append(("…", "", "", "", ""))
        rows.append(_cells(board.me))
    blocks.append(Table(header, tuple(rows)))
    mine = board.me or next((row for row in board.rows if row.user_id == caller_id), None)
    if mine is not None:
        blocks.append(Paragraph(counted(language, "board.you", mine.points, rank=mine.rank, points=mine.points)))
    return Message(tuple(blocks))


def groups_message(rows: tuple[GroupRow, ...], language: str, minimum: int = MIN_ACTIVE_MEMBERS) -> Message:
    blocks: list[Block] = [Paragraph(t(language, "board.groups_title"), "title")]
    if rows:
        header = tuple(t(language, "board.groups_columns").split("|"))
        blocks.append(Table(header, tuple((str(r.rank), r.title or str(r.chat_id), decimal(language, r.mean_points),
                                           str(r.active)) for r in rows)))
    else:
        blocks.append(Paragraph(t(language, "board.groups_empty", minimum=minimum)))
    blocks.append(Paragraph(t(language, "board.groups_rule", minimum=minimum), "muted"))
    return Message(tuple(blocks))
