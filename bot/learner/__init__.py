"""The learner model: ability per person and topic, item difficulty, the level verdict, item analysis."""
