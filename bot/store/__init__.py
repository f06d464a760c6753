"""The store (a SQLite file, or a PostgreSQL database): the only place state lives, so a restart loses nothing."""

from bot.store.database import Database, StoreError, StoreGone

__all__ = ["Database", "StoreError", "StoreGone"]
