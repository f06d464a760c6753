"""The question bank: YAML topic files loaded, validated and turned into Question objects."""

from bot.bank.loader import Bank, load_bank
from bot.bank.problems import BankError, Problem

__all__ = ["Bank", "BankError", "Problem", "load_bank"]
