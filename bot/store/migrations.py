"""The schema as numbered migrations; PRAGMA user_version (SQLite) or the schema_version table
(PostgreSQL) says how many have been applied.

Append a migration, never edit one that has shipped: an older database is upgraded in place by
running the ones it has not seen. A migration is written once, in SQLite's words; PostgreSQL runs it
through bot.store.postgres_backend.ddl (64-bit identity ids, DOUBLE PRECISION). One that must differ
is a dict: {"sqlite": "...", "postgresql": "..."}.
"""

from __future__ import annotations

import sqlite3

import aiosqlite

# Migration 7's text, which SQLite runs as written (see MIGRATIONS[6]).
_V7 = """
    CREATE TABLE board_totals (
        chat_id INTEGER NOT NULL REFERENCES chats (id),
        user_id INTEGER NOT NULL REFERENCES users (id),
        points INTEGER NOT NULL DEFAULT 0,
        answered INTEGER NOT NULL DEFAULT 0,
        correct INTEGER NOT NULL DEFAULT 0,
        time_ms INTEGER NOT NULL DEFAULT 0,
        streak INTEGER NOT NULL DEFAULT 0,
        best_streak INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (chat_id, user_id)
    );
    CREATE INDEX board_totals_by_user ON board_totals (user_id);
    CREATE TABLE board_folds (
        chat_id INTEGER PRIMARY KEY REFERENCES chats (id),
        post_id INTEGER NOT NULL
    );
    CREATE TABLE group_weeks (
        week_start REAL NOT NULL,
        chat_id INTEGER NOT NULL REFERENCES chats (id),
        active INTEGER NOT NULL,
        points INTEGER NOT NULL,
        PRIMARY KEY (week_start, chat_id)
    );
    INSERT INTO group_weeks (week_start, chat_id, active, points)
        SELECT CAST((q.asked_at + 259200) / 604800 AS INTEGER) * 604800 - 259200 AS week, q.chat_id,
               count(DISTINCT a.user_id), sum(a.points)
        FROM asked_questions q JOIN answers a ON a.asked_id = q.id
        WHERE q.interview_id IS NULL
        GROUP BY week, q.chat_id;
    """

MIGRATIONS: tuple[str | dict[str, str], ...] = (
    # 1: people, interviews, asked questions and answers.
    """
    CREATE TABLE users (
        id INTEGER PRIMARY KEY,
        platform TEXT NOT NULL,
        platform_user_id TEXT NOT NULL,
        name TEXT NOT NULL DEFAULT '',
        language TEXT CHECK (language IN ('tr', 'en')),
        locale TEXT,
        created_at REAL NOT NULL,
        UNIQUE (platform, platform_user_id)
    );
    CREATE TABLE chats (
        id INTEGER PRIMARY KEY,
        platform TEXT NOT NULL,
        platform_chat_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('private', 'group', 'channel')),
        title TEXT NOT NULL DEFAULT '',
        language TEXT CHECK (language IN ('tr', 'en')),
        settings TEXT NOT NULL DEFAULT '{}',
        created_at REAL NOT NULL,
        UNIQUE (platform, platform_chat_id)
    );
    CREATE TABLE interviews (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users (id),
        chat_id INTEGER NOT NULL REFERENCES chats (id),
        status TEXT NOT NULL CHECK (status IN ('active', 'finished', 'stopped')),
        filters TEXT NOT NULL,
        plan TEXT NOT NULL,
        language TEXT NOT NULL,
        started_at REAL NOT NULL,
        finished_at REAL
    );
    CREATE UNIQUE INDEX one_active_interview_per_user ON interviews (user_id) WHERE status = 'active';
    CREATE TABLE asked_questions (
        id INTEGER PRIMARY KEY,
        question_id TEXT NOT NULL,
        chat_id INTEGER NOT NULL REFERENCES chats (id),
        interview_id INTEGER REFERENCES interviews (id),
        position INTEGER NOT NULL DEFAULT 0,
        option_order TEXT NOT NULL,
        asked_at REAL NOT NULL,
        deadline REAL,
        closed_at REAL,
        UNIQUE (interview_id, position)
    );
    CREATE TABLE answers (
        id INTEGER PRIMARY KEY,
        asked_id INTEGER NOT NULL REFERENCES asked_questions (id),
        user_id INTEGER NOT NULL REFERENCES users (id),
        option_index INTEGER,
        correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
        latency_ms INTEGER,
        answered_at REAL NOT NULL,
        UNIQUE (asked_id, user_id)
    );
    """,
    # 2: where each question was posted (so it can be edited later), and the indexes history needs.
    """
    ALTER TABLE asked_questions ADD COLUMN message_ref TEXT;
    CREATE INDEX answers_by_user ON answers (user_id, answered_at);
    CREATE INDEX asked_by_chat ON asked_questions (chat_id, asked_at);
    CREATE INDEX interviews_by_user ON interviews (user_id, started_at);
    """,
    # 3: daily questions (subscriptions, one scheduled post per chat per local day), points, review cards.
    """
    CREATE TABLE subscriptions (
        chat_id INTEGER PRIMARY KEY REFERENCES chats (id),
        post_time TEXT NOT NULL,
        timezone TEXT NOT NULL,
        weekdays TEXT,
        topic TEXT,
        difficulty INTEGER CHECK (difficulty BETWEEN 1 AND 3),
        reveal_after_s INTEGER NOT NULL DEFAULT 43200,
        active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE TABLE daily_posts (
        id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL REFERENCES chats (id),
        asked_id INTEGER NOT NULL UNIQUE REFERENCES asked_questions (id),
        kind TEXT NOT NULL CHECK (kind IN ('scheduled', 'manual')),
        local_date TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'unknown', 'failed', 'revealed')),
        reveal_at REAL NOT NULL,
        created_at REAL NOT NULL,
        sent_at REAL,
        revealed_at REAL,
        error TEXT
    );
    CREATE UNIQUE INDEX one_scheduled_post_per_chat_and_local_day
        ON daily_posts (chat_id, local_date) WHERE kind = 'scheduled';
    CREATE INDEX daily_posts_to_reveal ON daily_posts (state, reveal_at);
    ALTER TABLE answers ADD COLUMN points INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE interviews ADD COLUMN kind TEXT NOT NULL DEFAULT 'interview' CHECK (kind IN ('interview', 'review'));
    CREATE TABLE review_cards (
        user_id INTEGER NOT NULL REFERENCES users (id),
        question_id TEXT NOT NULL,
        repetitions INTEGER NOT NULL DEFAULT 0,
        interval_days REAL NOT NULL DEFAULT 0,
        ease REAL NOT NULL DEFAULT 2.5,
        due_at REAL NOT NULL,
        lapses INTEGER NOT NULL DEFAULT 0,
        last_reviewed_at REAL,
        PRIMARY KEY (user_id, question_id)
    );
    CREATE INDEX review_cards_due ON review_cards (user_id, due_at);
    """,
    # 4: a chat's platform locale (a server's or group's), so posts there speak its language.
    """
    ALTER TABLE chats ADD COLUMN locale TEXT;
    """,
    # 5: boards read one chat's posts and daily questions; without these every board scans every chat.
    """
    CREATE INDEX daily_posts_by_chat ON daily_posts (chat_id, id);
    CREATE INDEX asked_daily_by_chat ON asked_questions (interview_id, chat_id, asked_at);
    """,
    # 6: one timer instead of a job per subscription: each subscription keeps its next post instant, and
    # the timer asks for the earliest of next posts, reveals and interview deadlines.
    """
    ALTER TABLE subscriptions ADD COLUMN next_post_at REAL;
    CREATE INDEX subscriptions_due ON subscriptions (next_post_at) WHERE active = 1;
    CREATE INDEX asked_open_deadlines ON asked_questions (deadline) WHERE closed_at IS NULL AND deadline IS NOT NULL;
    ALTER TABLE chats DROP COLUMN settings;
    """,
    # 7: boards must not read a chat's whole history. Each reveal folds the chat's revealed posts, in order,
    # into running totals and streaks per member (board_totals, up to board_folds.post_id); each group's
    # week is kept as one row (group_weeks, UTC Monday weeks) for the groups board. The weeks are filled
    # from the history here; member totals fill at each chat's next reveal.
    # (PostgreSQL's CAST to an integer rounds where SQLite's truncates: its copy floors the week instead.)
    {"sqlite": _V7, "postgresql": _V7.replace("CAST((q.asked_at + 259200) / 604800 AS INTEGER)",
                                                "floor((q.asked_at + 259200) / 604800)")},
    # 8: the learner model (ability per person and topic or specialty, as it stood at the end of each UTC
    # week, recalibrated item difficulty), and review cards on FSRS (stability, difficulty, state; SM-2
    # cards, with these NULL, convert when read).
    """
    CREATE TABLE abilities (
        user_id INTEGER NOT NULL REFERENCES users (id),
        scope TEXT NOT NULL CHECK (scope IN ('topic', 'specialty')),
        name TEXT NOT NULL,
        ability REAL NOT NULL,
        variance REAL NOT NULL,
        answers INTEGER NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (user_id, scope, name)
    );
    CREATE TABLE ability_weeks (
        user_id INTEGER NOT NULL REFERENCES users (id),
        topic TEXT NOT NULL,
        week_start REAL NOT NULL,
        ability REAL NOT NULL,
        variance REAL NOT NULL,
        PRIMARY KEY (user_id, topic, week_start)
    );
    CREATE TABLE item_difficulties (
        question_id TEXT PRIMARY KEY,
        difficulty REAL NOT NULL,
        variance REAL NOT NULL,
        answers INTEGER NOT NULL,
        updated_at REAL NOT NULL
    );
    ALTER TABLE review_cards ADD COLUMN stability REAL;
    ALTER TABLE review_cards ADD COLUMN card_difficulty REAL;
    ALTER TABLE review_cards ADD COLUMN state INTEGER;
    """,
    # 9: daily questions as native quiz polls: a chat's choice, and which asked question each poll the bot
    # posted carries (a poll answer names only the poll).
    """
    ALTER TABLE subscriptions ADD COLUMN as_poll INTEGER NOT NULL DEFAULT 0 CHECK (as_poll IN (0, 1));
    CREATE TABLE daily_polls (
        platform TEXT NOT NULL,
        poll_id TEXT NOT NULL,
        asked_id INTEGER NOT NULL UNIQUE REFERENCES asked_questions (id),
        PRIMARY KEY (platform, poll_id)
    );
    """,
    # 10: a subscription paused because the platform refuses the bot in that chat (a Discord channel whose
    # Send Messages/View Channel permission it lost): still scheduled, resumed by the next post that gets
    # through; the reason ('forbidden') and when, for /settings to tell an admin.
    """
    ALTER TABLE subscriptions ADD COLUMN paused_at REAL;
    ALTER TABLE subscriptions ADD COLUMN paused_reason TEXT;
    """,
    # 11: votes and reveals exactly once. A poll vote that arrives before its poll's id is stored (or for a
    # poll whose send outcome was unknown) waits here until the poll is linked, then counts; a poll's reveal
    # (a new message, not an idempotent edit) is recorded before it is sent, so a crash never sends it twice.
    """
    CREATE TABLE poll_votes_waiting (
        platform TEXT NOT NULL,
        poll_id TEXT NOT NULL,
        platform_user_id TEXT NOT NULL,
        user_name TEXT NOT NULL,
        language_code TEXT,
        option_ids TEXT NOT NULL,
        arrived_at REAL NOT NULL,
        PRIMARY KEY (platform, poll_id, platform_user_id)
    );
    ALTER TABLE daily_posts ADD COLUMN reveal_started_at REAL;
    """,
    # 12: live quiz rounds in a group: the round (its plan, where it stands, when its clock acts next) and
    # the questions it asked; answers are ordinary answers to those asked questions. One running round per
    # chat, by a partial unique index.
    """
    CREATE TABLE quiz_rounds (
        id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL REFERENCES chats (id),
        starter_id INTEGER REFERENCES users (id),
        topic TEXT,
        difficulty INTEGER,
        total INTEGER NOT NULL,
        seconds INTEGER NOT NULL,
        question_ids TEXT NOT NULL,
        asked INTEGER NOT NULL DEFAULT 0,
        state TEXT NOT NULL CHECK (state IN ('running', 'ended')),
        phase TEXT NOT NULL CHECK (phase IN ('between', 'asking')),
        due_at REAL NOT NULL,
        silent INTEGER NOT NULL DEFAULT 0,
        end_reason TEXT,
        created_at REAL NOT NULL,
        ended_at REAL
    );
    CREATE UNIQUE INDEX quiz_one_running_round_per_chat ON quiz_rounds (chat_id) WHERE state = 'running';
    CREATE INDEX quiz_rounds_due ON quiz_rounds (state, due_at);
    CREATE TABLE quiz_questions (
        asked_id INTEGER PRIMARY KEY REFERENCES asked_questions (id),
        round_id INTEGER NOT NULL REFERENCES quiz_rounds (id),
        number INTEGER NOT NULL,
        sent_at REAL,
        closes_at REAL,
        UNIQUE (round_id, number)
    );
    """,
    # 13: one live interview per person and store: the process (a terminal) that holds an interview,
    # so that a second one is refused, or takes it over, instead of answering or reporting it too.
    """
    ALTER TABLE interviews ADD COLUMN holder TEXT;
    """,
    # 14: group decks (issue 29): a chat's own questions, one JSON text per deck, versioned for every worker's
    # cache; when a chat removed the bot (its decks are deleted 30 days later).
    """
    CREATE TABLE decks (
        id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL REFERENCES chats (id),
        name TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 1,
        questions TEXT NOT NULL,
        question_count INTEGER NOT NULL,
        added_by INTEGER REFERENCES users (id),
        added_by_name TEXT NOT NULL DEFAULT '',
        added_at REAL NOT NULL,
        UNIQUE (chat_id, name)
    );
    CREATE INDEX decks_by_uploader ON decks (added_by);
    ALTER TABLE chats ADD COLUMN left_at REAL;
    """,
    # 15: a deck removed or replaced while one of its questions is live (an open daily post, a quiz question,
    # an interview's question) keeps what that question needs: removed_at marks a removed deck (hidden, deleted
    # once nothing live refers to it), retired holds the questions a replace dropped that were still live.
    """
    ALTER TABLE decks ADD COLUMN removed_at REAL;
    ALTER TABLE decks ADD COLUMN retired TEXT;
    """,
    # 16: the minute's deck sweep reads only the decks waiting for it (removed, or keeping retired questions),
    # not the whole table: a partial index holds just those rows.
    """
    CREATE INDEX decks_awaiting_sweep ON decks (id) WHERE removed_at IS NOT NULL OR retired IS NOT NULL;
    """,
    # 17: on PostgreSQL a daily answer's step of its item's difficulty is logged here (what the step needs of
    # the person) and folded into item_difficulties afterwards (bot/store/item_steps.py), so that workers
    # answering one question no longer take turns on its row inside their answer transactions.
    """
    CREATE TABLE item_steps (
        id INTEGER PRIMARY KEY,
        question_id TEXT NOT NULL,
        label INTEGER NOT NULL,
        ability REAL NOT NULL,
        ability_variance REAL NOT NULL,
        correct INTEGER NOT NULL,
        answered_at REAL NOT NULL
    );
    CREATE INDEX item_steps_by_question ON item_steps (question_id, id);
    """,
    # 18: a daily answer batch on PostgreSQL reads ahead of its key locks and checks under them that it read what
    # still holds (bot/store/answer_batch.py): a digest of the questions' open state (share-locked when asked)
    # and of the row versions of the people's cards and beliefs, planned on every call (a cached plan got slower
    # as tables grew); and a function failing the transaction with its own SQLSTATE. SQLite needs neither.
    {"sqlite": "",
     "postgresql": """
    CREATE OR REPLACE FUNCTION interview_bot_expect(holds boolean) RETURNS void LANGUAGE plpgsql AS $$ BEGIN IF holds IS NOT TRUE THEN RAISE EXCEPTION 'read ahead of the locks and changed since' USING ERRCODE = 'IB001'; END IF; END $$;
    CREATE OR REPLACE FUNCTION interview_bot_answer_digest(people bigint[], asked bigint[], questions text[], share boolean) RETURNS text LANGUAGE plpgsql SET plan_cache_mode = force_custom_plan AS $$ DECLARE state text; BEGIN IF share THEN SELECT string_agg(s.id || '.' || s.open, ',' ORDER BY s.id) INTO state FROM (SELECT q.id, q.closed_at IS NULL AS open FROM asked_questions q WHERE q.id = ANY(asked) ORDER BY q.id FOR SHARE) AS s; ELSE SELECT string_agg(q.id || '.' || (q.closed_at IS NULL), ',' ORDER BY q.id) INTO state FROM asked_questions q WHERE q.id = ANY(asked); END IF; RETURN concat_ws(':', state, (SELECT count(*) || '.' || coalesce(sum(c.xmin::text::bigint), 0) FROM review_cards c WHERE c.user_id = ANY(people) AND c.question_id = ANY(questions)), (SELECT count(*) || '.' || coalesce(sum(b.xmin::text::bigint), 0) FROM abilities b WHERE b.user_id = ANY(people))); END $$;
    """},
)

LATEST = len(MIGRATIONS)


class SchemaTooNew(sqlite3.DatabaseError):
    """The file was written by a newer interview-bot; refusing to touch it loses nothing."""


def script(number: int, dialect: str) -> str:
    """Migration `number` (from 1) as the given dialect ('sqlite' or 'postgresql') runs it."""
    migration = MIGRATIONS[number - 1]
    return migration if isinstance(migration, str) else migration[dialect]


def statements(script: str) -> list[str]:
    """A migration script as separate statements (executescript would commit the transaction first)."""
    found, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            found.append(current.strip())
            current = ""
    if current.strip():
        found.append(current.strip())
    return found


async def _version(db: aiosqlite.Connection) -> int:
    async with db.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def migrate(db: aiosqlite.Connection, target: int = LATEST) -> int:
    """Apply the migrations the database has not seen, up to `target`; returns the version before.

    All of them run in one exclusive (IMMEDIATE) transaction, and the version is read again inside it:
    two processes starting on one fresh file take turns, and the second finds nothing left to do."""
    version = await _version(db)
    if version > LATEST:
        raise SchemaTooNew(f"database schema version {version} is newer than this program's ({LATEST})")
    if version >= target:
        return version
    await db.execute("BEGIN IMMEDIATE")
    try:
        version = await _version(db)
        for number in range(version + 1, target + 1):
            for statement in statements(script(number, "sqlite")):
                await db.execute(statement)
        if target > version:
            await db.execute(f"PRAGMA user_version = {int(target)}")
        await db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            await db.rollback()
        raise
    return version
