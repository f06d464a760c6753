"""`python -m bot` is the same as the `interview-bot` command."""

from bot.app.cli import main

if __name__ == "__main__":  # not when a spawned child process (the progress chart) imports this module
    raise SystemExit(main())
