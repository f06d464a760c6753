"""The Discord adapter, on discord.py's Client and app commands."""
