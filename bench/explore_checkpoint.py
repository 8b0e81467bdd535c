"""What saving the search state costs: `Explorer(...).explore()` with and without `--state`.

    python bench/explore_checkpoint.py [--repeat 3] [--apps] [--max-runs N]

Per program of bench/explore (and bench/explore/apps with `--apps`): the median wall time of
the search without a state directory and with one (runs interleaved, same seed and options),
their ratio, how many checkpoints were written and the time spent writing them, the size of
the state file, and the time `Explorer.resume` takes to load the final state of a search
stopped half-way (rebuilding expressions and asking Z3 its past queries again). Then the
totals. Both searches must give the same report (checked).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import ingot
from ingot.concolic.checkpoint import STATE_FILE, StateDir
from ingot.concolic.explore import Exploration, Explorer, Options
from ingot.concolic.report import as_json

HERE = Path(__file__).resolve().parent / "explore"


def timed(program: ingot.Program, function: str, options: Options, state: StateDir | None) -> tuple[float, dict]:
    start = time.perf_counter()
    result = Explorer(program.view, function, options, state=state).explore()
    return time.perf_counter() - start, as_json(program.view, result)


def resume_time(program: ingot.Program, function: str, options: Options, sources: dict[str, str],
                runs: int) -> float:
    """Stop a search after about half its runs, then time loading that state."""
    with tempfile.TemporaryDirectory() as d:
        state = StateDir(d, sources)
        state.create()
        explorer: Explorer

        def stop(ex: Exploration) -> None:
            if ex.runs >= runs // 2:
                explorer.request_stop()

        explorer = Explorer(program.view, function, options, progress=stop, state=state)
        explorer.explore()
        start = time.perf_counter()
        Explorer.resume(program.view, function, options, StateDir(d, sources))
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--apps", action="store_true", help="also the programs of bench/explore/apps")
    parser.add_argument("--max-runs", type=int, default=10000)
    args = parser.parse_args()
    paths = sorted(HERE.glob("*.baml")) + (sorted((HERE / "apps").glob("*.baml")) if args.apps else [])
    options = Options(seed=0, max_runs=args.max_runs)
    totals = {"plain": 0.0, "state": 0.0, "writes": 0.0}
    print(f"{'program':18} {'plain s':>8} {'state s':>8} {'ratio':>6} {'saves':>5} {'write ms':>8} "
          f"{'size KB':>7} {'resume ms':>9}")
    for path in paths:
        function = json.loads(path.with_suffix(".json").read_text())["function"]
        program = ingot.load(path)
        sources = {str(f): f.read_text() for f in program.files}
        timed(program, function, options, None)  # warm: the instrumented translation is cached
        plain, stated, saves, writes = [], [], [], []
        size = 0
        for _ in range(args.repeat):
            t, expected = timed(program, function, options, None)
            plain.append(t)
            with tempfile.TemporaryDirectory() as d:
                state = StateDir(d, sources)
                state.create()
                t, report = timed(program, function, options, state)
                size = (Path(d) / STATE_FILE).stat().st_size
            assert report == expected, f"{path.name}: the report changed with a state directory"
            stated.append(t)
            saves.append(state.saves)
            writes.append(state.save_s)
        p, s, w = statistics.median(plain), statistics.median(stated), statistics.median(writes)
        loading = resume_time(program, function, options, sources, expected["runs"])
        totals["plain"] += p
        totals["state"] += s
        totals["writes"] += w
        print(f"{path.stem:18} {p:8.2f} {s:8.2f} {s / p:6.3f} {statistics.median(saves):5.0f} {w * 1000:8.1f} "
              f"{size / 1024:7.1f} {loading * 1000:9.0f}", flush=True)
    print(f"total: {totals['plain']:.2f}s without a state, {totals['state']:.2f}s with one "
          f"(ratio {totals['state'] / totals['plain']:.3f}); writing checkpoints {totals['writes']:.2f}s "
          f"({100 * totals['writes'] / totals['state']:.1f}% of the time with a state)")


if __name__ == "__main__":
    main()
