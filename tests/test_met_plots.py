"""Plot helpers for METs (mathbg.plots)."""

from __future__ import annotations

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from mathbg.met import load, mec
from mathbg.plots import met_heatmap, post_crawford


def test_heatmap_returns_axes_and_annotates():
    ax = met_heatmap(load("woolsey"), length=5)
    assert ax.images and ax.images[0].get_array().shape == (5, 5)
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == 25 and "70" in texts
    plt.close(ax.figure)


def test_heatmap_on_given_axes_without_annotation():
    fig, ax = plt.subplots()
    out = met_heatmap(load(), ax=ax, colorbar=False)
    assert out is ax and not ax.texts  # 25 points: no annotation by default
    plt.close(fig)


def test_post_crawford_lines():
    ax = post_crawford(load())
    assert len(ax.lines) == 1
    plt.close(ax.figure)
    ax = post_crawford(mec(10, win_rate=0.6))
    assert len(ax.lines) == 2 and ax.get_legend() is not None
    plt.close(ax.figure)


def test_import_mathbg_does_not_load_matplotlib():
    code = "import sys, mathbg, mathbg.met; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
