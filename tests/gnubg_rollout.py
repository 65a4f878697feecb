"""gnubg 1.07's cubeful rollout of one line at a match score (for the differential test of
issue 31 and ``benchmarks/bench_rollout.py``).

gnubg's ``rollout`` command rolls out the current position with its cube state; a cube
decision's two lines are two runs (no double: the cube as it is; double/take: the cube
doubled and owned by the opponent). gnubg prints the rollout's results only through its
progress output, which it shows only on a terminal (``fShowProgress = isatty(stdout)``), so
it runs under ``script`` (a pseudo-terminal). The final block after "Rollout done" gives
the five cubeless chances, the cubeless and cubeful MWC (``set output mwc on``) and their
standard errors. The CPU time is gnubg's whole process (``RUSAGE_CHILDREN`` around it).
"""

from __future__ import annotations

import re
import resource
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

_FINAL = "Rollout done"
_NUM = r"([-+]?\d+\.\d+)"
# MWC in per cent at a match score (``set output mwc on``), equity in money play
_VALUES = re.compile(
    rf"^\s*{_NUM} {_NUM} {_NUM} - {_NUM} {_NUM} {_NUM} CL\s+{_NUM}%? CF\s+{_NUM}%?", re.M
)
_ERRORS = re.compile(
    rf"^\s*\[{_NUM} {_NUM} {_NUM} - {_NUM} {_NUM} {_NUM} CL\s+{_NUM}%? CF\s+{_NUM}%?\]", re.M
)


@dataclass(frozen=True)
class GnubgLine:
    """One line of gnubg's rollout: the cubeful MWC (money: equity) of the side on roll
    with its standard error, the cubeless chances (W, WG, WB, LG, LB), the trials and
    gnubg's CPU seconds."""

    mwc: float
    stderr: float
    chances: tuple[float, ...]
    trials: int
    cpu: float


def gnubg_rollout_line(
    gnubg: Path,
    position_id: str,
    away: tuple[int, int] | None,
    *,
    cube: int = 1,
    owner: str = "centre",
    trials: int = 72,
    seed: int = 1,
    plies: int = 0,
    variance_reduction: bool = True,
    met: str = "/usr/share/gnubg/met/Kazaross-XG2.xml",
    timeout: float = 3600,
    jacoby: bool = True,
    beavers: bool = True,
) -> GnubgLine:
    """Roll one line out with gnubg (one thread, checker play and cube decisions at
    ``plies``, no truncation, no later evaluations), player ``gnubg`` on roll at ``away``
    (None: a money session with the Jacoby rule and beavers as given)."""
    if shutil.which("script") is None:  # pragma: no cover
        raise RuntimeError("gnubg's rollout output needs `script` (util-linux) for a terminal")
    owners = {"centre": "centre", "player": "gnubg", "opponent": "root"}
    if away is None:
        cmds = ["set threads 1", "set player gnubg human", "new session",
                f"set jacoby {'on' if jacoby else 'off'}", f"set beavers {3 if beavers else 0}",
                "set turn gnubg", f"set board {position_id}"]  # fmt: skip
    else:
        length = max(away) + 1
        cmds = [
            "set threads 1", f"set met {met}", "set output mwc on", "set player gnubg human",
            f"new match {length}", f"set score {length - away[0]} {length - away[1]}",
            "set turn gnubg", f"set board {position_id}",
        ]  # fmt: skip
    if cube != 1:
        cmds += [f"set cube value {cube}", f"set cube owner {owners[owner]}"]
    cmds += [
        f"set rollout trials {trials}", f"set rollout seed {seed}", "set rollout cubeful on",
        f"set rollout varredn {'on' if variance_reduction else 'off'}",
        "set rollout quasirandom on", "set rollout truncation enable off",
        "set rollout later enable off",
    ]  # fmt: skip
    for p in (0, 1):
        cmds += [f"set rollout player {p} chequerplay plies {plies}",
                 f"set rollout player {p} cubedecision plies {plies}"]  # fmt: skip
    cmds += ["rollout", "quit"]
    with tempfile.TemporaryDirectory(prefix="gnubg-rollout-") as home:
        script = Path(home) / "rollout.cmd"
        script.write_text("\n".join(cmds) + "\n")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(
            ["script", "-qfc", f"{gnubg} -t -q -r -c {script}", "/dev/null"],
            capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
            env={"HOME": home, "PATH": "/usr/bin:/bin"}, check=False,
        )  # fmt: skip
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    out = proc.stdout.replace("\r", "")
    if _FINAL not in out:
        raise RuntimeError(f"gnubg's rollout printed no result: {out[-2000:]}")
    tail = out[out.index(_FINAL) :]
    values, errors = _VALUES.search(tail), _ERRORS.search(tail)
    games = re.search(r"^(\d+) games,", tail, re.M)
    if values is None or errors is None or games is None:
        raise RuntimeError(f"cannot read gnubg's rollout result: {tail[:2000]}")
    v = [float(x) for x in values.groups()]
    e = [float(x) for x in errors.groups()]
    chances = (v[0], v[1], v[2], v[4], v[5])
    scale = 1.0 if away is None else 100.0
    return GnubgLine(v[7] / scale, e[7] / scale, chances, int(games.group(1)), cpu)
