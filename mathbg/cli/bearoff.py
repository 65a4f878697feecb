"""``mathbg bearoff``: build bearoff databases and query positions."""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any

from mathbg.cli._args import (
    add_command,
    add_decimals,
    add_owner_argument,
    add_scheduler_argument,
    parse_counts,
    print_json,
)

HELP = "bearoff databases: build one-/two-sided tables, query positions"
DESCRIPTION = """\
Bearoff databases: exact tables for the end of a race.

build  generates a database: one-sided (distribution of the rolls needed to bear off,
       per position of at most C checkers on points 1..P) or --two-sided (exact cubeless
       and cubeful money equities for every pair). Native databases go to the cache
       (~/.cache/mathbg/bearoff, or $MATHBG_DATA/bearoff) unless --out; --out FILE.bd writes gnubg's
       .bd format, byte-identical to gnubg's makebearoff.
show   queries a position: checker counts on points 1..P, ace point first, comma
       separated (0,0,0,0,0,15 = fifteen checkers on the six-point). The default
       one-sided 6x15 database (or the two-sided one a query needs) is built on first use.
match  exact cube decision of a two-sided position at a match score (roller a-away,
       opponent b-away): the whole game is solved with the score, cube and owner in the
       state and the MET at the leaves (a second or so for the default 6x6 space)."""

EPILOG = """\
examples:
  mathbg bearoff build --points 6 --checkers 15
  mathbg bearoff build --points 6 --checkers 6 --two-sided --out gnubg_ts0.bd
  mathbg bearoff build --two-sided --points 6 --checkers 15 --dtype u16 --memory 16GiB
  mathbg bearoff build --two-sided --checkers 12 --scheduler tcp://host:8786 --store /shared/ts
  mathbg bearoff show 0,0,0,0,0,15
  mathbg bearoff show 0,0,0,3,5,7 --json
  mathbg bearoff show --two-sided 0,0,0,0,0,1 0,0,0,0,0,1 --json
  mathbg bearoff match 0,0,1,1,1,1 0,0,0,2,1,1 --away 3,3 --json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``bearoff`` command's arguments and handler."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION")

    build = add_command(
        sub,
        "build",
        help="generate a database",
        description="Generate a one-sided (default) or two-sided bearoff database.",
        epilog=EPILOG,
    )
    build.add_argument("--points", type=int, default=6, help="points 1..P (default 6)")
    build.add_argument(
        "--checkers", type=int, help="checkers per side (default 15 one-sided, 6 two-sided)"
    )
    build.add_argument("--two-sided", action="store_true", help="two-sided cubeful database")
    build.add_argument(
        "--cubeless-only", action="store_true", help="two-sided: the cubeless equity only"
    )
    build.add_argument(
        "--dtype",
        choices=("u16", "f32", "f64"),
        help="two-sided storage: u16 = gnubg's 16-bit fixed point and arithmetic (as "
        "makebearoff; drifts from f64 by up to 1.8e-4 in equity, measured on 6x8), f32/f64 "
        "float equities (f32 within 1e-7 of f64; default f64 up to 4 GiB, else u16)",
    )
    build.add_argument(
        "--memory", metavar="SIZE", help="two-sided memory budget, e.g. 12GiB (default 80%% "
        "of the available memory); refused up front if the live window does not fit"
    )
    add_scheduler_argument(build, "a two-sided build (one task per block)")
    build.add_argument(
        "--store", metavar="URL", help="two-sided block store (a directory or fsspec URL "
        "every Dask worker can reach; default beside the database)"
    )
    _add_policy(build, "one-sided move policy (default gnubg)")
    build.add_argument("--out", metavar="PATH", help="output directory, or a gnubg .bd file")
    build.add_argument("--rebuild", action="store_true", help="rebuild even if a valid one exists")
    build.add_argument(
        "--force",
        action="store_true",
        help="replace an existing --out that is not a database of this kind",
    )
    build.add_argument("--quiet", action="store_true", help="no progress bar")
    build.set_defaults(handler=run_build)

    show = add_command(
        sub,
        "show",
        help="query a position",
        description="Statistics of a one-sided position, or exact equities of a two-sided "
        "pair (roller first).",
        epilog=EPILOG,
    )
    show.add_argument(
        "positions",
        nargs="+",
        metavar="COUNTS",
        help="checker counts on points 1, 2, ... e.g. 0,0,0,3,5,7; points left out are empty "
        "(0,0,0,3,5 is 0,0,0,3,5,0)",
    )
    show.add_argument("--two-sided", action="store_true", help="ROLLER OPPONENT pair")
    show.add_argument("--json", action="store_true", help="print JSON (fractions)")
    add_decimals(show)
    show.add_argument("--points", type=int, help="database points (default: 6 or what fits)")
    show.add_argument("--checkers", type=int, help="database checkers (default: what fits)")
    _add_policy(show, "one-sided policy")
    add_owner_argument(
        show,
        "two-sided: who owns the cube at the root decision, player = the roller (default centre)",
        owners=("centre", "player"),
    )
    show.add_argument("--no-beavers", action="store_true",
                      help="two-sided: a take the taker would beaver is named a take (default: "
                      "beavers, as gnubg and the other commands)")  # fmt: skip
    show.add_argument("--db", metavar="PATH", help="use this database (native or gnubg .bd)")
    show.set_defaults(handler=run_show)
    _register_match(sub)
    parser.set_defaults(handler=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    """Print the help of ``mathbg bearoff`` without a subcommand; exit status 2."""
    parser.print_help()
    return 2


def _add_policy(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--policy", choices=("gnubg", "min-rolls"), default="gnubg", help=help)


def _register_match(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``mathbg bearoff match`` (exact match play; arguments and handler in _bearoff_match)."""
    match = add_command(
        sub,
        "match",
        help="exact cube decision of a bearoff at a match score",
        description="Exact match winning chances and cube decision of the roller in a "
        "two-sided bearoff at a match score (optimal checker and cube play by both sides, "
        "MET at the leaves; no gammons with fewer than 15 checkers).",
        epilog=EPILOG,
    )
    from mathbg.cli._bearoff_match import add_arguments, run

    add_arguments(match)
    match.set_defaults(handler=run)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__


def _file_digest(path: Path, algorithm: str) -> str:
    digest = hashlib.new(algorithm)
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for f in files:
        with open(f, "rb") as fh:
            while chunk := fh.read(1 << 24):
                digest.update(chunk)
    return digest.hexdigest()


def run_build(args: argparse.Namespace) -> int:
    """``mathbg bearoff build``."""
    import time

    from mathbg.bearoff import OneSided

    checkers = args.checkers if args.checkers is not None else (6 if args.two_sided else 15)
    out = Path(args.out) if args.out else None
    start = time.perf_counter()
    _check_build_args(args, checkers)  # every cheap check before any work or connection
    gnubg_file = out is not None and out.suffix.lower() == ".bd"  # x.BD is a gnubg file too
    report = None  # the phases of a two-sided build (None when a database was reused)
    if gnubg_file and args.two_sided:
        assert out is not None
        path = _build_gnubg_two_sided(args, checkers, out)
        checksum = f"md5:{_file_digest(path, 'md5')}"
    elif gnubg_file:
        assert out is not None
        path = _build_gnubg_file(args, checkers, out)
        checksum = f"md5:{_file_digest(path, 'md5')}"
    else:
        if args.two_sided:
            db: Any = _build_two_sided(args, checkers, out)
            report = db.build_report
        else:
            db = OneSided.build(
                args.points,
                checkers,
                policy=args.policy,
                path=out,
                progress=not args.quiet,
                rebuild=args.rebuild,
                force=args.force,
            )
        path = Path(db.path)
        checksum = db.header["checksum"]
    seconds = time.perf_counter() - start
    kind = "two-sided" if args.two_sided else "one-sided"
    from mathbg._files import disk_size

    size = disk_size(path)
    print(f"{kind} {args.points}x{checkers}: {path}")
    print(f"size {size:,} bytes ({size / 2**20:.1f} MiB), checksum {checksum}, {seconds:.2f} s")
    if report is not None:
        print(report.line())  # where a two-sided build spent its time
    return 0


def _check_build_args(args: argparse.Namespace, checkers: int) -> None:
    """The checks of ``bearoff build`` that cost nothing, before any work: the space, the
    flags that need --two-sided, the memory budget, the scheduler address and the store
    URL (a bad scheduler is refused before a connection is tried)."""
    from mathbg._validate import integer
    from mathbg.bearoff.index import MAX_CHECKERS, MAX_POINTS
    from mathbg.errors import InvalidParameterError

    integer(args.points, "--points", 1, MAX_POINTS)
    integer(checkers, "--checkers", 1, MAX_CHECKERS)
    if not args.two_sided:
        for flag in ("cubeless_only", "dtype", "memory", "scheduler", "store"):
            if getattr(args, flag):
                raise InvalidParameterError(f"--{flag.replace('_', '-')} needs --two-sided")
        return
    if args.memory is not None:
        from mathbg._resources import parse_memory

        try:
            parse_memory(args.memory)
        except (OverflowError, ValueError) as exc:
            if isinstance(exc, InvalidParameterError):
                raise
            raise InvalidParameterError(
                f"memory must look like 12GiB, 500MB or 8G, got {args.memory!r}"
            ) from None
    if args.store is not None:
        check_store_url(args.store)


def check_store_url(url: str) -> None:
    """Refuse a ``--store`` URL whose protocol fsspec does not know, or whose package is
    not installed, naming the protocol or the package (a plain directory passes)."""
    from mathbg._validate import bounded_text
    from mathbg.errors import InvalidParameterError

    text = bounded_text(url, "--store", 4096, error=InvalidParameterError)
    protocol, sep, _ = text.partition("://")
    if not sep:
        return
    try:
        import fsspec

        fsspec.get_filesystem_class(protocol.lower())
    except ImportError as exc:
        raise InvalidParameterError(
            f"--store {url!r}: the {protocol}:// protocol needs a package that is not "
            f"installed ({exc})"
        ) from None
    except ValueError:
        raise InvalidParameterError(
            f"--store {url!r}: unknown protocol {protocol!r}; give a directory or an fsspec "
            "URL (file://, s3://, gcs://, ...) every worker can reach"
        ) from None


def _build_two_sided(args: argparse.Namespace, checkers: int, out: Path | None) -> Any:
    """``TwoSided.build`` with the two-sided flags (a Dask client for ``--scheduler``)."""
    from mathbg.bearoff import TwoSided

    kwargs: dict[str, Any] = {
        "cubeful": not args.cubeless_only,
        "dtype": args.dtype,
        "memory": args.memory,
        "store": args.store,
        "path": out,
        "progress": not args.quiet,
        "rebuild": args.rebuild,
        "force": args.force,
    }
    from mathbg._dask import dask_client

    with dask_client(args.scheduler) as client:
        return TwoSided.build(args.points, checkers, client=client, **kwargs)


def _build_gnubg_two_sided(args: argparse.Namespace, checkers: int, out: Path) -> Path:
    """A two-sided .bd file from a 16-bit block build (byte-identical to makebearoff)."""
    import tempfile

    from mathbg.errors import InvalidParameterError

    if args.dtype not in (None, "u16"):
        raise InvalidParameterError(".bd files hold gnubg's 16-bit values: use --dtype u16")
    args.dtype = "u16"
    with tempfile.TemporaryDirectory(prefix=".mathbg-ts-", dir=out.parent or ".") as tmp:
        db = _build_two_sided(args, checkers, Path(tmp) / "db")
        db.to_gnubg(out, force=args.force)
        del db
    return out


def _build_gnubg_file(args: argparse.Namespace, checkers: int, out: Path) -> Path:
    """Write a one-sided gnubg .bd file with gnubg's own arithmetic (byte-identical to
    makebearoff); two-sided files come from the 16-bit block build
    (:func:`_build_gnubg_two_sided`)."""
    from mathbg.bearoff import gnubg_bd
    from mathbg.bearoff.generate import onesided
    from mathbg.bearoff.generate.onesided import progress_bar
    from mathbg.bearoff.index import n_positions
    from mathbg.errors import InvalidParameterError

    if args.policy != "gnubg":
        raise InvalidParameterError(".bd files are written with gnubg's policy only")
    gnubg_bd.check_target(out, "OS", force=args.force)
    n = n_positions(args.points, checkers)
    onesided.compile_kernels(args.points, checkers)  # compile first: the bar's ETA is honest
    bar = progress_bar(n, f"{out.name}", not args.quiet)
    hook = bar.update if bar is not None else None
    try:
        tab = onesided.build_gnubg_arrays(args.points, checkers, progress=hook)
        gnubg_bd.write_onesided(
            out,
            tab[:, :32],
            tab[:, 32:],
            points=args.points,
            checkers=checkers,
            force=args.force,
        )
    finally:
        if bar is not None:
            bar.close()
    return out


def _trimmed(values: Any) -> list[float]:
    arr = [float(x) for x in values]
    while len(arr) > 1 and arr[-1] == 0.0:
        arr.pop()
    return arr


def _fits(counts: list[list[int]]) -> tuple[int, int]:
    """Smallest (points >= 6, checkers) covering the positions."""
    highest = max((k + 1 for c in counts for k, x in enumerate(c) if x), default=1)
    return max(6, highest), max(sum(c) for c in counts)


def run_show(args: argparse.Namespace) -> int:
    """``mathbg bearoff show``."""
    from mathbg._validate import integer
    from mathbg.bearoff.index import MAX_CHECKERS, MAX_POINTS
    from mathbg.errors import InvalidParameterError

    counts = [parse_counts(p) for p in args.positions]
    for flag, most in (("points", MAX_POINTS), ("checkers", MAX_CHECKERS)):
        if getattr(args, flag) is not None:
            integer(getattr(args, flag), f"--{flag}", 1, most)
    if args.db and (args.points is not None or args.checkers is not None):
        raise InvalidParameterError("--db gives the database: drop --points and --checkers")
    if args.two_sided:
        if len(counts) != 2:
            raise InvalidParameterError("--two-sided needs two positions: ROLLER OPPONENT")
        return _show_two_sided(args, counts[0], counts[1])
    if len(counts) != 1:
        raise InvalidParameterError("give one position (or --two-sided ROLLER OPPONENT)")
    if args.no_beavers or args.owner != "centre":
        raise InvalidParameterError("--owner and --no-beavers go with --two-sided (the cube "
                                    "decision of a ROLLER OPPONENT pair)")  # fmt: skip
    return _show_one_sided(args, counts[0])


def _show_one_sided(args: argparse.Namespace, counts: list[int]) -> int:
    from mathbg.bearoff import OneSided
    from mathbg.bearoff.index import pips, validate_counts

    if args.db:
        db = OneSided.open(args.db)
    else:
        validate_counts(counts, len(counts))  # bad counts fail before any build
        points, _ = _fits([counts])
        points = args.points if args.points is not None else points
        checkers = args.checkers if args.checkers is not None else 15
        validate_counts(counts, points, checkers)  # before building anything
        db = OneSided.build(points, checkers, policy=args.policy)
    arr = validate_counts(counts, db.points, db.checkers)
    dist = db.distribution(arr)
    result = {
        "position": [int(x) for x in arr],
        "pips": pips(arr),
        "database": f"one-sided {db.points}x{db.checkers} ({db.policy})",
        "mean_rolls": db.mean_rolls(arr),
        "std_rolls": db.std_rolls(arr),
        "epc": db.epc(arr),
        "wastage": db.wastage(arr),
        "distribution": _trimmed(dist),
        "gammon_distribution": _trimmed(db.gammon_distribution(arr)),
    }
    if args.json:
        print_json(result, decimals=args.decimals)
        return 0
    print(f"position {','.join(map(str, result['position']))}  ({result['database']})")
    mean, sd = result["mean_rolls"], result["std_rolls"]
    print(f"pips {result['pips']}  mean rolls {mean:.4f}  sd {sd:.4f}")
    print(f"EPC {result['epc']:.2f}  wastage {result['wastage']:.2f}")
    print("rolls  P(bear off)  P(first off)")
    gd = result["gammon_distribution"]
    for n, p in enumerate(result["distribution"]):
        g = f"{100 * gd[n]:10.4f}%" if n < len(gd) else ""
        print(f"{n:5d}  {100 * p:10.4f}%  {g}")
    return 0


#: The largest two-sided space ``bearoff show`` builds on demand (6x10: 8,008 positions a
#: side, well under a minute); bigger databases (up to 6x15: 15 minutes, 22 GiB) are built
#: only by ``mathbg bearoff build --two-sided``.
ON_DEMAND_POSITIONS = 8008


def _show_two_sided(args: argparse.Namespace, roller: list[int], opponent: list[int]) -> int:
    from mathbg.bearoff import TwoSided
    from mathbg.bearoff.index import check_in_play, n_positions, validate_counts
    from mathbg.errors import DatabaseError, InvalidParameterError

    if args.db:
        ts = TwoSided.open(args.db)
    else:
        for side, counts in (("roller", roller), ("opponent", opponent)):
            validate_counts(counts, len(counts), what=side)
            check_in_play(counts, side)  # before building anything
        for flag in ("points", "checkers"):
            value = getattr(args, flag)
            if value is not None and value < 1:
                raise InvalidParameterError(f"--{flag} must be at least 1, got {value}")
        given = args.points is not None or args.checkers is not None
        points, checkers = _fits([roller, opponent])
        points = args.points if args.points is not None else points
        checkers = args.checkers if args.checkers is not None else max(6, checkers)
        for side, counts in (("roller", roller), ("opponent", opponent)):
            validate_counts(counts, points, checkers, what=side)
        # the largest database already built serves any pair it holds (e.g. 6x15)
        largest = None if given else TwoSided.largest()
        if largest is not None and largest.points >= points and largest.checkers >= checkers:
            ts = largest
        elif n_positions(points, checkers) > ON_DEMAND_POSITIONS:
            raise DatabaseError(
                f"no two-sided {points}x{checkers} database is built, and a show does not start "
                f"a build that long: run 'mathbg bearoff build --two-sided --points {points} "
                f"--checkers {checkers}' first (then every show uses it)"
            )
        else:
            ts = TwoSided.build(points, checkers)
    eq = ts.equities(roller, opponent)
    owner = args.owner
    dec = ts.cube_decision(roller, opponent, owner, beavers=not args.no_beavers)
    result = {
        "roller": roller,
        "opponent": opponent,
        "database": f"two-sided {ts.points}x{ts.checkers}",
        "p_win": eq.win_probability,
        "cubeless_equity": eq.cubeless,
        # by cube owner, before the roller's cube decision (Equities' fields)
        "cubeful": {"player": eq.player, "centre": eq.centre, "opponent": eq.opponent},
        "decision": str(dec.action),
        "cube_decision": {
            "owner": owner,
            "no_double": dec.no_double,
            "double_take": dec.double_take,
            "double_pass": dec.double_pass,
            "action": str(dec.action),
            "optimal": dec.optimal,
        },
    }
    if args.json:
        print_json(result, decimals=args.decimals)
        return 0
    out = sys.stdout
    print(f"roller {','.join(map(str, roller))} vs {','.join(map(str, opponent))}  "
          f"({result['database']})", file=out)  # fmt: skip
    print(f"P(win) {100 * eq.win_probability:.4f} %  cubeless equity {eq.cubeless:+.6f}", file=out)
    print(
        f"cubeful by cube owner (before the roller's decision): player {eq.player:+.6f}  "
        f"centre {eq.centre:+.6f}  opponent {eq.opponent:+.6f}",
        file=out,
    )
    print(
        f"cube {owner}: no double {dec.no_double:+.6f}  double/take {dec.double_take:+.6f}  "
        f"double/pass {dec.double_pass:+.6f}  ->  {dec.action}",
        file=out,
    )
    return 0
