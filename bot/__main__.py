"""`python -m bot` is the same as the `interview-bot` command."""

from bot.cli import main

raise SystemExit(main())
