"""An exploration as a JSON report (schema in README) and as a rich summary."""

from __future__ import annotations

from typing import Any

from ingot.concolic.edges import edge_label
from ingot.concolic.explore import Exploration
from ingot.view import ProgramView

SCHEMA_VERSION = 1


def as_json(view: ProgramView, ex: Exploration, timings: bool = False) -> dict[str, Any]:
    """The report. Without `timings` it is a pure function of program, options and seed."""
    keys = sorted((e.site.function, e.site.block, e.target) for e in ex.edges)
    labels = {k: edge_label(view, k) for k in keys}
    uncovered = [labels[k] for k in keys if k not in ex.covered and k not in ex.infeasible]
    report: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "function": ex.function,
        "seed": ex.options.seed,
        "runs": ex.runs,
        "fuzz_runs": ex.fuzz_runs,
        "paths": ex.paths,
        "stopped_by": ex.stopped_by,
        "complete": ex.complete,
        "limits": dict(sorted(ex.limits.items())),
        "coverage": {
            "edges_total": len(keys),
            "edges_covered": sum(1 for k in keys if k in ex.covered),
            "edges_infeasible": sum(1 for k in keys if k in ex.infeasible and k not in ex.covered),
            "uncovered": uncovered,
            "infeasible": [labels[k] for k in keys if k in ex.infeasible and k not in ex.covered],
        },
        "tests": [{"args": t.args, "mocks": t.mocks, "outcome": t.outcome, "new_edges": t.new_edges}
                  for t in ex.tests],
        "findings": [{"kind": f.kind, "message": f.message, "args": f.args, "mocks": f.mocks, "trace": f.trace,
                      "site": f.site} for f in ex.findings],
        "divergences": len(ex.divergences),
        "divergent_inputs": ex.divergences[:5],
        "panic_sites": {"total": ex.panic_sites, "reached": ex.panic_sites_reached, "aimed": ex.panic_sites_aimed,
                        "path_aims": ex.panic_aims, "fixed_aims": ex.fixed_aims, "runs": ex.panic_runs, "budget": ex.panic_budget},
        "string_length": ex.string_length,
        "string_length_start": ex.options.max_string_length,
        "concretizations": ex.concretizations,
        "concretized_at": concretized_at(view, ex.concretized_at),
        "pruned": ex.pruned,
        "solver": {k: v for k, v in ex.solver_stats.items() if k != "time_s"},
    }
    if timings:
        report["timeline"] = {
            "time_s": round(ex.elapsed_s, 4),
            "solver_time_s": ex.solver_stats.get("time_s"),
            "full_coverage_s": _round(ex.full_coverage_s),
            "full_coverage_run": ex.full_coverage_run,
            "first_finding_s": _round(ex.first_finding_s),
            "first_finding_run": ex.findings[0].run if ex.findings else None,
            # when each entry of "tests" and "findings" was found (the order of those lists)
            "tests_s": [_round(t.time_s) for t in ex.tests],
            "findings_s": [_round(f.time_s) for f in ex.findings],
        }
    return report


def concretized_at(view: ProgramView, sites: dict[Any, int]) -> list[dict[str, Any]]:
    """Where values were fixed, most often first: site (`Function@pc`), source line, the operation, count."""
    from ingot.bex.api import Op

    out = []
    program = view.bytecode
    for (index, pc, *_), count in sites.items():
        fn = program.functions[index]
        site = f"{fn.name}@{pc}"
        if pc >= len(fn.code):
            out.append({"site": site, "line": None, "operation": None, "count": count})
            continue
        op, arg = fn.code[pc]
        operation = program.builtin_keys[arg[0]] if op == Op.CALL_BUILTIN else Op(op).name.lower()
        out.append({"site": site, "line": fn.line_at(pc), "operation": operation, "count": count})
    return sorted(out, key=lambda d: (-d["count"], d["site"]))


def _unknown_causes(solver: dict[str, Any]) -> str:
    """Why queries came back unknown: Z3's resource limit (the same on any machine) or the clock."""
    causes = [f"{solver[k]} {word}" for k, word in (("unknown_rlimit", "out of resources"),
                                                     ("unknown_timeout", "timed out"),
                                                     ("unknown_budget", "past the string-model budget"))
              if solver.get(k)]
    return f" ({', '.join(causes)})" if causes else ""


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 4)


LIMIT_WORDS = {
    "concretized": "values concretized",
    "pruned": "operations pruned at hot sites",
    "solver-unknown": "solver unknowns",
    "divergence": "divergent runs",
    "step-limit": "runs cut by the step budget",
    "depth-limit": "runs cut by the call-depth limit",
    "run-timeout": "runs cut by the time budget",
    "memory": "runs cut by the memory cap",
    "llm-calls": "runs cut at the cap on LLM calls per run",
    "string-models-off": "runs with the string models off (their solver budget spent)",
    "string-models-renewed": "string-model budgets renewed for inputs found without them",
    "revisit-cap": "flips skipped at the revisit cap",
    "check-repeat": "panic checks not re-aimed on other paths",
    "concretize-flips": "concretization flips skipped at the cap",
    "input-sizes": "unsat answers or empty maps owed to --max-len/--max-string-length",
    "float-reals": "unsat answers over floats (solved as reals)",
    "max-runs": "stopped at --max-runs",
    "timeout": "stopped at --timeout",
    "interrupted": "interrupted (Ctrl-C)",
}
STOPS = ("max-runs", "timeout", "interrupted")  # limits that end the search (counted once)


def why_best_effort(report: dict[str, Any]) -> str:
    """What kept the exploration from being complete (exhaustive), in words."""
    limits = report.get("limits", {})
    parts = [f"{n} {LIMIT_WORDS.get(k, k)}" if k not in STOPS else LIMIT_WORDS[k]
             for k, n in limits.items()]
    if not parts and report["stopped_by"] != "exhausted":
        parts.append(f"stopped at {report['stopped_by']} before every path was run")
    return ", ".join(parts)


def summary_table(report: dict[str, Any]) -> Any:
    """A rich table for the terminal."""
    from rich.table import Table

    cov = report["coverage"]
    table = Table(title=f"ingot explore {report['function']}", show_header=False, title_justify="left")
    table.add_column("what", style="bold")
    table.add_column("value")
    open_edges = cov["edges_total"] - cov["edges_infeasible"]  # covered, or not yet proven either way
    pct = 100.0 * cov["edges_covered"] / open_edges if open_edges else 100.0
    table.add_row("runs / paths", f"{report['runs']} / {report['paths']}")
    # An edge neither covered nor proven infeasible is not called feasible: nothing showed it is.
    line = f"{cov['edges_covered']} of {open_edges} ({pct:.0f}%)"
    if cov["edges_infeasible"]:
        line += f", {cov['edges_infeasible']} more proven infeasible"
    table.add_row("edges covered", line)
    table.add_row("findings", str(len(report["findings"])))
    table.add_row("tests", str(len(report["tests"])))
    table.add_row("divergences", str(report["divergences"]))
    solver = report["solver"]
    line = (f"{solver['queries']} queries: {solver['sat']} sat, {solver['unsat']} unsat, "
            f"{solver['unknown']} unknown{_unknown_causes(solver)}; {solver['cache_hits']} cached")
    if "timeline" in report and report["timeline"].get("solver_time_s") is not None:
        line += f"; {report['timeline']['solver_time_s']:.2f}s in Z3"
    table.add_row("solver", line)
    table.add_row("stopped by", report["stopped_by"])
    start, end = report.get("string_length_start"), report.get("string_length")
    if start is not None and end is not None and end > start:
        table.add_row("strings", f"up to {end} characters (grown from {start} while edges stayed uncovered)")
    if not report["complete"]:
        table.add_row("best effort", why_best_effort(report).replace(", ", "\n"))
    fixed = report.get("concretized_at") or []
    if fixed:
        table.add_row("concretized at", "\n".join(f"line {d['line']}: {d['operation']} x{d['count']}"
                                                  for d in fixed[:4]))
    sites = report.get("panic_sites")
    if sites and sites["total"]:
        table.add_row("panic sites", f"{sites['aimed']} of {sites['total']} aimed at ({sites['reached']} reached); "
                                     f"{sites['runs']} of {sites['budget']} runs after the edge search")
    return table
