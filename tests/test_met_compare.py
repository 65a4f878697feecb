"""``MET.compare``: a table beside another, entry by entry, in MWC and in standard errors.

The reference numbers are constructed: a table against itself differs by nothing; a table
moved by a known amount at known entries differs by exactly that; with standard errors the
z-score is the difference over the error.
"""

from __future__ import annotations

import numpy as np
import pytest

from mathbg.met import MET, load


def _moved(met: MET, a: int, b: int, delta: float, **extra: object) -> MET:
    pre = np.array(met.pre)
    pre[a - 1, b - 1] += delta
    pre[b - 1, a - 1] -= delta
    return MET(pre=pre, post=met.post, name="moved", **extra)  # type: ignore[arg-type]


def test_a_table_against_itself_differs_by_nothing() -> None:
    xg = load("kazaross-xg2", length=7)
    c = xg.compare(xg)
    assert c.entries == 7 * 7 + 7  # the pre table and one post-Crawford vector (symmetric)
    assert c.max_abs_diff == 0.0 and c.mean_abs_diff == 0.0 and np.isnan(c.max_abs_z)
    assert (c.frame()["diff"] == 0).all() and c.frame()["z"].isna().all()


def test_known_differences_and_z_scores() -> None:
    xg = load("kazaross-xg2", length=5)
    se = np.full((5, 5), np.nan)
    se[2, 4] = se[4, 2] = 0.01  # two measured entries, 3a/5a and its mirror
    post_se = np.full((2, 5), np.nan)
    post_se[:, 3] = 0.02  # and the post-Crawford 4a/1a trailer
    post = np.array(xg.post)
    post[:, 3] -= 0.03
    measured = MET(pre=_moved(xg, 3, 5, 0.025).pre, post=post, name="measured", stderr=se,
                   post_stderr=post_se)  # fmt: skip
    c = measured.compare(xg)
    assert c.entries == 3  # only the entries with a standard error count
    assert c.max_abs_diff == pytest.approx(0.03) and c.mean_abs_diff == pytest.approx(
        (0.025 + 0.025 + 0.03) / 3)  # fmt: skip
    assert c.max_abs_z == pytest.approx(2.5) and c.mean_abs_z == pytest.approx(
        (2.5 + 2.5 + 1.5) / 3)  # fmt: skip
    frame = c.frame()
    assert frame.loc[("normal", 3, 5), "z"] == pytest.approx(2.5)
    assert frame.loc[("normal", 5, 3), "diff"] == pytest.approx(-0.025)
    assert frame.loc[("post-crawford", 4, 1), "z"] == pytest.approx(-1.5)
    assert frame.loc[("post-crawford", 4, 1), "value"] == pytest.approx(xg.post[0, 3] - 0.03)
    doc = c.as_dict()
    assert doc["other"] == "kazaross-xg2" and len(doc["rows"]) == 3


def test_lengths_are_matched_and_player_one_counts_when_the_vectors_differ() -> None:
    xg7 = load("kazaross-xg2", length=7)
    short = load("kazaross-xg2", length=4)
    assert short.compare(xg7).entries == 4 * 4 + 4  # the other table cut to 4
    post = np.array(short.post)
    post[1, 2] += 0.01  # player 1's vector differs: an unequal table
    c = MET(pre=short.pre, post=post, name="unequal").compare(short)
    assert c.entries == 4 * 4 + 2 * 4
    # player 1 needing 3 against player 0 at 1-away, from player 0's side
    assert c.frame().loc[("post-crawford", 1, 3), "diff"] == pytest.approx(-0.01)
