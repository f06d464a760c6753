"""Asking a question: the delivery (which question, in which option order) and how it is shown."""
