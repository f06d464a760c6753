"""The Telegram adapter, on python-telegram-bot's Application."""
