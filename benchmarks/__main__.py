"""`make bench`: run every ``benchmarks/bench_*.py`` module's ``run()`` in one process run.

Each module prints its own table; ratios are compared inside one run because the
machines are noisy. Figures go in the README's Benchmarks section.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import benchmarks
from infra.paths import use_supported_node


def main(selected: list[str]) -> int:
    use_supported_node()
    names = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    if selected:
        names = [n for n in names if any(s in n for s in selected)]
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}")
        started = time.perf_counter()
        print(f"\n== {name} ==", flush=True)
        module.run()
        print(f"({time.perf_counter() - started:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
