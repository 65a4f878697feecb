"""Issue 31, the differential test: mathbg's cubeful rollout and gnubg 1.07's (``rollout``,
one thread, 0-ply checker play and cube decisions, variance reduction, no truncation, the
same MET: Kazaross-XG2) on contact positions at a match score agree within 3 combined
standard errors on every line, and in money play under gnubg's money rules (the Jacoby rule
on or off, beavers) on the no-double line (slow lane: about a minute and a half; small
trial counts, the big runs are in ``benchmarks/bench_rollout.py``).
"""

from __future__ import annotations

import math

import pytest
from gnubg_peer import GnubgPeer
from gnubg_rollout import gnubg_rollout_line

from mathbg.analysis import rollout

CASES = [
    ("4HPwATDgc/ABMA", (3, 5), 144),  # the opening position, 3-away/5-away
    ("4HPwATCwt8EBMA", (4, 2), 72),  # a middle game, 4-away/2-away
]


@pytest.mark.slow  # ~60 CPU-s: mathbg's and gnubg's rollouts of two positions
@pytest.mark.extra("engine")
@pytest.mark.gnubg(kind="multi-ply")
@pytest.mark.parametrize(("pid", "away", "trials"), CASES)
def test_rollout_agrees_with_gnubg(
    gnubg: GnubgPeer, pid: str, away: tuple[int, int], trials: int
) -> None:
    ours = rollout(pid, away=away, trials=trials, truncate=None, seed=4, progress=False)
    for line, cube, owner in (("no_double", 1, "centre"), ("double_take", 2, "opponent")):
        theirs = gnubg_rollout_line(gnubg.gnubg, pid, away, cube=cube, owner=owner,
                                    trials=trials, seed=4)  # fmt: skip
        mine = ours.line(line)
        assert theirs.trials == trials
        combined = math.hypot(mine.stderr, theirs.stderr)
        assert abs(mine.value - theirs.mwc) <= 3 * combined, (line, mine.value, theirs)


@pytest.mark.slow  # ~20 CPU-s: two money rollouts of two positions by each program
@pytest.mark.gnubg(kind="multi-ply")
@pytest.mark.parametrize(("pid", "trials"), [("4HPwATCwt8EBMA", 144), ("4Dn4AGi2uzMAAA", 72)])
def test_money_rollout_agrees_with_gnubg_under_its_money_rules(
    gnubg: GnubgPeer, pid: str, trials: int
) -> None:
    """Money play, the no-double line (the cube centred), with and without the Jacoby rule
    (beavers on, gnubg's default): within 3 combined SE of gnubg's ``rollout`` of the same
    session. The second position (a blitz, gammons about 90 % of the wins) is too good to
    double without Jacoby and a cash with it: there the two rules' values lie far apart, so
    a rollout that ignored the rule would fail."""
    theirs = {}
    for jacoby in (True, False):
        ours = rollout(pid, away="money", jacoby=jacoby, trials=trials, truncate=None, seed=4,
                       progress=False).line("no_double")  # fmt: skip
        theirs[jacoby] = gnubg_rollout_line(gnubg.gnubg, pid, None, trials=trials, seed=4,
                                            jacoby=jacoby)  # fmt: skip
        combined = math.hypot(ours.stderr, theirs[jacoby].stderr)
        assert abs(ours.value - theirs[jacoby].mwc) <= 3 * combined, (jacoby, ours, theirs)
    if pid == "4Dn4AGi2uzMAAA":
        gap = theirs[False].mwc - theirs[True].mwc
        assert gap > 20 * math.hypot(theirs[False].stderr, theirs[True].stderr)
