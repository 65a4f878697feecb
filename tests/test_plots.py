"""Every plot function of mathbg.plots: drawn, saved as a PNG, labelled with units.

Each case calls one function of :data:`mathbg.plots.__all__` on a small input, saves the
figure to ``tmp_path`` and checks that the PNG is a real, non-blank image and that the axes
carry the expected labels (away scores, MWC %, winning chance %, rolls, pips). A meta-test
makes sure no plot function is left without a case.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import numpy as np
import pytest

from mathbg import plots
from mathbg.bearoff import OneSided
from mathbg.cube.match import points
from mathbg.cube.matrix import score_matrix
from mathbg.met import load

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def onesided(tmp_path_factory: pytest.TempPathFactory) -> OneSided:
    """A small one-sided database (3 points, up to 15 checkers: 816 positions)."""
    path = tmp_path_factory.mktemp("bearoff") / "os-3x15"
    return OneSided.build(points=3, checkers=15, path=path, progress=False)


@pytest.fixture(scope="module")
def kxg2() -> Any:
    return load("kazaross-xg2")


def _colorbar_label(ax: Any) -> str:
    """The label of the colour bar drawn next to ``ax`` (the figure's other axes)."""
    others = [a for a in ax.figure.axes if a is not ax]
    assert others, "no colour bar"
    return others[-1].get_ylabel()


# name -> (draw(ax or None, fixtures) -> Axes, expected xlabel part, ylabel part, colour bar part)
Case = tuple[Callable[..., Any], str, str, str | None]


def _cases() -> dict[str, list[Case]]:
    a = np.array([0.0, 0.1, 0.5, 0.3, 0.1])
    b = np.array([0.0, 0.0, 0.2, 0.5, 0.2, 0.1])
    return {
        "met_heatmap": [
            (lambda ax, f: plots.met_heatmap(f["kxg2"], ax=ax, length=7),
             "opponent needs (away)", "player needs (away)", "MWC %"),
        ],
        "met_difference_heatmap": [
            (lambda ax, f: plots.met_difference_heatmap(load("woolsey"), f["kxg2"], ax=ax,
                                                        length=7),
             "opponent needs (away)", "player needs (away)", "MWC difference (% points)"),
        ],
        "post_crawford": [
            (lambda ax, f: plots.post_crawford(f["kxg2"], ax=ax),
             "trailer needs (away)", "MWC %", None),
        ],
        "cube_point_heatmap": [
            (lambda ax, f: plots.cube_point_heatmap(score_matrix(f["kxg2"], 7), "take_dead",
                                                    ax=ax),
             "doubler needs (away)", "taker needs (away)", "taker's winning chance %"),
            (lambda ax, f: plots.cube_point_heatmap(score_matrix(f["kxg2"], 7), "take_live",
                                                    cube=2, ax=ax),
             "doubler needs (away)", "taker needs (away)", "taker's winning chance %"),
            (lambda ax, f: plots.cube_point_heatmap(score_matrix(f["kxg2"], 7), "double",
                                                    cube=2, ax=ax),
             "opponent needs (away)", "doubler needs (away)", "doubler's winning chance %"),
            (lambda ax, f: plots.cube_point_heatmap(score_matrix(f["kxg2"], 7), "gammon_value",
                                                    ax=ax),
             "opponent needs (away)", "doubler needs (away)", "gammon value"),
        ],
        "market_window_bars": [
            (lambda ax, f: plots.market_window_bars(points(f["kxg2"], (3, 5), cube=2), ax=ax),
             "winning chance %", "", None),
        ],
        "take_point_vs_gammon_rate": [
            (lambda ax, f: plots.take_point_vs_gammon_rate(f["kxg2"], (3, 5), ax=ax),
             "gammon rate %", "take point %", None),
        ],
        "take_point_vs_cube_life": [
            (lambda ax, f: plots.take_point_vs_cube_life(ax=ax, gammons=(0.2, 0.2)),
             "cube life x", "take point %", None),
            (lambda ax, f: plots.take_point_vs_cube_life(f["kxg2"], (3, 5), ax=ax),
             "cube life x", "take point %", None),
        ],
        "race_rolls": [
            (lambda ax, f: plots.race_rolls(a, b, ax=ax), "rolls to bear off", "probability %",
             None),
        ],
        "race_chances_by_lead": [
            (lambda ax, f: plots.race_chances_by_lead(ax=ax), "lead in pips", "winning chance %",
             None),
        ],
        "bearoff_distribution": [
            (lambda ax, f: plots.bearoff_distribution(f["onesided"], [[0, 0, 15], [5, 5, 5]],
                                                      ax=ax),
             "(number of rolls)", "probability %", None),
            (lambda ax, f: plots.bearoff_distribution(f["onesided"], [0, 0, 15], ax=ax,
                                                      gammon=True),
             "first checker comes off (number of rolls)", "probability %", None),
        ],
        "bearoff_wastage": [
            (lambda ax, f: plots.bearoff_wastage(f["onesided"], ax=ax),
             "pip count (pips)", "EPC - pips (pips)", None),
            (lambda ax, f: plots.bearoff_wastage(f["onesided"], ax=ax, checkers=15),
             "pip count (pips)", "EPC - pips (pips)", None),
        ],
        "exact_take_boundary": [
            (lambda ax, f: plots.exact_take_boundary(_match_analysis().take_boundary(
                (3, 3), checkers=3), ax=ax),
             "taker's cubeless winning chance (%)", "take minus pass (% points)", None),
        ],
        "implied_cube_life": [
            (lambda ax, f: plots.implied_cube_life(_match_analysis().cube_life_table(
                [(3, 3), (5, 4)], checkers=3), ax=ax),
             "pip count", "implied cube life x", None),
        ],
        "audit_timeline": [
            (lambda ax, f: plots.audit_timeline(_audit(), ax=ax),
             "cube decision", "MWC %", None),
        ],
        "corpus_heatmap": [
            (lambda ax, f: plots.corpus_heatmap(_corpus(), "gammon_rate", ax=ax),
             "trailer needs", "leader needs", "gammon rate %"),
            (lambda ax, f: plots.corpus_heatmap(_corpus(), "pass_rate", ax=ax),
             "trailer needs", "leader needs", "pass rate %"),
        ],
        "rollout_grid": [
            (lambda ax, f: plots.rollout_grid(_rollout_matrix(), ax=ax),
             "opponent (taker) away", "roller away", None),
        ],
        "cube_action_grid": [
            (lambda ax, f: plots.cube_action_grid(_analysis(), ax=ax),
             "opponent (taker) away", "roller away", None),
            (lambda ax, f: plots.cube_action_grid(_analysis(), ax=ax, cube=2),
             "opponent (taker) away", "roller away", None),
        ],
    }  # fmt: skip


def _analysis() -> Any:
    """A 5-point score matrix of the opening position from given chances, cubes 1 and 2."""
    from mathbg.analysis import analyze

    return analyze("4HPwATDgc/ABMA", length=5, probabilities=(0.7, 0.2, 0.01, 0.1, 0.005),
                   max_cube=2)  # fmt: skip


def _rollout_matrix() -> Any:
    """A bearoff inside the exact solver rolled out at every score of a 3-point match (each
    trial ends at once with the exact value; the checker player needs gnubg-nn)."""
    from mathbg.analysis import rollout_matrix

    return rollout_matrix("AwAAWAAAAAAAAA", 3, trials=36, progress=False)


_MATCHES = Path(__file__).parent / "data" / "matches"


def _audit() -> Any:
    """The audit of a shared 5-point match (gnubg-nn, else the race/exact engines fail on
    contact: the test needs gnubg-nn, an engine extra installed in CI)."""
    from mathbg.analysis import audit

    return audit(_MATCHES / "match10014006.txt", engine="gnubg-nn", exact=False)


def _corpus() -> Any:
    from mathbg.analysis import corpus_stats

    return corpus_stats(_MATCHES, progress=False)


def _match_analysis() -> Any:
    from mathbg.bearoff.exact import analysis as match_analysis

    return match_analysis


CASES = _cases()
PARAMS = [
    pytest.param(name, i, id=f"{name}-{i}")
    for name, cases in CASES.items()
    for i in range(len(cases))
]


def test_every_plot_function_has_a_case() -> None:
    assert set(CASES) == set(plots.__all__)
    for name in plots.__all__:
        assert callable(getattr(plots, name))


def _check_png(path: Path) -> None:
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 5_000
    image = mpimg.imread(path)
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
    # not blank: many distinct colours were drawn
    colours = np.unique(image.reshape(-1, image.shape[2]).round(2), axis=0)
    assert len(colours) > 10


@pytest.mark.slow  # 24 figures drawn and saved: about 16 CPU-s
@pytest.mark.parametrize(("name", "i"), PARAMS)
def test_plot_saves_labelled_png(
    name: str, i: int, tmp_path: Path, kxg2: Any, onesided: OneSided
) -> None:
    draw, xlabel, ylabel, cbar = CASES[name][i]
    fixtures = {"kxg2": kxg2, "onesided": onesided}
    ax = draw(None, fixtures)  # a new figure
    try:
        assert ax.get_title(), "every plot has a title"
        assert xlabel in ax.get_xlabel()
        assert ylabel in ax.get_ylabel()
        if cbar is not None:
            assert cbar in _colorbar_label(ax)
        out = tmp_path / f"{name}-{i}.png"
        ax.figure.savefig(out, dpi=60)
        _check_png(out)
    finally:
        plt.close(ax.figure)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "i"), PARAMS)
def test_plot_draws_on_given_axes(name: str, i: int, kxg2: Any, onesided: OneSided) -> None:
    draw = CASES[name][i][0]
    fig, ax = plt.subplots()
    try:
        assert draw(ax, {"kxg2": kxg2, "onesided": onesided}) is ax
    finally:
        plt.close(fig)


def test_bearoff_distribution_legend_states_mean_and_epc(onesided: OneSided) -> None:
    # 15 checkers on the 1-point of a 3-point database: each roll bears off 2 checkers
    # (4 with doubles), so the legend's mean must be the database's, and EPC = mean x 49/6.
    ax = plots.bearoff_distribution(onesided, [0, 0, 15])
    try:
        (label,) = [t.get_text() for t in ax.get_legend().get_texts()]
        mean = onesided.mean_rolls([0, 0, 15])
        assert f"mean {mean:.2f} rolls" in label
        assert f"EPC {mean * 49 / 6:.1f}" in label
    finally:
        plt.close(ax.figure)


def test_difference_heatmap_values(kxg2: Any) -> None:
    # cell (a, b) is 100 * (met - reference) at a-away vs b-away, e.g. Woolsey's Crawford
    # 1a/2a is 70 % against Kazaross-XG2's 67.736 % (published tables).
    ax = plots.met_difference_heatmap(load("woolsey"), kxg2, length=3, colorbar=False)
    try:
        data = np.asarray(ax.images[0].get_array())
        assert data.shape == (3, 3)
        assert data[0, 1] == pytest.approx(70.0 - 67.736, abs=1e-9)
        assert data[1, 1] == pytest.approx(0.0, abs=1e-12)
        texts = {t.get_text() for t in ax.texts}
        assert "+2.3" in texts and "+0.0" in texts and "-0.0" not in texts
    finally:
        plt.close(ax.figure)
