"""Package layout that pyproject.toml cannot express: ship the top-level ``data/`` as package data.

The published tables stay in the repository's ``data/met`` (where users and gnubg find them);
the wheel and the sdist carry them inside the package as ``mathbg/_data/met/*.xml`` by mapping
the directory ``data/`` onto the package ``mathbg._data``. mathbg reads them with
``importlib.resources`` (``mathbg/_paths.py``). Everything else is in ``pyproject.toml``.
"""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["mathbg", "mathbg.*"]),
        "mathbg._data",
        "mathbg._data.met",
        "mathbg._data.matches",
        "mathbg._data.gnubg",
    ],
    package_dir={"mathbg._data": "data"},
    package_data={
        "mathbg": ["py.typed"],
        "mathbg._data": ["README.md"],
        "mathbg._data.met": ["*.xml", "README.md"],
        "mathbg._data.matches": ["*.txt", "README.md", "LICENSE.md"],
        "mathbg._data.gnubg": ["gnubg.wd", "race-backgammon.txt", "README.md"],
    },
    include_package_data=False,
)
