"""What the default limits cost: `Program.run` with the defaults against a run with none.

    python bench/limits_overhead.py [--repeat 7] [--tier compiled|interp]

With limits, both tiers count a step at every backward jump and call and look at the clock,
the stop request and the memory guard every 1,024 steps; growing operations check sizes.
Without any limit (every option None) the compiled tier generates no step code at all. Per
program of `engines_compiled.py`: the median time of each (the two interleaved, so load on a
shared machine hits both alike) and the ratio; then the median ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from engines_compiled import CASES

import ingot

NO_LIMITS: dict[str, Any] = {"max_steps": None, "timeout": None, "max_memory": None, "max_string_length": None,
                             "max_array_length": None, "max_map_length": None}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--tier", default="compiled", choices=["compiled", "interp"])
    opts = parser.parse_args()
    print(f"{'program':<16}{'limits':>11}{'none':>11}{'ratio':>8}  (tier {opts.tier}, repeat {opts.repeat})")
    ratios = []
    for name, source, function, args, _ in CASES:
        program = ingot.load_source(source)
        bounded = program.options(tier=opts.tier)
        free = program.options(tier=opts.tier, **NO_LIMITS)
        assert bounded.run(function, args) == free.run(function, args)  # warm: translated once per mode
        with_limits, without = [], []
        for _ in range(opts.repeat):
            for calls, times in ((bounded, with_limits), (free, without)):
                start = time.perf_counter()
                calls.run(function, args)
                times.append(time.perf_counter() - start)
        t_lim, t_none = statistics.median(with_limits), statistics.median(without)
        ratios.append(t_lim / t_none)
        print(f"{name:<16}{t_lim * 1000:>9.1f}ms{t_none * 1000:>9.1f}ms{t_lim / t_none:>7.2f}x")
    print(f"median limits/none: {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
