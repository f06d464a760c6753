"""What every adapter does the same way: deliver a question and tell the core where it went, and
debounce the answer counter under a group's daily question."""
