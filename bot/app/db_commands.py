"""`interview-bot db upgrade` and `interview-bot db copy`: moving a deployment between stores.

upgrade runs the migrations a store has not seen (workers also do so at start, under a lock; this is
for doing it deliberately, before starting them). copy moves every row of one store into a new, empty
one, SQLite to PostgreSQL or back, and checks the row counts afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from bot.app.config import Settings
from bot.store import Database, StoreError
from bot.store.copy import copy_store
from bot.store.database import parse_target


def add_db_parser(commands: argparse._SubParsersAction) -> None:
    db = commands.add_parser("db", help="upgrade the store, or copy it to another (SQLite <-> PostgreSQL)",
                             description="Store maintenance. A store is a SQLite file, sqlite:///FILE or "
                                         "postgresql://USER@HOST:PORT/DATABASE.")
    actions = db.add_subparsers(dest="action", metavar="ACTION", required=True)
    upgrade = actions.add_parser("upgrade", help="apply the migrations the store has not seen",
                                 description="Bring the store (--db or INTERVIEW_BOT_DB) to the latest schema.")
    upgrade.set_defaults(handler=_upgrade)
    copy = actions.add_parser("copy", help="copy every row into a new, empty store",
                              description="Copy every row of one store into another that is empty (created if "
                                          "it is a new SQLite file), then compare the row counts of every table.")
    copy.add_argument("--from", dest="source", required=True, metavar="PATH_OR_URL")
    copy.add_argument("--to", dest="target", required=True, metavar="PATH_OR_URL")
    copy.set_defaults(handler=_copy)


def _upgrade(args: argparse.Namespace, settings: Settings) -> int:
    return asyncio.run(_upgrade_store(settings.db_path))


async def _upgrade_store(target: object) -> int:
    async with await Database.open(str(target), migrate_to=0) as before:
        version = await before.schema_version()
    async with await Database.open(str(target)) as db:
        now = await db.schema_version()
        print(f"{db.path}: schema version {version} -> {now}" if now != version
              else f"{db.path}: already at schema version {now}")
    return 0


def _identity(text: str) -> tuple[str, str]:
    """What a store name points at, so that two spellings of one file are seen as one."""
    target = parse_target(text)
    if target.dialect == "sqlite":
        return target.dialect, str(Path(target.location).expanduser().resolve())
    return target.dialect, target.location


def _copy(args: argparse.Namespace, settings: Settings) -> int:
    return asyncio.run(_copy_stores(args.source, args.target))


async def _copy_stores(source_text: str, target_text: str) -> int:
    if _identity(source_text) == _identity(target_text):
        raise StoreError("--from and --to name the same store")
    source_at = parse_target(source_text)
    if source_at.dialect == "sqlite" and not Path(source_at.location).expanduser().is_file():
        raise StoreError(f"{source_at.location}: no such store file to copy from")
    async with await Database.open(source_text) as source, await Database.open(target_text) as target:
        copied = await copy_store(source, target)
        for table, count in copied.tables:
            print(f"{table:<18} {count:>9} rows")
        print(f"copied {copied.rows} rows from {source.path} to {target.path}; every table's count matches")
    return 0
