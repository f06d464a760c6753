"""Live quiz rounds: a group plays together, in its chat, against the clock (issue 24)."""
