"""``mathbg corpus``: rates of a collection of matches by score."""

from __future__ import annotations

import argparse
from typing import Any

from mathbg.cli._args import (
    add_command,
    add_decimals,
    add_engine_argument,
    add_force,
    add_scheduler_argument,
    check_output,
    print_json,
)

DESCRIPTION = """\
Statistics of a folder (or a list) of match files, by score (the leader's and the
trailer's away) and overall: games, gammon and backgammon rates, the pass rate of first
doubles, the double rate, the resignation rate and the cube levels reached, each rate with
its Wilson 95 % interval; the Crawford game and post-Crawford games on their own rows.
--audit adds the cube audit's error totals by score. Files that cannot be read or
replayed are skipped and listed with their error. --scheduler runs one task per file on a
Dask cluster (same numbers)."""

EPILOG = """\
examples:
  mathbg corpus matches/
  mathbg corpus matches/ --json > stats.json
  mathbg corpus matches/ --csv stats.csv --plot gammons.png
  mathbg corpus matches/ --audit --engine gnubg-nn --scheduler tcp://10.0.0.5:8786
  mathbg corpus matches/ --audit --scheduler local:2"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``corpus`` subcommand."""
    p = add_command(subparsers, "corpus", help="rates of a collection of matches by score",
                    description=DESCRIPTION, epilog=EPILOG)  # fmt: skip
    p.add_argument("paths", nargs="+", metavar="DIR_OR_FILE",
                   help="match files or folders (searched for .mat, .txt, .sgf)")  # fmt: skip
    p.add_argument("--audit", action="store_true", help="add the cube audit's errors by score")
    add_engine_argument(p, "the audit's engine", "evaluate")
    p.add_argument("--plies", type=int, metavar="K", help="the audit's plies (default 0)")
    p.add_argument("--met", default="kazaross-xg2", metavar="NAME",
                   help="the audit's MET (default kazaross-xg2)")  # fmt: skip
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON")
    out.add_argument("--csv", metavar="OUT", help="write one row per score to OUT")
    p.add_argument("--plot", metavar="FILE", help="draw the gammon rate by score to FILE")
    p.add_argument("--rate", default="gammon_rate",
                   choices=("gammon_rate", "backgammon_rate", "pass_rate", "double_rate",
                            "resign_rate"),
                   help="the rate --plot draws (default gammon_rate)")  # fmt: skip
    add_scheduler_argument(p, "the files (one task per file)")
    add_decimals(p)
    add_force(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handler of ``mathbg corpus``."""
    check_output(args.plot, args.force)
    check_output(args.csv, args.force, marked=False)
    from mathbg._dask import dask_client
    from mathbg.analysis.corpus import corpus_stats

    with dask_client(args.scheduler) as client:
        stats = corpus_stats(args.paths, audit=args.audit, engine=args.engine, plies=args.plies,
                             met=args.met, client=client)  # fmt: skip
    if args.plot:
        from mathbg.cli._args import pyplot, save_figure

        pyplot()
        from mathbg.plots import corpus_heatmap

        ax = corpus_heatmap(stats, args.rate)
        save_figure(ax.figure, args.plot, force=args.force)
    if args.csv is not None:
        from mathbg._files import never_ours, output_file
        from mathbg._output import format_number

        with output_file(args.csv, what="CSV file", force=args.force, is_ours=never_ours) as tmp:
            stats.to_frame().to_csv(tmp, index=False,
                                    float_format=lambda v: format_number(v, args.decimals))
    if args.json:
        print_json(stats.as_dict(), decimals=args.decimals)
        return 0
    _print(stats)
    return 0


def _pct(v: Any) -> str:
    return "    -" if v is None else f"{100 * v:5.1f}"


def _print(stats: Any) -> None:
    print(f"{stats.files} files ({len(stats.skipped)} skipped), {stats.games} games")
    for s in stats.skipped:
        print(f"  skipped {s['file']}: {s['error']}")
    audited = stats.overall.get("audit") is not None
    head = (f"{'score':>12} {'games':>6} {'gammon%':>8} {'bg%':>6} {'double%':>8} "
            f"{'pass%':>6} {'resign%':>8}  cube levels")  # fmt: skip
    print(head + ("   errors/decisions" if audited else ""))
    for entry in [*stats.by_score, dict(stats.overall, away=None, crawford=False)]:
        away = entry["away"]
        score = "overall" if away is None else f"{away[0]}a/{away[1]}a"
        if entry.get("crawford"):
            score += " C"
        cubes = " ".join(f"{c}:{n}" for c, n in entry["cube_max"].items())
        line = (f"{score:>12} {entry['games']:>6} {_pct(entry['gammon_rate']):>8} "
                f"{_pct(entry['backgammon_rate']):>6} {_pct(entry['double_rate']):>8} "
                f"{_pct(entry['pass_rate']):>6} {_pct(entry['resign_rate']):>8}  {cubes}")
        if audited:
            a = entry.get("audit") or {}
            line += f"   {a.get('errors', 0)}/{a.get('decisions', 0)}"
        print(line)
