"""Benchmarks for interview-bot, run as `python -m benchmarks [--quick] [--json FILE] [--only NAME ...]`.

Each benchmark is one module listed in `benchmarks.registry.MODULES`; see docs/benchmarks.md for
how to reproduce the figures and what each goal means.
"""
