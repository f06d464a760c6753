"""Spaced review of missed questions."""
