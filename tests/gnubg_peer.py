"""Running GNU Backgammon (gnubg), the reference peer, from the tests.

Debian's ``gnubg`` package installs the programs to ``/usr/games`` and the data
(``gnubg_os0.bd``, ``met/*.xml``) to ``/usr/share/gnubg``; the two-sided database
``gnubg_ts0.bd`` is generated at install time into ``/var/lib/gnubg``. gnubg wants a
writable ``$HOME``: every run gets a fresh temporary one.

Tests use the ``gnubg`` fixture (see ``conftest.py``): it skips with a clear reason when
gnubg is absent, and fails instead when ``MATHBG_REQUIRE_GNUBG=1`` (as ``.ci/run`` sets),
so CI can never silently skip a differential test.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mathbg.analysis.gnubg_program import run_gnubg_script
from mathbg.cube.decisions import CubeAction

GAMES_DIR = Path("/usr/games")
SHARE_DIR = Path("/usr/share/gnubg")
VAR_DIR = Path("/var/lib/gnubg")

#: How far gnubg 1.07.001's multi-ply evaluations (2-ply and deeper, with pruning) may
#: differ between machines, in a probability: they are not bit-reproducible across
#: processors (measured on two x86-64 machines, one with AVX-512 and FMA: up to 2.9e-4 at
#: 2-ply and 3.2e-4 at 3-ply in win chance over 100 long races), while its 0-ply network
#: outputs are. A multi-ply value gnubg once printed is compared to this, never tighter.
GNUBG_MULTIPLY_SPREAD = 1e-3

#: gnubg's cube recommendation texts (``cfevaluate``, beavers off) by mathbg's action.
GNUBG_CUBE_ACTIONS = {
    "No double, take": CubeAction.NO_DOUBLE_TAKE,
    "No redouble, take": CubeAction.NO_DOUBLE_TAKE,
    "Double, take": CubeAction.DOUBLE_TAKE,
    "Redouble, take": CubeAction.DOUBLE_TAKE,
    "Optional double, take": CubeAction.DOUBLE_TAKE,
    "Optional redouble, take": CubeAction.DOUBLE_TAKE,
    "Double, pass": CubeAction.DOUBLE_PASS,
    "Redouble, pass": CubeAction.DOUBLE_PASS,
    "Optional double, pass": CubeAction.DOUBLE_PASS,
    "Optional redouble, pass": CubeAction.DOUBLE_PASS,
    "Too good to double, pass": CubeAction.TOO_GOOD_PASS,
    "Too good to redouble, pass": CubeAction.TOO_GOOD_PASS,
    "Too good to double, take": CubeAction.TOO_GOOD_TAKE,
    "Too good to redouble, take": CubeAction.TOO_GOOD_TAKE,
    "Never double, take (dead cube)": CubeAction.NOT_AVAILABLE,
    "Never redouble, take (dead cube)": CubeAction.NOT_AVAILABLE,
}


def _which(name: str) -> Path | None:
    found = shutil.which(name)
    if found:
        return Path(found)
    candidate = GAMES_DIR / name
    return candidate if candidate.exists() else None


@dataclass(frozen=True)
class GnubgPeer:
    """Paths to an installed gnubg and helpers to run it."""

    gnubg: Path
    makebearoff: Path | None
    share_dir: Path

    @property
    def makehyper(self) -> Path | None:
        """gnubg's Hypergammon database generator (``makehyper``), if installed."""
        return _which("makehyper")

    @property
    def met_dir(self) -> Path:
        return self.share_dir / "met"

    @property
    def os_db(self) -> Path:
        """The shipped one-sided database (6 points, 15 checkers, gammon distributions)."""
        return self.share_dir / "gnubg_os0.bd"

    @property
    def ts_db(self) -> Path:
        """The two-sided 6x6 database generated at package install time."""
        for d in (VAR_DIR, self.share_dir):
            if (d / "gnubg_ts0.bd").exists():
                return d / "gnubg_ts0.bd"
        return VAR_DIR / "gnubg_ts0.bd"

    def _run(self, flag: str, text: str, suffix: str, timeout: float) -> str:
        with tempfile.TemporaryDirectory(prefix="gnubg-home-") as home:
            script = Path(home) / f"script{suffix}"
            script.write_text(text)
            proc = run_gnubg_script(self.gnubg, flag, script, home, timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"gnubg failed ({proc.returncode}): {proc.stderr[-2000:]}")
        return proc.stdout

    def run_python(self, script: str, timeout: float = 600) -> str:
        """Run ``script`` in gnubg's embedded Python (``gnubg -t -q -r -p``); return stdout."""
        return self._run("-p", script, ".py", timeout)

    def run_commands(self, commands: list[str] | str, timeout: float = 600) -> str:
        """Run gnubg commands (``gnubg -t -q -r -c``); return stdout."""
        text = commands if isinstance(commands, str) else "\n".join(commands)
        return self._run("-c", text + "\n", ".cmd", timeout)


def find_peer() -> GnubgPeer | None:
    """The installed gnubg, or None."""
    gnubg = _which("gnubg")
    if gnubg is None:
        return None
    return GnubgPeer(gnubg=gnubg, makebearoff=_which("makebearoff"), share_dir=SHARE_DIR)
