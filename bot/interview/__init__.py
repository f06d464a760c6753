"""Mock interviews: the state machine, question selection, the report and their views."""
