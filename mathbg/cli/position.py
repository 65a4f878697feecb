"""``mathbg position``: show a position from a gnubg ID or XGID, with its legal plays."""

from __future__ import annotations

import argparse
from typing import Any

from mathbg.cli._args import print_json

HELP = "show a position (gnubg Position ID, POSID:MATCHID or XGID) and its legal plays"

DESCRIPTION = """\
Show a backgammon position: an ASCII board from the side on roll (X, at the bottom), the
pip counts and, with --roll, every legal play (one per distinct resulting position, hits
included, as gnubg counts them).

ID is a gnubg Position ID (4HPwATDgc/ABMA), a gnubg ID POSID:MATCHID
(4HPwATDgc/ABMA:cAkAAAAAAAAA) or an XGID (XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10).
An XGID without its "XGID=" prefix starts with '-': put the options first, then "--"
(mathbg position --json -- -b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10).
An impossible position is rejected with the reason.

--json prints an object with keys id, pips ([side on roll, opponent]), off, contact, with
a match state also match_id and gnubg_id, and with --roll also roll, legal_plays (the count)
and plays (their notations)."""

EPILOG = """\
examples:
  mathbg position 4HPwATDgc/ABMA --roll 31
  mathbg position 4HPwATDgc/ABMA:cAkAAAAAAAAA --roll 6-4 --json
  mathbg position XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``position`` command's arguments and handler."""
    parser.add_argument("id", metavar="ID", help="Position ID, POSID:MATCHID or XGID")
    parser.add_argument("--roll", help="dice to list the legal plays of, e.g. 64 or 6-4")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def run(args: argparse.Namespace) -> int:
    from mathbg.rules.dice import parse_roll
    from mathbg.rules.ids import parse_id

    position, match = parse_id(args.id)
    roll = parse_roll(args.roll) if args.roll is not None else None
    plays = position.legal_plays(roll) if roll is not None else None
    pips = position.pips()
    if args.json:
        out: dict[str, Any] = {
            "id": position.id,
            "pips": [pips[0], pips[1]],
            "off": [position.player_off, position.opponent_off],
            "contact": position.has_contact(),
        }
        if match is not None:
            out["match_id"] = match.id
            out["gnubg_id"] = f"{position.id}:{match.id}"
        if plays is not None and roll is not None:
            out["roll"] = [roll[0], roll[1]]
            out["legal_plays"] = len(plays)
            out["plays"] = plays.notations()
        print_json(out, indent=None)
        return 0
    print(position.diagram(match=match, roll=roll))
    print(
        f"Pips: {pips[0]} (on roll) vs {pips[1]}; {'contact' if position.has_contact() else 'race'}"
    )
    if plays is not None and roll is not None:
        n = len(plays)
        if n == 0:
            print(f"{roll[0]}-{roll[1]}: no legal play (the roll cannot be played)")
        else:
            print(f"{roll[0]}-{roll[1]}: {n} legal play{'s' if n != 1 else ''}")
            for i, p in enumerate(plays, 1):
                print(f"{i:4d}. {p.notation}")
    return 0
