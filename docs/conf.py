"""Sphinx configuration of the mathbg documentation site.

Build it with ``python -m sphinx -W -b html docs docs/_build/html`` (``pip install -e '.[docs]'``).
Every build regenerates the API pages (``docs/api/``, from each public module's ``__all__``)
and copies the notebooks (``docs/notebooks/``); both directories are ignored by git.
Notebooks are executed during the build (their outputs are not stored in git) unless
``MATHBG_DOCS_EXECUTE=0``; jupyter-cache keeps the results in ``docs/_build/.jupyter_cache``,
so a rebuild re-executes only changed notebooks.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE / "_ext"))

import mathbg_api  # noqa: E402

import mathbg  # noqa: E402

project = "mathbg"
author = "The mathbg team"
copyright = "the mathbg team, GPL-3.0-or-later"
release = version = mathbg.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
    "mathbg_cli",
]

# --- generated sources -----------------------------------------------------------------
mathbg_api.write_pages(HERE / "api")
_NB_DIR = HERE / "notebooks"
_NB_DIR.mkdir(exist_ok=True)
for _nb in sorted((REPO / "notebooks").glob("*.ipynb")):
    _dest = _NB_DIR / _nb.name
    if not _dest.exists() or _dest.read_bytes() != _nb.read_bytes():
        shutil.copyfile(_nb, _dest)

# --- sources ---------------------------------------------------------------------------
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "_ext", "**.ipynb_checkpoints", "make_figures.py"]
root_doc = "index"

# --- autodoc / autosummary / numpydoc --------------------------------------------------
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # numpydoc sections carry the types
autosummary_generate = False  # mathbg_api writes the pages
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
add_module_names = False
# numpydoc turns "References" sections into citations; module docstrings cite them without
# a [label]_ mark in the text, which is fine for a reference list
suppress_warnings = ["ref.citation"]

# --- notebooks (myst-nb) ---------------------------------------------------------------
nb_execution_mode = "off" if os.environ.get("MATHBG_DOCS_EXECUTE") == "0" else "cache"
nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
os.environ.setdefault("MPLBACKEND", "Agg")

# --- formulas (MathJax 4) --------------------------------------------------------------
# A display formula wider than the text column is broken into lines: by default MathJax
# lets it run past the column, where the theme cuts it at the edge (a scroll bar that
# overlay-scrollbar systems do not show). _static/mathbg.css scrolls what cannot be broken
# (and everything under Sphinx < 9, whose MathJax 3 cannot break lines).
mathjax4_config = {"output": {"displayOverflow": "linebreak"}}

# --- HTML ------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"mathbg {release}"
html_static_path = ["_static"]
html_css_files = ["mathbg.css"]  # display formulas fit the column (see the file)
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
