"""Group decks: a chat's own questions, uploaded by its administrators, played only there (issue 29)."""
