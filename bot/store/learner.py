"""The learner model in the store: abilities per (person, topic) and (person, specialty), item difficulties.

`record_answers` runs inside the caller's answer transaction (an interview's, a review's, a batch of
daily answers), so an answer and the beliefs it moves are committed together or not at all. The
readers give beliefs as they stand now: a belief left alone widens with time (ability.widen). Each
topic's belief is also kept as it stood at the end of each UTC week (ability_weeks), for /progress to
say how it moved.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from bot.learner.ability import PRIOR, Estimate, answer_steps, widened_variance
from bot.learner.analysis import AnswerRow
from bot.learner.items import Item, starting_difficulty
from bot.store.database import Database, Transaction, placeholders
from bot.store.scores import utc_week_start

DAY_S = 86_400.0
TOPIC, SPECIALTY = "topic", "specialty"


class LearnerAnswer(NamedTuple):
    """One first-sight answer (an interview's or a daily question's) as the learner model sees it; reviews
    never come here (bot/interview/engine: a question seen after its explanation measures nothing).
    A named tuple: a burst of daily answers makes one per answer inside its write transaction."""

    user_id: int
    item: Item
    right: bool
    at: float


Key = tuple[int, str, str]  # (user id, scope, name)


class ItemStep(NamedTuple):
    """One answer's step of its item, as logged: the item, its author's label (where a first step starts),
    the answering person's topic belief before the answer, right or wrong, and when."""

    question_id: str
    label: int
    ability: float
    ability_variance: float
    right: bool
    at: float


async def log_steps(connection: Transaction, steps: list[ItemStep]) -> None:
    """Inside the answers' transaction: the steps logged with them (committed together or not at all), in
    one statement (sent with the COMMIT on PostgreSQL, where a statement per step cost the server more)."""
    if not steps:
        return
    await connection.executemany(
        "INSERT INTO item_steps (question_id, label, ability, ability_variance, correct, answered_at) VALUES "
        + ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(steps)),
        [tuple(value for step in steps
               for value in (step.question_id, step.label, step.ability, step.ability_variance, int(step.right),
                             step.at))])


def _belief(row: tuple, now: float) -> Estimate:
    """A stored (ability, variance, answers, updated at) row as the belief stands at `now` (widened)."""
    value, variance, answers, at = row
    return Estimate(float(value), widened_variance(float(variance), (now - float(at)) / DAY_S), int(answers))


def beliefs_query(users: list[int]) -> tuple[str, tuple[Any, ...]]:
    """The read of these people's beliefs (for a caller that joins it to its own reads, after taking the
    people's key locks)."""
    return (f"""SELECT 'person', user_id, scope, name, ability, variance, answers, updated_at FROM abilities
                WHERE user_id IN ({placeholders(users)})""", tuple(users))


def items_query(questions: list[str], connection: Transaction, locked: bool = True) -> tuple[str, tuple[Any, ...]]:
    """The read of these items' difficulties, their rows locked FOR UPDATE (PostgreSQL) by the read itself
    unless `locked` is False, in ascending order: the lock is held from this read to the COMMIT, one round
    trip shorter than a key lock taken before it. A row locked after a wait is read as the other transaction
    committed it. Daily answer batches read unlocked and log their items' steps (bot/store/item_steps.py),
    so that the workers answering a popular question do not wait on its row in turn."""
    locking = connection.dialect.locking("UPDATE") if locked else ""
    return (f"""SELECT 'item', 0, '', question_id, difficulty, variance, answers, updated_at FROM item_difficulties
                WHERE question_id IN ({placeholders(questions)}) ORDER BY question_id{locking}""", tuple(questions))


async def hold_items(connection: Transaction, items: Iterable[Item], now: float) -> None:
    """Before `items_query` (PostgreSQL): each item's row made sure of, at its starting difficulty with no
    answers yet, so the read has a row to lock even for an item nobody answered (held back: it goes with
    the next statement). Its answer's step then writes the row in the same transaction. SQLite: nothing
    to do, its writers take turns."""
    if connection.dialect.row_locks:
        first = {item.question_id: item for item in items}
        await connection.executemany(
            """INSERT INTO item_difficulties (question_id, difficulty, variance, answers, updated_at)
               VALUES (?, ?, ?, 0, ?) ON CONFLICT (question_id) DO NOTHING""",
            [(question_id, *starting_difficulty(item.label)[:2], now) for question_id, item in sorted(first.items())])


async def record_answers(connection: Transaction, answers: list[LearnerAnswer], rows: list[Any] | None = None,
                         log_items: bool = False) -> dict[Key, Estimate]:
    """Inside a caller's transaction: move abilities and item difficulties by these answers, in order.
    A read-modify-write: the people's key locks, then the items' rows (`hold_items`, `items_query`; both
    in ascending order, as every writer takes them) keep two workers' steps from overwriting each other,
    including for a belief whose row does not exist yet. Given `rows`, what `beliefs_query` and
    `items_query` read (after those locks and `hold_items`, by the caller) for at least these answers'
    people and items. With `log_items` (a daily batch on PostgreSQL, its items read unlocked) the items'
    steps are logged for a fold after the COMMIT (bot/store/item_steps.py) instead of written here.

    Returns the person beliefs it wrote, keyed (user id, scope, name)."""
    if not answers:
        return {}
    if rows is None:
        users = sorted({answer.user_id for answer in answers})
        await connection.lock("person", users)  # read, moved, written back: no other worker's step in between
        await hold_items(connection, [answer.item for answer in answers], answers[0].at)
        people_rows, item_rows = await connection.fetch_together(  # one round trip for both reads
            [beliefs_query(users), items_query(sorted({answer.item.question_id for answer in answers}), connection)])
        rows = people_rows + item_rows
    stored: dict[Key, tuple] = {}  # a person's rows as read; widened to now only if an answer moves them
    items: dict[str, Estimate] = {}
    for row in rows:
        if row[0] == "person":
            stored[(row[1], row[2], row[3])] = tuple(row)[4:]
        else:
            items[row[3]] = Estimate(float(row[4]), float(row[5]), int(row[6]))
    now = answers[0].at
    people: dict[Key, Estimate] = {}  # a person's beliefs as they move, each widened once on first use

    def belief(key: Key) -> Estimate:
        row = stored.get(key)
        return PRIOR if row is None else _belief(row, now)

    moved_people: dict[Key, tuple[Estimate, float]] = {}
    moved_items: dict[str, tuple[Estimate, float]] = {}
    steps: list[ItemStep] = []
    for answer in answers:  # every answer of a burst passes here: lookups and records kept to the few needed
        asked, user_id, at = answer.item, answer.user_id, answer.at
        question_id = asked.question_id
        item = items.get(question_id) or starting_difficulty(asked.label)
        topic_key: Key = (user_id, TOPIC, asked.topic)
        specialty_key: Key = (user_id, SPECIALTY, asked.specialty)
        before = people.get(topic_key) or belief(topic_key)
        topic, specialty, item = answer_steps(before, people.get(specialty_key) or belief(specialty_key), item,
                                              answer.right)
        people[topic_key], people[specialty_key], items[question_id] = topic, specialty, item
        moved_people[topic_key], moved_people[specialty_key] = (topic, at), (specialty, at)
        if log_items:  # the item moves here only for this batch's next answers; a fold writes it
            steps.append(ItemStep(question_id, asked.label, before.value, before.variance, answer.right, at))
        else:
            moved_items[question_id] = (item, at)
    await connection.executemany(
        """INSERT INTO abilities (user_id, scope, name, ability, variance, answers, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (user_id, scope, name) DO UPDATE SET ability = excluded.ability,
               variance = excluded.variance, answers = excluded.answers, updated_at = excluded.updated_at""",
        [(*key, *belief, at) for key, (belief, at) in moved_people.items()])  # a belief: value, variance, answers
    await connection.executemany(
        """INSERT INTO ability_weeks (user_id, topic, week_start, ability, variance) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (user_id, topic, week_start) DO UPDATE SET ability = excluded.ability,
               variance = excluded.variance""",
        [(user_id, name, utc_week_start(at), belief.value, belief.variance)
         for (user_id, scope, name), (belief, at) in moved_people.items() if scope == TOPIC])
    if log_items:
        await log_steps(connection, steps)
    else:
        await write_items(connection, moved_items)
    return {key: belief for key, (belief, _) in moved_people.items()}


async def write_items(connection: Transaction, moved: dict[str, tuple[Estimate, float]]) -> None:
    """Items' difficulties as they now stand, each with the instant of its last step."""
    await connection.executemany(
        """INSERT INTO item_difficulties (question_id, difficulty, variance, answers, updated_at)
           VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (question_id) DO UPDATE SET difficulty = excluded.difficulty,
               variance = excluded.variance, answers = excluded.answers, updated_at = excluded.updated_at""",
        [(question_id, *item, at) for question_id, (item, at) in moved.items()])


async def abilities(db: Database | Transaction, user_id: int, now: float, scope: str = TOPIC) -> dict[str, Estimate]:
    """A person's beliefs in one scope (topic or specialty) as they stand at `now`, by name."""
    rows = await db.fetch_all(
        "SELECT name, ability, variance, answers, updated_at FROM abilities WHERE user_id = ? AND scope = ?",
        (user_id, scope))
    return {row[0]: _belief(tuple(row)[1:], now) for row in rows}


async def item_difficulties(db: Database | Transaction,
                            question_ids: Iterable[str] | None = None) -> dict[str, Estimate]:
    """Recalibrated difficulties (only of items answered since the learner model existed), by question id:
    of `question_ids` only when given (an adaptive choice reads its shortlist, inside the answer's
    transaction, not the whole table), else of every item (the authors' report)."""
    if question_ids is None:
        rows = await db.fetch_all("SELECT question_id, difficulty, variance, answers FROM item_difficulties")
    else:
        wanted = sorted(set(question_ids))
        if not wanted:
            return {}
        rows = await db.fetch_all(
            f"""SELECT question_id, difficulty, variance, answers FROM item_difficulties
                WHERE question_id IN ({placeholders(wanted)})""", tuple(wanted))
    return {row[0]: Estimate(float(row[1]), float(row[2]), int(row[3])) for row in rows}


async def answer_rows(db: Database) -> list[AnswerRow]:
    """Every answer given on first sight (interviews and daily questions, not reviews), for item analysis."""
    rows = await db.fetch_all(
        """SELECT q.question_id, a.user_id, a.option_index, a.correct FROM answers a
           JOIN asked_questions q ON q.id = a.asked_id
           LEFT JOIN interviews i ON i.id = q.interview_id
           WHERE i.id IS NULL OR i.kind = 'interview'
           ORDER BY a.id""")
    return [AnswerRow(row[0], int(row[1]), None if row[2] is None else int(row[2]), bool(row[3])) for row in rows]


async def weekly_abilities(db: Database, user_id: int, since: float) -> dict[str, list[tuple[float, Estimate]]]:
    """Each topic's belief at the end of every week (that had answers) from `since` on, oldest first."""
    rows = await db.fetch_all(
        """SELECT topic, week_start, ability, variance FROM ability_weeks
           WHERE user_id = ? AND week_start >= ? ORDER BY topic, week_start""",
        (user_id, utc_week_start(since)))
    weeks: dict[str, list[tuple[float, Estimate]]] = {}
    for row in rows:
        weeks.setdefault(row[0], []).append((float(row[1]), Estimate(float(row[2]), float(row[3]))))
    return weeks
