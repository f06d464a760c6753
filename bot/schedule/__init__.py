"""Time: the injected clock, local-time arithmetic, the one timer and even pacing."""
