"""What the store modules and the rest of the bot import: the interface (bot.store.backend) and the way
to open a store (bot.store.opening), in one place.

Everything reaches the engine through `Database` and `Transaction`; the two implementations live in
bot.store.sqlite_backend and bot.store.postgres_backend, and only bot.store.opening names them.
"""

from __future__ import annotations

from bot.store.backend import (Database, IntegrityViolation, Result, StaleRead, StoreError, StoreGone, Transaction,
                               UniqueViolation, placeholders)
from bot.store.opening import Target, open_store, parse_target

__all__ = ["Database", "IntegrityViolation", "Result", "StaleRead", "StoreError", "StoreGone", "Target", "Transaction",
           "UniqueViolation", "open_store", "parse_target", "placeholders"]
