"""``mathbg corpus``: rates of a collection of matches by score."""

from __future__ import annotations

import argparse
from typing import Any

from mathbg.cli._args import (
    add_decimals,
    add_engine_argument,
    add_force,
    add_met_argument,
    add_scheduler_argument,
    check_output,
    print_json,
)

HELP = "rates of a collection of matches by score"
DESCRIPTION = """\
Statistics of a folder (or a list) of match files, by score (the leader's and the
trailer's away) and overall: games, gammon and backgammon rates, the pass rate of first
doubles, the double rate, the resignation rate and the cube levels reached, each rate with
the number it is over (n: games, or games with a double) and its Wilson 95 % interval; a
rate over fewer than --min-n is marked "*" (too few to read). The Crawford game and
post-Crawford games are on their own rows. --audit adds the match audit's totals by
score (cube decisions and errors, checker plays and gnubg's checker error rate, mEMG per
unforced play); --player NAME counts that player's decisions only. Files that cannot be
read or replayed are skipped and listed with their error. --scheduler runs one task per
file on a Dask cluster (same numbers). With the gnubg program as the engine (--engine
gnubg, or auto with --plies) each match's analysis is kept in mathbg's cache directory, as
mathbg audit keeps it: a run killed part way and typed again asks gnubg only for the
matches it had not finished (`mathbg cache clear analyses` removes them)."""

EPILOG = """\
examples:
  mathbg corpus matches/
  mathbg corpus matches/ --json > stats.json
  mathbg corpus matches/ --csv stats.csv --plot gammons.png
  mathbg corpus matches/ --audit --player lasse
  mathbg corpus matches/ --audit --engine gnubg-nn --scheduler tcp://10.0.0.5:8786
  mathbg corpus matches/ --audit --cube-only --scheduler local:2"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``corpus`` command's arguments."""
    p.add_argument("paths", nargs="+", metavar="DIR_OR_FILE",
                   help="match files or folders (searched for .mat, .txt, .sgf)")  # fmt: skip
    p.add_argument("--audit", action="store_true", help="add the match audit's errors by score")
    add_engine_argument(p, "the audit's engine", "evaluate")
    p.add_argument("--plies", type=int, metavar="K", help="the audit's plies (default 0)")
    add_met_argument(p, "the audit's MET")
    p.add_argument("--player", metavar="NAME",
                   help="with --audit: count this player's decisions only")  # fmt: skip
    p.add_argument("--cube-only", action="store_true",
                   help="with --audit: the cube decisions only (no checker play; the gnubg "
                        "program then analyses the cube only: far faster at --plies 2)"
                   )  # fmt: skip
    p.add_argument("--min-n", type=int, default=20, metavar="N",
                   help="mark rates over fewer than N games (or doubles) with * (default 20)")
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


def run(args: argparse.Namespace) -> int:
    """Handler of ``mathbg corpus``."""
    from mathbg.errors import InvalidParameterError

    check_output(args.plot, args.force)
    check_output(args.csv, args.force, marked=False)
    if args.player is not None and not args.audit:
        raise InvalidParameterError("--player goes with --audit (it filters the decisions)")
    if args.min_n < 1:
        raise InvalidParameterError(f"--min-n wants a whole number >= 1, got {args.min_n}")
    from mathbg._dask import dask_client
    from mathbg.analysis.corpus import corpus_stats
    from mathbg.analysis.match_audit import AuditOptions

    options = AuditOptions(engine=args.engine, plies=args.plies, met=args.met,
                           player=args.player, checker=not args.cube_only,
                           luck=False, disk_cache=True)  # fmt: skip
    with dask_client(args.scheduler) as client:
        stats = corpus_stats(args.paths, audit=args.audit, options=options, client=client)
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
    _print(stats, args.min_n)
    return 0


_SHOWN = (("gammon_rate", "gammon%"), ("backgammon_rate", "bg%"), ("double_rate", "double%"),
          ("pass_rate", "pass%"), ("resign_rate", "resign%"))  # fmt: skip


def _cell(row: Any, key: str, min_n: int) -> str:
    """``24.1 [17.3-32.4]`` (percent, Wilson 95 %), ``*`` when under ``min_n``, ``-`` for none."""
    value, ci, n = row.rates[key], row.ci95[key], row.n[key]
    if value is None or ci is None:
        return "-"
    mark = "*" if n < min_n else " "
    return f"{100 * value:5.1f}{mark}[{100 * ci[0]:4.1f}-{100 * ci[1]:5.1f}]"


def _print(stats: Any, min_n: int = 20) -> None:
    print(f"{stats.files} files ({len(stats.skipped)} skipped), {stats.games} games"
          + (f"; decisions of {stats.player}" if stats.player else ""))  # fmt: skip
    for s in stats.skipped:
        print(f"  skipped {s.file}: {s.error}")
    audited = stats.overall.audit is not None
    head = f"{'score':>10} {'games':>6} {'doubles':>7}"
    for _, label in _SHOWN:
        head += f" {label:>18}"
    print(head + "  cube levels" + ("   cube errors  checker mEMG/move" if audited else ""))
    for row in [*stats.by_score, stats.overall]:
        if row.overall:
            score = "overall"
        elif row.leader_away is None:
            score = "money"
        else:
            score = f"{row.leader_away}a/{row.trailer_away}a" + (" C" if row.crawford else "")
        line = f"{score:>10} {row.games:>6} {row.n['pass_rate']:>7}"
        for key, _ in _SHOWN:
            line += f" {_cell(row, key, min_n):>18}"
        line += "  " + " ".join(f"{c}:{k}" for c, k in row.cube_max.items())
        if audited and row.audit is not None:
            a = row.audit
            rate = "-" if a.checker_error_rate is None else f"{a.checker_error_rate:.1f}"
            line += f"   {a.errors}/{a.decisions}  {rate} ({a.unforced})"
        print(line)
    print(f"rates in %, [Wilson 95 % interval]; * over fewer than {min_n} games (pass%: "
          "games with a double): too few to read")
