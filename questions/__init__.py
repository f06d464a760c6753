"""The shipped question bank: YAML files, one per topic (see README.md here)."""
