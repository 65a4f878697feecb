"""``mathbg cache``: what mathbg keeps in its cache directory, and clearing it."""

from __future__ import annotations

import argparse
from typing import Any

from mathbg._resources import format_bytes
from mathbg.cli._args import add_command, print_json

HELP = "what mathbg keeps in its cache directory (size by area), and clearing it"
DESCRIPTION = """\
mathbg keeps what it generates for the next run, one folder per area of its cache
directory ($MATHBG_DATA, else ~/.cache/mathbg): bearoff databases, exact bearoff and
Hypergammon solutions, the gnubg program's analyses of matches (which let an audit typed
again, or a killed corpus --audit, skip gnubg's work), the native engine's table and
numba's compiled kernels. Nothing there is needed: what is removed is made again when it
is next used, at the cost of the time it took.

show   (the default) each area: its folder, entries, size and newest entry.
clear  removes the entries of the areas named, and only what mathbg wrote there: a file
       of a name mathbg gives, a database whose header names a mathbg format. A user's
       file, a link or another user's entry is never touched, nor an entry a running
       build holds its lock on. --older-than DAYS keeps the newer entries; --dry-run
       lists what would go."""

EPILOG = """\
examples:
  mathbg cache
  mathbg cache show --json
  mathbg cache clear analyses --older-than 30
  mathbg cache clear solutions hyper --dry-run"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``cache`` command's arguments and handlers."""
    from mathbg.cache import AREAS

    parser.set_defaults(handler=run_show, json=False)
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    show = add_command(sub, "show", help="each area: folder, entries, size (the default)",
                       description="What each area of mathbg's cache directory holds.",
                       epilog=EPILOG)  # fmt: skip
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(handler=run_show)
    clear = add_command(sub, "clear", help="remove mathbg's entries from areas",
                        description="Remove mathbg's entries from areas of its cache "
                        "directory (only what mathbg wrote there).", epilog=EPILOG)
    clear.add_argument("areas", nargs="+", metavar="AREA", choices=list(AREAS),
                       help=f"areas to clear: {', '.join(AREAS)}")  # fmt: skip
    clear.add_argument("--older-than", type=float, metavar="DAYS",
                       help="only entries last written more than DAYS days ago")  # fmt: skip
    clear.add_argument("--dry-run", action="store_true", help="list what would go; remove nothing")
    clear.add_argument("--json", action="store_true", help="print JSON")
    clear.set_defaults(handler=run_clear)


def _when(t: float | None) -> str:
    import time

    return "-" if t is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def run_show(args: argparse.Namespace) -> int:
    """``mathbg cache`` / ``mathbg cache show``."""
    from mathbg.cache import cache_usage

    usage = cache_usage()
    if args.json:
        print_json([{"area": u.area.name, "path": str(u.path), "what": u.area.what,
                     "entries": u.entries, "bytes": u.bytes, "newest": u.newest}
                    for u in usage])  # fmt: skip
        return 0
    rows: list[Any] = [("area", "entries", "size", "newest", "folder")]
    rows += [(u.area.name, str(u.entries), format_bytes(u.bytes), _when(u.newest), str(u.path))
             for u in usage]  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join([r[0].ljust(widths[0]), r[1].rjust(widths[1]), r[2].rjust(widths[2]),
                         r[3].ljust(widths[3]), r[4]]))  # fmt: skip
    total = sum(u.bytes for u in usage)
    print(f"total {format_bytes(total)}; 'mathbg cache clear AREA' removes an area's entries "
          f"(they are made again when next used)")
    return 0


def run_clear(args: argparse.Namespace) -> int:
    """``mathbg cache clear AREA ...``."""
    from mathbg.cache import clear_cache

    removed = clear_cache(args.areas, older_than=args.older_than, dry_run=args.dry_run)
    if args.json:
        print_json({"dry_run": args.dry_run,
                    "removed": [{"area": r.area, "path": str(r.path), "bytes": r.bytes}
                                for r in removed],
                    "bytes": sum(r.bytes for r in removed)})  # fmt: skip
        return 0
    verb = "would remove" if args.dry_run else "removed"
    for r in removed:
        print(f"{verb} {r.path} ({format_bytes(r.bytes)})")
    print(f"{verb} {len(removed)} entries, {format_bytes(sum(r.bytes for r in removed))}, from "
          f"{', '.join(dict.fromkeys(args.areas))}")
    return 0
