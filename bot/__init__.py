"""interview-bot's platform-neutral core: bank, store, engine, i18n and neutral messages."""

__version__ = "0.1.0"
