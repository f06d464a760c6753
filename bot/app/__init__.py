"""The composition root: command line and settings; it wires adapters to the core."""
