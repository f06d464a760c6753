"""Points, streaks and boards inside a chat and across groups."""
