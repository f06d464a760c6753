"""Item difficulties on PostgreSQL: each daily answer's step of its item logged, folded into the item later.

Why: every answer to a question moves that question's difficulty, a read-modify-write of one row. Inside
an answer batch's transaction the row was locked from the read to the COMMIT, so the workers answering
one popular question took turns on it, each for a round trip and a commit's flush: with the database a
network away, the one serial point left in a burst of clicks. Now a batch (bot/store/answer_batch.py)
reads the item's difficulty without a lock, makes the people's steps against it as before, and logs
what the item's own step needs: the person's topic belief before the answer, and right or wrong. `fold`
then applies the logged steps in the order they were logged and deletes them, in a transaction of its
own after the batch's callers have their answers, under a per-item lock only folders take (the item's
row is still read FOR UPDATE, so an interview's answer stepping the item in place is never overwritten).

What changes for the model: a person's step uses the item's difficulty as of the last fold (moments old
in a burst, and the batch's own earlier answers still count) rather than after every earlier answer of
every worker; the item's steps are the same Bayesian steps, each from the person's belief when they
answered. Steps a killed worker logged but never folded are folded by the next fold of that item, by
`fold_pending` when a process starts, and before the authors' report reads the difficulties. SQLite has
one writer: its batches step the item in place, as before, and log nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.learner.ability import Estimate, update_item
from bot.learner.items import starting_difficulty
from bot.store.database import Database, Transaction, placeholders
from bot.store.learner import items_query, write_items


async def fold(connection: Transaction, question_ids: Iterable[str]) -> int:
    """Inside a transaction: each item's logged steps applied to its difficulty, oldest first, and deleted;
    how many were folded. The folders' lock comes first, so the read after it sees every step an earlier
    fold deleted; the item's row (made by the batch that logged the step: learner.hold_items) is read FOR
    UPDATE besides, as an interview's in-place step reads it."""
    wanted = sorted(set(question_ids))
    if not wanted:
        return 0
    await connection.lock("item_fold", wanted)
    steps_query = (f"""SELECT id, question_id, label, ability, ability_variance, correct, answered_at FROM item_steps
                       WHERE question_id IN ({placeholders(wanted)}) ORDER BY id""", tuple(wanted))
    rows, steps = await connection.fetch_together([items_query(wanted, connection), steps_query])
    if not steps:
        return 0
    items = {row[3]: Estimate(float(row[4]), float(row[5]), int(row[6])) for row in rows}
    moved: dict[str, tuple[Estimate, float]] = {}
    for _, question_id, label, ability, variance, right, at in steps:
        item = items.get(question_id) or starting_difficulty(int(label))
        items[question_id] = update_item(item, Estimate(float(ability), float(variance)), bool(right))
        moved[question_id] = (items[question_id], float(at))
    await write_items(connection, moved)
    folded = ", ".join(str(int(step[0])) for step in steps)  # ids read just now: integers, written as such
    await connection.executemany(f"DELETE FROM item_steps WHERE id IN ({folded})", [()])  # with the COMMIT
    return len(steps)


async def fold_pending(db: Database) -> int:
    """Every item's logged steps folded (steps a stopped or killed process left); how many."""
    rows = await db.fetch_all("SELECT DISTINCT question_id FROM item_steps")
    if not rows:
        return 0
    return await db.in_one_call(lambda connection: fold(connection, [row[0] for row in rows]))
