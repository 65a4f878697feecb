"""Shipped published tables: numbers as published, provenance, documented quirks.

Literal expected values are the published numbers quoted in shared/reference
(theory-and-sources §1.3, §1.8; the issue text), i.e. gnubg-data's XML files.
"""

from __future__ import annotations

import numpy as np
import pytest

from mathbg.errors import UnknownTableError
from mathbg.met import DEFAULT, available, load
from mathbg.met.published import TABLES

REQUIRED = {
    "kazaross-xg2",
    "rockwell-kazaross",
    "g11",
    "mec26",
    "snowie",
    "woolsey",
    "jacobs",
    "jac050",
    "jac100",
    "ortega",
}


def test_catalogue():
    names = available()
    assert names[0] == DEFAULT == "kazaross-xg2"
    assert REQUIRED <= set(names)
    for name in names:
        met = load(name)
        assert met.name == name
        assert met.length == TABLES[name].length == met.native_length
        assert met.source and met.model == "published"
        assert "Copyright" in met.notice and "preserved" in met.notice
    assert {n: load(n).length for n in ("snowie", "woolsey", "ortega")} == dict.fromkeys(
        ("snowie", "woolsey", "ortega"), 15
    )


def test_aliases_and_errors():
    assert load("KXG2") is load("kazaross-xg2") is load("Kazaross-XG2.xml")
    assert load("jacobs-trice") is load("jacobs")
    with pytest.raises(UnknownTableError, match="kazaross-xg2") as info:
        load("no-such-table")
    assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
    assert load("woolsey", length=20).length == 20


# Kazaross-XG2 (gnubg's Kazaross-XG2.xml; theory §1.8, §8; the issue)
KXG2_PRE = {
    (1, 2): 0.67736,
    (1, 3): 0.75076,
    (1, 7): 0.90724,
    (1, 25): 0.99905,
    (2, 3): 0.59947,
    (3, 2): 0.40053,
    (3, 4): 0.57150,
    (4, 2): 0.33130,
    (4, 5): 0.57732,
    (5, 6): 0.56635,
    (5, 7): 0.62638,
    (7, 5): 0.37362,
    (6, 7): 0.56261,
}
KXG2_POST = {
    2: 0.48803,
    3: 0.32264,
    4: 0.31002,
    5: 0.19012,
    6: 0.18072,
    7: 0.11559,
    8: 0.10906,
    9: 0.06953,
}


def test_kazaross_xg2_published_numbers():
    met = load("kazaross-xg2")
    for (a, b), value in KXG2_PRE.items():
        assert met.pre[a - 1, b - 1] == value
    for n, value in KXG2_POST.items():
        assert met.post[0, n - 1] == met.post[1, n - 1] == value
    # identity: Crawford 2a/1a = post-Crawford 3a (single win -> DMP, gammon -> match)
    assert met.pre[1, 0] == met.post[0, 2] == 0.32264


@pytest.mark.parametrize(
    ("name", "score", "value"),
    [  # theory §1.8, each table's own precision
        ("rockwell-kazaross", (1, 2), 0.676888),
        ("rockwell-kazaross", (2, 3), 0.5990),
        ("woolsey", (1, 2), 0.70),
        ("woolsey", (3, 4), 0.59),
        ("woolsey", (4, 2), 0.32),
        ("mec26", (1, 2), 0.685),
        ("mec26", (2, 3), 0.595),
        ("snowie", (1, 3), 0.748),
        ("snowie", (3, 4), 0.572),
        ("g11", (1, 2), 0.68145),
        ("g11", (6, 7), 0.5632),
        ("jacobs", (1, 2), 0.690),
    ],
)
def test_other_published_numbers(name, score, value):
    got = load(name).pre[score[0] - 1, score[1] - 1]
    assert got == pytest.approx(value, abs=0.00006)


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_published_tables_are_monotone_probabilities(name):
    met = load(name)
    assert np.all(np.diff(met.pre, axis=0) <= 0.0)  # needing more points never helps
    assert np.all(np.diff(met.pre, axis=1) >= 0.0)
    assert met.pre.min() >= 0.0 and met.pre.max() <= 1.0
    assert np.all(np.diff(met.post, axis=1) <= 0.0)


def test_complementarity_as_published():
    for name in REQUIRED - {"ortega", "jac050", "jac100"}:
        met = load(name)
        assert np.abs(met.pre + met.pre.T - 1).max() <= 1e-12, name
        assert met.is_symmetric()
    # Ortega & Kleinman: shipped as published, not complementary by up to 0.002
    ortega = load("ortega")
    dev = np.abs(ortega.pre + ortega.pre.T - 1)
    assert 0.0015 < dev.max() <= 0.002 + 1e-12
    assert not ortega.is_symmetric(atol=1e-3)
    assert "not complementary" in ortega.notes


def test_jacobs_trice_favourite_tables():
    even, fav50, fav100 = load("jacobs"), load("jac050"), load("jac100")
    # player 0 the favourite: DMP 51 % / 52 %, every score better than for equal players
    assert fav50.post[0, 0] == 0.51 and fav50.post[1, 0] == 0.49
    assert fav100.post[0, 0] == 0.52 and fav100.post[1, 0] == 0.48
    assert np.all(fav50.pre.diagonal() > 0.5)
    assert np.all(fav50.pre >= even.pre - 0.0015)  # (3-decimal tables)
    assert np.all(fav100.pre >= fav50.pre)
    assert not fav50.is_symmetric()


def test_mec26_post_crawford_is_not_mec_with_its_parameters():
    # shipped verbatim: the published vector is not Tornberg's post-Crawford recurrence
    from mathbg.met import mec

    published = load("mec26")
    assert published.post[0, 1] == 0.484988779204
    assert mec(25).post[0, 1] == 0.5
