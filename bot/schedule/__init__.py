"""Time: the injected clock, local-time arithmetic, the timers on the one scheduler, and pacing."""
