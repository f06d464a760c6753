"""A person's progress, history and chart."""
