"""`python -m benchmarks`: see benchmarks.harness."""

from benchmarks.harness import main

raise SystemExit(main())
