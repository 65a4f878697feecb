"""A measured table beside a published one: each entry's distance from it, and the entries
whose cube decisions read a noisy one.

The cube decisions at a score read the table at the scores its games lead to (the take
point at 4-away/1-away post-Crawford is a ratio of the entries at 3-away/1-away and
2-away/1-away). A measured entry far from the published value there moves the decisions
of every score that reads it: with a small sample, a post-Crawford 3-away/1-away entry a
few points low makes the 4-away/1-away leader pass nearly every first double, an artefact
of the noise, not of the game. :func:`suspect_reads` names, for every played entry, the
entries it read that lie more than ``limit`` standard errors from the published table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mathbg.analysis.selfplay.table import Entry, reads
from mathbg.errors import InvalidParameterError
from mathbg.met.table import MET
from mathbg.rules.match import ScoreState

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["suspect_reads"]


def _cell(entry: Entry) -> tuple[str, int, int]:
    """The index of an entry in :meth:`MET.compare`'s frame."""
    return (entry.state.value, *entry.away)


def suspect_reads(met: MET, reference: MET, *, limit: float = 2.0) -> pd.DataFrame:
    """The self-play table's scores with their distance from ``reference`` and the entries
    their cube decisions read that lie more than ``limit`` standard errors from it.

    Parameters
    ----------
    met : MET
        A table from :func:`~mathbg.analysis.selfplay.selfplay_met` (its
        ``frames["scores"]`` and ``metadata``).
    reference : MET
        The published table.
    limit : float, optional
        How many standard errors make an entry suspect (default 2).

    Returns
    -------
    pandas.DataFrame
        ``frames["scores"]`` with the columns ``diff`` (the entry minus the reference, MWC),
        ``z`` (in standard errors) and ``suspect_reads`` (the entries read beyond the
        limit, e.g. ``"post-crawford 3a/1a (-2.4 SE)"``, empty when none).

    Raises
    ------
    InvalidParameterError
        For a table that is not a self-play table, or a limit that is not positive.

    Examples
    --------
    >>> from mathbg.analysis.selfplay import selfplay_met
    >>> from mathbg.met import load
    >>> met = selfplay_met(3, games=72, engine="exact", start=([0, 0, 0, 0, 0, 2],) * 2,
    ...                    progress=False)
    >>> rows = suspect_reads(met, load("kazaross-xg2"))
    >>> list(rows.columns[-3:])
    ['diff', 'z', 'suspect_reads']
    """
    if "scores" not in met.frames or "players" not in met.metadata:
        raise InvalidParameterError(f"{met.name}: not a self-play table (no scores frame)")
    if not limit > 0:
        raise InvalidParameterError(f"the limit is a positive number of SE, got {limit!r}")
    equal = met.metadata["players"][0] == met.metadata["players"][1]
    crawford = bool(met.metadata.get("crawford", True))
    cmp = met.compare(reference).frame()
    scores = met.frames["scores"].copy()
    diffs, zs, flags = [], [], []
    for state, a, b in zip(scores["state"], scores["away"], scores["opp_away"], strict=True):
        entry = Entry(ScoreState(state), (int(a), int(b)))
        key = _cell(entry)
        diffs.append(float(cmp.loc[key, "diff"]) if key in cmp.index else np.nan)
        zs.append(float(cmp.loc[key, "z"]) if key in cmp.index else np.nan)
        found = []
        for read in reads(entry, equal, crawford):
            z = float(cmp.loc[_cell(read), "z"]) if _cell(read) in cmp.index else np.nan
            if abs(z) > limit:
                found.append(f"{read} ({z:+.1f} SE)")
        flags.append("; ".join(found))
    scores["diff"], scores["z"], scores["suspect_reads"] = diffs, zs, flags
    return scores
