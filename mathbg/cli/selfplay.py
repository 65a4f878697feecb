"""``mathbg selfplay``: play many games of a variant and count how they end."""

from __future__ import annotations

import argparse

from mathbg.cli._args import add_decimals, add_seed_argument, print_json

HELP = "play N games of a variant by self-play and count the results (gammon rate)"
DESCRIPTION = """\
Play N games of backgammon or a regional variant (portes, plakoto, fevga, tavla,
long-nardi) between two copies of a player, from a seed, and count the results: single,
gammon ("mars" in Tavla and Long Nardi), backgammon (standard game only), mother and draw
(Plakoto). No cube is used.

Players: random (a uniformly random legal play) or heuristic (a greedy one-ply player
with a simple linear evaluation: pips, points made, exposed blots, pins, blocks; see
mathbg.rules.variants.selfplay). The gammon rate is the share of decisive games worth 2
points or more: the G of the cubeless match equity table for that variant.

--json prints an object with keys variant, games, results (count by result name),
mean_plies (rolls played per game, passes included), gammon_rate, draw_rate, player and
seed."""

EPILOG = """\
examples:
  mathbg selfplay --variant plakoto --games 1000 --seed 1
  mathbg selfplay --variant long-nardi --games 500 --player heuristic --json
  mathbg selfplay --variant backgammon --games 200 --seed 7"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``selfplay`` command's arguments and handler."""
    parser.add_argument(
        "--variant",
        default="backgammon",
        help="backgammon (default), portes, plakoto, fevga, tavla or long-nardi",
    )
    parser.add_argument(
        "--games", type=int, default=1000, help="games to play (default 1000; at most 10,000,000)"
    )
    add_seed_argument(parser)
    parser.add_argument(
        "--player",
        choices=("random", "heuristic"),
        default="random",
        help="who plays both sides (default random)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (fractions)")
    add_decimals(parser)


def run(args: argparse.Namespace) -> int:
    from mathbg.rules.ruleset import get_ruleset
    from mathbg.rules.variants.selfplay import selfplay

    rs = get_ruleset(args.variant)  # an unknown name fails before any game is played
    stats = selfplay(rs, games=args.games, seed=args.seed, player=args.player, progress=True)
    if args.json:
        keys = ("variant", "games", "results", "mean_plies", "gammon_rate", "draw_rate")
        out = {k: stats[k] for k in keys}
        out["player"] = stats["player"]
        out["seed"] = stats["seed"]
        print_json(out, indent=None, decimals=args.decimals)
        return 0
    print(f"{stats['variant']}: {stats['games']} games, {args.player} player, seed {args.seed}")
    for name, count in stats["results"].items():
        print(f"  {name:<11} {count:>8}  {count / stats['games']:7.2%}")
    print(f"  mean plies  {stats['mean_plies']:8.1f}")
    print(f"  gammon rate {stats['gammon_rate']:8.2%}  (share of decisive games worth >= 2)")
    return 0
