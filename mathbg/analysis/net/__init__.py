"""The ``native`` engine: gnubg 1.07's neural networks evaluated by mathbg's own kernels.

GNU Backgammon's 0-ply evaluation of a position, bit for bit, with nothing to install but
mathbg: the same networks (gnubg 1.07's ``gnubg.wd``, shipped in ``data/gnubg``), the same
inputs, the same position classes and bearoff databases, the same float32 arithmetic,
down to the approximations gnubg's build makes. ``tests/test_net_gnubg.py`` checks the
five outputs against gnubg's ``evaluate`` on thousands of random positions: equal to the
last bit in every class but the one-sided bearoff (one float32 unit in 1 of 250, where
gnubg's compiler sums the distributions in another order).

What gnubg does, and so this engine:

- **Classes** (``ClassifyPosition``): a finished game (exact result); both sides within
  6 points and 6 checkers (the two-sided database's cubeless equity, gnubg's
  ``gnubg_ts0.bd``); both sides home (the one-sided database's distributions of rolls to
  bear off and to bear off the first checker, ``gnubg_os0.bd``); a race (the race
  network); contact, "crashed" when a side has at most 6 checkers left beyond its ace
  and deuce point anchors (the crashed network), else the contact network.
- **Inputs**: for each side and point four inputs (1 checker, 2, at least 3, half the
  checkers beyond 3; on the bar at least 1, 2, 3); the race network adds the checkers off
  and the crossovers; the contact networks 25 hand-made inputs a side (Berliner's):
  pips to break contact, back checker and anchors, the pips and rolls that hit blots,
  the rolls that let the back checker escape, containment, mobility, the second moment,
  the cost of entering from the bar, timing, the backbone, back games, free pips.
- **Networks**: 128 hidden sigmoid units and 5 sigmoid outputs (W, WG, WB, LG, LB,
  gammons cumulative), :mod:`~mathbg.analysis.net.weights`.
- **Sanity check** of a network's outputs (certain and impossible gammons and wins in
  races, no gammon once a side has borne off), and the race's backgammon chance counted
  from gnubg's table of escapes (:mod:`~mathbg.analysis.net.tables`).
- **gnubg's build**: gnubg 1.07 is compiled with SSE and ``-ffast-math``, so its hidden
  sigmoid ends in the processor's approximate reciprocal (``RCPPS``: about 12 bits),
  divisions by a constant are multiplications by its float32 reciprocal, and the output
  sums run in four lanes. The kernels do the same (on x86; elsewhere gnubg divides, and
  so do they).

Modules: :mod:`~mathbg.analysis.net.weights` (the networks and gnubg's weights files),
:mod:`~mathbg.analysis.net.tables` (what the kernels read), the private kernels
(``_inputs``, ``_kernels``) and :mod:`~mathbg.analysis.net.engine` (the evaluator, the
player, and batch entry points for many boards or many plays at once).

The rollouts use two more of gnubg's pieces: its pruning networks (200 inputs, 16 or 8
hidden units), which rank every play of a roll so that only the best few are valued by
the full network (gnubg's ``FindBestMoveInEval``), and a cache of evaluated positions.

References
----------
GNU Backgammon 1.07.001: ``eval.c`` (``CalculateHalfInputs``, ``CalculateRaceInputs``,
``ClassifyPosition``, ``EvaluatePositionFull``, ``SanityCheck``, ``EvalRaceBG``,
``FindBestMoveInEval``), ``lib/neuralnet.c``, ``lib/neuralnetsse.c``, ``lib/sigmoid.h``,
``lib/inputs.c``, ``bearoff.c``, ``bearoffgammon.c``. H. Berliner, "BKG -- a program that
plays backgammon" (1977), for the hand-made inputs.
"""

from __future__ import annotations

from mathbg.analysis.net.engine import (
    NativeEvaluator,
    NativePlayer,
    best_plays,
    cached_outputs,
    evaluate_boards,
    play_outputs,
)
from mathbg.analysis.net.weights import Network, Networks, read_networks, shipped_networks

__all__ = [
    "NativeEvaluator",
    "NativePlayer",
    "Network",
    "Networks",
    "best_plays",
    "cached_outputs",
    "evaluate_boards",
    "play_outputs",
    "read_networks",
    "shipped_networks",
]
