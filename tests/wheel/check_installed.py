"""Check an installed (non-editable) mathbg, run from outside the checkout.

Run by ``.ci/wheel_check.sh`` with the virtual environment's Python::

    python check_installed.py REPO_ROOT

It checks that mathbg was imported from the installation (not the checkout), that every
shipped table is carried as package data, byte-identical to the repository's ``data/met``
file, is listed by the catalogue and loads; that generated data goes to
``$XDG_CACHE_HOME/mathbg`` when ``MATHBG_DATA`` is unset and to ``$MATHBG_DATA`` when set; and
that nothing was written into the checkout. Prints one line per check; exits 1 on a failure.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main(repo: Path) -> int:
    import mathbg
    from mathbg import _paths
    from mathbg.met import available, load
    from mathbg.met.published import TABLES

    failures: list[str] = []

    def check(ok: bool, what: str) -> None:
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    installed = Path(mathbg.__file__).resolve().parent
    check(repo not in installed.parents, f"mathbg imported from the installation ({installed})")
    check(_paths.checkout_data_dir() is None, "the installation is not taken for a checkout")

    shipped = _paths.published_files("met")
    repo_tables = {p.stem: p for p in sorted((repo / "data" / "met").glob("*.xml"))}
    check(set(shipped) == set(repo_tables), f"package data holds every table ({len(shipped)})")
    check(sorted(available()) == sorted(TABLES), "the catalogue lists every shipped table")
    for key, path in repo_tables.items():
        item = shipped.get(key)
        same = item is not None and item.read_bytes() == path.read_bytes()
        check(same, f"{key}.xml equals the repository's data/met/{key}.xml")
        met = load(key)
        check(met.length == TABLES[key].length, f"load({key!r}) gives a {met.length}-point table")

    xdg = os.environ.get("XDG_CACHE_HOME")
    saved = os.environ.pop("MATHBG_DATA", None)
    try:
        if xdg and sys.platform.startswith("linux"):
            where = _paths.cache_dir("bearoff")
            check(
                where == Path(xdg) / "mathbg" / "bearoff",
                f"XDG_CACHE_HOME honoured: cache_dir('bearoff') = {where}",
            )
        other = Path(xdg or "/tmp") / "explicit"
        os.environ["MATHBG_DATA"] = str(other)
        where = _paths.cache_dir("bearoff")
        check(where == other / "bearoff", f"MATHBG_DATA wins: cache_dir('bearoff') = {where}")
    finally:
        os.environ.pop("MATHBG_DATA", None)
        if saved is not None:
            os.environ["MATHBG_DATA"] = saved

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]).resolve()))
