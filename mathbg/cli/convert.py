"""``mathbg convert``: convert a match file between the formats mathbg reads and writes."""

from __future__ import annotations

import argparse

from mathbg.cli._args import add_force, held_warnings

HELP = "convert a match file (.mat dialects, .sgf) to .mat or .sgf, every play checked"
DESCRIPTION = """\
Read a match file (Jellyfish/gnubg .mat in any of its dialects: gnubg, Jellyfish,
Backgammon Galaxy and Studio, XG's export, OpenGammon; or gnubg's .sgf; the format is
told from the contents), replay every game checking every play against the legal plays
and every result against the rules, and write it as .mat (gnubg's export style) or .sgf.
The output format comes from OUT's extension (.mat/.txt or .sgf) unless --to says it.

A file that is not a match, is truncated or binary, has a line mathbg cannot read, a
number out of its range (a match length above 64 as in gnubg, a score past the length, a
cube value that is not a power of two), an illegal play, a score line that contradicts
the games before it, a result in the middle of a game or a match that contradicts its own
length: one line naming the file and the line, exit status 2. A resignation is read as
gnubg reads it (its level from the points and the cube); one whose points are implausible
(a forfeit's "Wins 4016 points") is read the same way with a one-line warning. OUT is
written only when the whole match was read, and mathbg reads it back to the same record;
an existing OUT that mathbg did not write is not replaced without --force."""

EPILOG = """\
examples:
  mathbg convert --example example.sgf
  mathbg convert match.txt match.sgf
  mathbg convert match.sgf match.mat
  mathbg convert galaxy-export.txt out.txt --to mat"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``convert`` command's arguments and handler."""
    parser.add_argument("input", metavar="IN",
                        help="the match file to read (.mat/.txt or .sgf); with --example, "
                        "the file to write")
    parser.add_argument("output", metavar="OUT", nargs="?",
                        help="the file to write (.mat/.txt or .sgf)")
    parser.add_argument("--example", action="store_true",
                        help="convert mathbg's built-in example match (a short 3-point match "
                        "in the classic .mat dialect) instead of IN")
    parser.add_argument("--to", choices=("mat", "sgf"), help="output format (default: OUT's "
                        "extension)")
    parser.add_argument("--from", dest="from_", choices=("mat", "sgf"),
                        help="input format (default: told from the contents)")
    add_force(parser)


def run(args: argparse.Namespace) -> int:
    """Read, check and write; print one summary line (the reader's warnings before it,
    none when the command is refused)."""
    from mathbg._files import check_output, written_by_mathbg
    from mathbg.errors import InvalidParameterError
    from mathbg.rules.formats import format_for_path, read_match, write_match

    if args.example:
        if args.output is not None:
            raise InvalidParameterError("with --example give only OUT, the file to write")
        args.input, args.output = "<example>", args.input
    elif args.output is None:
        raise InvalidParameterError("give IN, the match file to read, and OUT, the file to write")
    fmt = args.to or format_for_path(args.output)
    check_output(args.output, what=f".{fmt} match file", force=args.force,
                 is_ours=written_by_mathbg)
    with held_warnings():
        if args.example:
            from mathbg.rules.formats.example import example_match

            record = example_match()
        else:
            record = read_match(args.input, format=args.from_)
        write_match(record, args.output, format=fmt, force=args.force)
    moves = sum(1 for g in record.games for _ in g.actions)
    a, b = record.final_score
    print(f"{args.input} -> {args.output} ({fmt}): {record.length}-point match, "
          f"{record.players[0]} {a} - {b} {record.players[1]}, {len(record.games)} games, "
          f"{moves} actions")
    return 0
