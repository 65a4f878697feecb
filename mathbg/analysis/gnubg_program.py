"""The ``gnubg`` engine: the GNU Backgammon program through its embedded Python.

One subprocess (``gnubg -t -q -r -p script.py`` with a fresh writable ``$HOME``) evaluates
a whole batch: for each board gnubg's cubeless ``evaluate`` at the requested plies and, for
each requested cube situation, its own cubeful decision (``cfevaluate``: optimal, no
double, double/take, double/pass as normalised equities, and the recommendation text).
The same runner is the reference peer of the tests and benchmarks.

At ``plies`` > 0 gnubg's own decision is its n-ply cubeful search, while the score matrix
applies the 0-ply cubeless -> cubeful transformation to the n-ply cubeless chances; at
0-ply the two are the same computation (the tests check every score of 5-, 7- and
11-point matrices). ``analyze(..., cube_eval="gnubg")`` takes gnubg's own search instead
(:func:`gnubg_action` names its recommendation in mathbg's words).

The evaluation context is gnubg's default for ``eval`` and ``hint`` (cubeful,
deterministic, pruning nets, no noise): in gnubg 1.07's Python module the arguments of
``evalcontext`` are ``(cubeful, plies, deterministic, prune, noise)``; with pruning off
the 2-ply numbers are not ``hint``'s.

Conventions of gnubg's Python module used here: a board is ``(side not on roll, side on
roll)`` (gnubg's ``TanBoard``), the side on roll is player 0 of ``cubeinfo`` and its score
comes first; the cube owner is -1 (centred), 0 (the side on roll) or 1; the Jacoby and
beaver settings of money play are set both globally (``set jacoby``, ``set beavers`` then
``new session``) and in each ``cubeinfo`` dict, whose ``jacoby``/``beavers`` fields
``gnubg.cubeinfo()`` does not fill from the global settings (without that, ``cfevaluate``
named "No double, take" where ``hint`` says "No double, beaver"). gnubg 1.07.001's
``cfevaluate`` costs about 10 ms a call, ``evaluate`` at 0-ply about 0.1 ms.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from mathbg._docstrings import shared_sections
from mathbg._validate import away_score
from mathbg.analysis.base import (
    BatchEvaluator,
    CubeSetting,
    EngineCubeDecision,
    EngineNotAvailableError,
    Evaluation,
    check_probabilities,
    evaluation_class,
    match_list,
)
from mathbg.cube.decisions import CubeAction
from mathbg.cube.life import cube_life
from mathbg.errors import InvalidParameterError, reason
from mathbg.rules.cube import CubeOwner

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position
    from mathbg.rules.record import MatchRecord

__all__ = [
    "GnubgDocument",
    "GnubgEvaluator",
    "GnubgSession",
    "Situation",
    "analyse_games",
    "analysis_threads",
    "find_gnubg",
    "gnubg_action",
    "gnubg_session",
    "gnubg_version",
    "keep_analysis",
    "kept_analysis",
    "kept_analysis_path",
    "run_gnubg",
    "run_gnubg_script",
    "situation_of",
]

#: A document in gnubg's own words, as its embedded Python gives it (``gnubg.match()``, the
#: answer to an evaluation job) or takes it (a job): gnubg's keys and nesting, not a mathbg
#: result (those are typed dataclasses).
GnubgDocument: TypeAlias = dict[str, Any]

#: gnubg's owner codes by mathbg's owner names.
OWNER_CODE = {CubeOwner.CENTRE: -1, CubeOwner.PLAYER: 0, CubeOwner.OPPONENT: 1}

_SCRIPT = r"""
import gnubg, json
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
job = json.load(open(%(job)r))
out = []
rules = None
for item in job["items"]:
    board = (list(item["board"][0]), list(item["board"][1]))
    ec = gnubg.evalcontext(1, job["plies"], 1, 1, 0.0)
    res = {"class": gnubg.classifypos(board, 0), "decisions": []}
    for s in [item["eval"]] + item["situations"]:
        key = (s["jacoby"], s["beavers"])
        if s["length"] == 0 and key != rules:
            gnubg.command("set jacoby " + ("on" if s["jacoby"] else "off"))
            gnubg.command("set beavers %%d" %% s["beavers"])
            gnubg.command("new session")
            rules = key
        ci = gnubg.cubeinfo(s["cube"], s["owner"], 0, s["length"], tuple(s["score"]),
                            s["crawford"], 0)
        if s["length"] == 0:  # cubeinfo() does not take the global money rules: set them
            ci["jacoby"] = int(s["jacoby"])
            ci["beavers"] = int(s["beavers"])
        if s is item["eval"]:
            res["probs"] = list(gnubg.evaluate(board, ci, ec)[:5])
            if not s["decide"]:
                continue
        cf = gnubg.cfevaluate(board, ci, ec)
        mwc = [gnubg.eq2mwc(v, ci) if s["length"] else v for v in cf[:4]]
        res["decisions"].append({"optimal": cf[0], "no_double": cf[1], "double_take": cf[2],
                                 "double_pass": cf[3], "code": cf[4], "text": cf[5],
                                 "mwc": mwc})
    out.append(res)
json.dump(out, open(%(out)r, "w"))
"""


#: gnubg's cube recommendation texts (``cfevaluate``, ``hint``), "redouble" read as "double"
#: and "Optional " dropped, by mathbg's action.
_GNUBG_ACTIONS = {
    "no double, take": CubeAction.NO_DOUBLE_TAKE,
    "no double, beaver": CubeAction.NO_DOUBLE_BEAVER,
    "double, take": CubeAction.DOUBLE_TAKE,
    "double, beaver": CubeAction.DOUBLE_BEAVER,
    "double, pass": CubeAction.DOUBLE_PASS,
    "too good to double, pass": CubeAction.TOO_GOOD_PASS,
    "too good to double, take": CubeAction.TOO_GOOD_TAKE,
    "too good to double, beaver": CubeAction.TOO_GOOD_TAKE,
    "never double, take (dead cube)": CubeAction.NOT_AVAILABLE,
    # gnubg's text for its NOT_AVAILABLE (the opponent owns the cube): no recommendation
    "unknown cube decision": CubeAction.NOT_AVAILABLE,
}


def gnubg_action(text: str) -> CubeAction:
    """mathbg's action for gnubg's cube recommendation ``text``.

    gnubg's "Optional double" (doubling and not doubling worth the same, as when the
    opponent's take is worth exactly the pass) is mathbg's double; the text itself names it.

    Parameters
    ----------
    text : str
        gnubg's recommendation, e.g. ``"Optional redouble, take"``.

    Returns
    -------
    CubeAction
        The action.

    Raises
    ------
    InvalidParameterError
        For a text gnubg does not print.

    Examples
    --------
    >>> str(gnubg_action("Optional redouble, pass"))
    'double, pass'
    """
    key = text.strip().lower().replace("redouble", "double").removeprefix("optional ")
    if key not in _GNUBG_ACTIONS:
        raise InvalidParameterError(f"unknown gnubg cube recommendation {text!r}")
    return _GNUBG_ACTIONS[key]


def find_gnubg() -> Path | None:
    """The gnubg program (on PATH or Debian's ``/usr/games/gnubg``), or None.

    Returns
    -------
    Path or None
        The program's path.

    Examples
    --------
    >>> path = find_gnubg()
    >>> path is None or path.name.startswith("gnubg")
    True
    """
    found = shutil.which("gnubg")
    if found:
        return Path(found)
    candidate = Path("/usr/games/gnubg")
    return candidate if candidate.exists() else None


@dataclass(frozen=True)
class Situation:
    """A cube situation for gnubg: match length (0 money), the roller's and the
    opponent's scores, the Crawford game, cube value and owner, money rules."""

    length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    cube: int = 1
    owner: CubeOwner = CubeOwner.CENTRE
    jacoby: bool = True
    beavers: bool = True

    def as_job(self, decide: bool = True) -> GnubgDocument:
        """The situation as the evaluation script reads it (gnubg's codes; ``decide``: ask
        for gnubg's own cubeful decision too)."""
        return {"length": self.length, "score": list(self.score), "crawford": int(self.crawford),
                "cube": self.cube, "owner": OWNER_CODE[self.owner], "jacoby": int(self.jacoby),
                "beavers": 3 if self.beavers else 0, "decide": decide}  # fmt: skip

    @classmethod
    def at(
        cls,
        length: int,
        away: tuple[int, int],
        *,
        crawford: bool = False,
        cube: int = 1,
        owner: CubeOwner | str = CubeOwner.CENTRE,
    ) -> Situation:
        """The situation at ``away`` = (roller's, opponent's) points to go in a match."""
        a, b = away_score(away)
        return cls(length, (length - a, length - b), crawford, cube,
                   CubeOwner.parse(owner))  # fmt: skip


def situation_of(match: MatchState | None) -> Situation:
    """The gnubg situation of a mathbg match state seen by the side on roll.

    Parameters
    ----------
    match : MatchState or None
        The match state (None: money, cube centred).

    Returns
    -------
    Situation
        Score, cube and Crawford flag as gnubg takes them.

    Examples
    --------
    >>> situation_of(None).as_job()["length"]
    0
    """
    if match is None:
        return Situation()
    me, opp = match.on_roll, 1 - match.on_roll
    owner = CubeOwner.of(match.cube_owner, me)
    return Situation(match.length, (match.score[me], match.score[opp]), bool(match.crawford),
                     match.cube, owner, bool(match.jacoby), True)  # fmt: skip


def run_gnubg_script(
    exe: str | Path, flag: str, script: Path, home: str | Path, timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run gnubg ``exe`` non-interactively on ``script`` (``flag`` ``"-p"``: its embedded
    Python, ``"-c"``: a command file), with ``home`` as ``$HOME`` and working directory and
    the C locale; gnubg needs a writable ``$HOME``. Returns the finished process (its exit
    code, stdout and stderr as text), whatever its exit code. Shared by :func:`run_gnubg`
    and the tests' reference peer.

    Parameters
    ----------
    exe : str or Path
        The gnubg program.
    flag : {"-p", "-c"}
        A Python script or a command file.
    script : Path
        The script.
    home : str or Path
        A writable directory for ``$HOME`` and the working directory.
    timeout : float
        Seconds before the process is killed.

    Returns
    -------
    subprocess.CompletedProcess
        The finished process.

    Raises
    ------
    subprocess.TimeoutExpired
        When gnubg runs longer than ``timeout``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> home = tempfile.mkdtemp()
    >>> script = pathlib.Path(home, "hello.py")
    >>> _ = script.write_text("print('hello')")
    >>> run_gnubg_script(find_gnubg(), "-p", script, home, 60).returncode  # doctest: +SKIP
    0
    """
    env = dict(os.environ, HOME=str(home), LANG="C", LC_ALL="C")
    return subprocess.run(
        [str(exe), "-t", "-q", "-r", flag, str(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=home,
        stdin=subprocess.DEVNULL,
    )


def run_gnubg(
    boards: Sequence[Any],
    situations: Sequence[Sequence[Situation]] | None = None,
    *,
    plies: int = 0,
    evaluate_at: Sequence[Situation] | None = None,
    timeout: float = 3600.0,
) -> list[GnubgDocument]:
    """Evaluate ``boards`` in one gnubg subprocess.

    Parameters
    ----------
    boards : sequence of (2, 25) boards
        gnubg ``TanBoard`` layout (side not on roll, side on roll).
    situations : sequence of sequences of Situation, optional
        Per board, the cube situations at which gnubg makes its own cubeful decision.
    plies : int
        gnubg's search depth for both.
    evaluate_at : sequence of Situation, optional
        Per board, the situation for the cubeless evaluation (default money, centred).
    timeout : float
        Seconds before gnubg is stopped.

    Returns
    -------
    list of dict
        Per board: ``probs`` (gnubg's five outputs), ``class`` (gnubg's position class) and
        ``decisions`` (per situation: ``optimal``, ``no_double``, ``double_take``,
        ``double_pass`` normalised equities, ``code`` and ``text`` of the recommendation).

    Raises
    ------
    EngineNotAvailableError
        When gnubg is missing, fails or times out.

    Examples
    --------
    >>> from mathbg.rules.position import Position
    >>> (out,) = run_gnubg([Position.initial().board])  # doctest: +SKIP
    >>> len(out["probs"])  # doctest: +SKIP
    5
    """
    exe = find_gnubg()
    if exe is None:
        raise EngineNotAvailableError(
            "the GNU Backgammon program is not installed: apt-get install gnubg "
            "(or put gnubg on PATH)"
        )
    n = len(boards)
    sits = list(situations) if situations is not None else [[] for _ in range(n)]
    evals = list(evaluate_at) if evaluate_at is not None else [Situation()] * n
    items = []
    for board, ss, ev in zip(boards, sits, evals, strict=True):
        rows = [[int(v) for v in row] for row in board]
        items.append({"board": rows, "eval": ev.as_job(decide=False),
                      "situations": [s.as_job() for s in ss]})  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="mathbg-gnubg-") as home:
        job, out = Path(home) / "job.json", Path(home) / "out.json"
        job.write_text(json.dumps({"plies": int(plies), "items": items}))
        script = Path(home) / "run.py"
        script.write_text(_SCRIPT % {"job": str(job), "out": str(out)})
        proc = run_gnubg_script(exe, "-p", script, home, timeout)
        if proc.returncode != 0 or not out.exists():
            tail = (proc.stderr or proc.stdout)[-500:].strip()
            raise EngineNotAvailableError(f"gnubg failed (exit {proc.returncode}): {tail}")
        return list(json.loads(out.read_text()))


class GnubgEvaluator(BatchEvaluator):
    """The GNU Backgammon program: its cubeless evaluation at ``plies`` and its own cubeful
    decision at each position's match state (money when none), in one subprocess."""

    name = "gnubg"

    def __init__(self, plies: int = 0, threads: int | None = None) -> None:
        if int(plies) < 0 or int(plies) > 4:
            raise InvalidParameterError(f"gnubg plies must be 0..4, got {plies}")
        if threads is not None and int(threads) < 1:
            raise InvalidParameterError(f"gnubg threads must be at least 1, got {threads}")
        self.plies: int | None = int(plies)
        #: gnubg's calculation threads when it analyses a whole match (:func:`analyse_games`;
        #: None: :func:`analysis_threads`).
        self.threads = None if threads is None else int(threads)
        if find_gnubg() is None:
            raise EngineNotAvailableError(
                "the GNU Backgammon program is not installed: apt-get install gnubg"
            )

    def evaluate_many(
        self, positions: Sequence[Position], matches: Sequence[MatchState | None] | None = None
    ) -> list[Evaluation]:
        """gnubg's cubeless chances of every position and its own cubeful decision at each
        one's match state, in one gnubg process (:func:`run_gnubg`)."""
        ms = match_list(positions, matches)
        sits = [situation_of(m) for m in ms]
        raw = run_gnubg([p.board for p in positions], [[s] for s in sits],
                        plies=self.plies or 0, evaluate_at=sits)  # fmt: skip
        out = []
        for pos, r, sit in zip(positions, raw, sits, strict=True):
            klass = evaluation_class(pos)
            dec = dict(r["decisions"][0]) if r["decisions"] else None
            if dec is not None:  # the rules the reference was evaluated under (its label)
                dec["rules"] = {"length": sit.length, "jacoby": sit.jacoby, "beavers": sit.beavers}
            out.append(Evaluation(check_probabilities(r["probs"]), self.name, self.plies, klass,
                                  cube_life(klass, pos.pips()[0]), method="gnubg 1.07 evaluate",
                                  gnubg=dec))  # fmt: skip
        return out

    #: gnubg's own cube decisions use its default table, whatever a caller's ``met`` says.
    cube_met = "gnubg's default (kazaross-xg2)"

    def cube_decisions(
        self, positions: Sequence[Position], settings: Sequence[Sequence[CubeSetting]]
    ) -> list[list[EngineCubeDecision]]:
        """gnubg's own ``plies``-ply cubeful decision (its ``hint``) of every position at
        each of its settings, in one gnubg process (:func:`run_gnubg`)."""
        sits = [[_situation(s) for s in row] for row in settings]
        raw = run_gnubg([p.board for p in positions], sits, plies=self.plies or 0)
        return [[_decision(d) for d in r["decisions"]] for r in raw]

    def analyse_match(self, record: MatchRecord, *, statistics: bool = False,
                      progress: bool | None = None, disk_cache: bool = False,
                      checker: bool = True) -> GnubgDocument:  # fmt: skip
        """gnubg's own analysis of a whole match at this engine's plies: the
        ``gnubg.match()`` dictionary with every move record's analysis.

        gnubg analyses one game after another (``analyse game``) with :attr:`threads`
        calculation threads, in the shared long-lived process (:func:`analyse_games`); with
        ``statistics`` it runs ``analyse match``, whose statistics cover the whole match.

        Parameters
        ----------
        record : MatchRecord
            The match (given to gnubg as ``.mat`` text).
        statistics : bool
            Also gnubg's ``show statistics match`` text of the analysis (key
            ``"statistics"``).
        progress : bool, optional
            A progress bar over the rolls analysed (default: when the output is a terminal).
        disk_cache : bool
            Keep the analysis in mathbg's cache directory and read it from there when the
            same match is analysed again at these plies (:func:`analyse_games`; not with
            ``statistics``).
        checker : bool
            Analyse the checker play and luck too (default); False: the cube decisions
            only, which gnubg values as it does in the whole analysis, in a fraction of
            the time (:func:`analyse_games`; not with ``statistics``).

        Returns
        -------
        dict
        """
        from mathbg.rules.formats import render_match
        from mathbg.rules.record import Move

        text = render_match(record, "mat")
        if statistics:
            return gnubg_session().analyse(text, plies=self.plies or 0, statistics=True)
        rolls = [sum(isinstance(a, Move) for a in g.actions) for g in record.games]
        return analyse_games(text, rolls, plies=self.plies or 0, threads=self.threads,
                             progress=progress, disk_cache=disk_cache,
                             checker=checker)  # fmt: skip


# ----------------------------------------------------------------------------- whole matches

_SERVER = r"""
import gnubg, json, os
fin = os.fdopen(int(os.environ["MATHBG_GNUBG_IN"]), "r")
fout = os.fdopen(int(os.environ["MATHBG_GNUBG_OUT"]), "w")
for cmd in ("set player 0 human", "set player 1 human", "set confirm new off",
            "set automatic game off", "set automatic roll off"):
    gnubg.command(cmd)
def conv(o):
    if isinstance(o, dict):
        return {str(k): conv(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [conv(v) for v in o]
    return o if isinstance(o, (int, float, str, type(None))) else str(o)
plies = loaded = None
threads = 1
moves = True
for line in fin:
    job = json.loads(line)
    try:
        if job.get("moves", moves) != moves:  # the checker play and luck, or the cube only
            moves = job["moves"]
            gnubg.command("set analysis moves %s" % ("on" if moves else "off"))
            gnubg.command("set analysis luck %s" % ("on" if moves else "off"))
        if job["plies"] != plies:
            plies = job["plies"]
            for what in ("chequerplay", "cubedecision"):
                gnubg.command("set analysis %s evaluation plies %d" % (what, plies))
                gnubg.command("set analysis %s evaluation prune on" % what)
        if job.get("threads", 1) != threads:
            threads = job.get("threads", 1)
            gnubg.command("set threads %d" % threads)
        part = "game" in job or "export" in job
        if not part or job["path"] != loaded:
            gnubg.command("import mat " + job["path"])
            loaded = job["path"] if part else None
        if "game" in job:  # one game of the match loaded: the k-th (from 0)
            gnubg.command("first game")
            if job["game"]:
                gnubg.command("next game %d" % job["game"])
            gnubg.command("analyse game")
            fout.write(json.dumps({"ok": True}) + "\n")
            fout.flush()
            continue
        if not part:
            gnubg.command("analyse match")
        out = {"ok": True, "match": gnubg.match(analysis=1, boards=1, statistics=0, verbose=0)}
        if job.get("statistics"):  # gnubg's own text, printed to a file
            import sys
            sys.stdout.flush()
            saved = os.dup(1)
            fd = os.open(job["statistics"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 1)
            try:
                gnubg.command("show statistics match")
            finally:
                os.dup2(saved, 1)
                os.close(fd)
                os.close(saved)
    except Exception as exc:  # the request's error, the process goes on
        out = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}
    try:  # gnubg's dictionaries hold JSON's types (a copy only when they do not)
        text = json.dumps(out)
    except (TypeError, ValueError):
        text = json.dumps(conv(out))
    fout.write(text + "\n")
    fout.flush()
"""


def gnubg_version() -> str | None:
    """The version of the installed gnubg program (``gnubg --version``), or None.

    Returns
    -------
    str or None
        E.g. ``"1.07.001"``.

    Examples
    --------
    >>> v = gnubg_version()
    >>> v is None or v[0].isdigit()
    True
    """
    global _VERSION
    if _VERSION is not None:
        return _VERSION or None
    exe = find_gnubg()
    if exe is None:
        return None
    with tempfile.TemporaryDirectory(prefix="mathbg-gnubg-") as home:
        env = dict(os.environ, HOME=home, LANG="C", LC_ALL="C")
        try:
            out = subprocess.run([str(exe), "--version"], capture_output=True, text=True,
                                 timeout=60, env=env, stdin=subprocess.DEVNULL).stdout
        except (OSError, subprocess.TimeoutExpired):  # pragma: no cover
            out = ""
    words = out.split()
    _VERSION = words[2] if len(words) > 2 and words[:2] == ["GNU", "Backgammon"] else ""
    return _VERSION or None


_VERSION: str | None = None


class GnubgSession:
    """One long-lived gnubg process that analyses whole matches fed to it one by one: for
    each, ``import mat``, ``analyse match`` at the session's plies and ``gnubg.match()``
    with the analysis, in one call (so the process never idles between positions).

    Parameters
    ----------
    timeout : float
        Seconds a match may take before the process is stopped.

    Examples
    --------
    >>> from mathbg.rules.formats import render_match
    >>> from mathbg.rules.formats.example import example_match
    >>> with GnubgSession() as gnubg:  # doctest: +SKIP
    ...     analysis = gnubg.analyse(render_match(example_match(), "mat"), plies=0)
    >>> len(analysis["games"])  # doctest: +SKIP
    2
    """

    def __init__(self, timeout: float = 3600.0) -> None:
        exe = find_gnubg()
        if exe is None:
            raise EngineNotAvailableError(
                "the GNU Backgammon program is not installed: apt-get install gnubg"
            )
        self.timeout = timeout
        self._home = tempfile.TemporaryDirectory(prefix="mathbg-gnubg-")
        home = self._home.name
        Path(home, "server.py").write_text(_SERVER)
        to_gnubg, self._ask = os.pipe()
        self._answer, from_gnubg = os.pipe()
        env = dict(os.environ, HOME=home, LANG="C", LC_ALL="C",
                   MATHBG_GNUBG_IN=str(to_gnubg), MATHBG_GNUBG_OUT=str(from_gnubg))  # fmt: skip
        self._proc = subprocess.Popen(
            [str(exe), "-t", "-q", "-r", "-p", str(Path(home, "server.py"))],
            pass_fds=(to_gnubg, from_gnubg), env=env, cwd=home, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        os.close(to_gnubg)
        os.close(from_gnubg)
        self._write = os.fdopen(self._ask, "w")
        self._read = os.fdopen(self._answer, "r")
        self._count = 0

    def analyse(self, mat_text: str, plies: int = 0, *, statistics: bool = False
                ) -> GnubgDocument:  # fmt: skip
        """gnubg's ``gnubg.match()`` dictionary of a ``.mat`` text after ``analyse match``.

        Parameters
        ----------
        mat_text : str
            The match as a Jellyfish ``.mat`` text.
        plies : int
            gnubg's analysis plies (chequer play and cube).
        statistics : bool
            Also return gnubg's ``show statistics match`` text of this analysis (key
            ``"statistics"``).

        Returns
        -------
        dict

        Raises
        ------
        EngineNotAvailableError
            When gnubg fails or stops.
        """
        path = self.load(mat_text)
        text = path.with_suffix(".txt")
        job: GnubgDocument = {"path": str(path), "plies": int(plies), "moves": True}
        if statistics:
            job["statistics"] = str(text)
        try:
            out = dict(self._job(job)["match"])
        finally:
            path.unlink(missing_ok=True)
        if statistics:
            out["statistics"] = text.read_text() if text.exists() else ""
            text.unlink(missing_ok=True)
        return out

    def load(self, mat_text: str) -> Path:
        """A new file of the session holding ``mat_text`` (its jobs name it; the caller
        removes it)."""
        self._count += 1
        path = Path(self._home.name, f"match{self._count}.mat")
        path.write_text(mat_text)
        return path

    def analyse_game(self, path: Path, game: int, plies: int = 0, threads: int = 1,
                     checker: bool = True) -> None:  # fmt: skip
        """gnubg's ``analyse game`` of the ``game``-th game (from 0) of the match file
        ``path`` (:meth:`load`; imported once for all its games) with ``threads``
        calculation threads, kept in the process for :meth:`export`; without ``checker``
        the cube decisions only (``set analysis moves off``, ``set analysis luck off``)."""
        self._job({"path": str(path), "plies": int(plies), "game": int(game),
                   "threads": int(threads), "moves": bool(checker)})  # fmt: skip

    def export(self, path: Path, plies: int = 0) -> GnubgDocument:
        """gnubg's ``gnubg.match()`` dictionary of the match file ``path`` as this process
        holds it: the games :meth:`analyse_game` analysed carry their analysis."""
        return dict(self._job({"path": str(path), "plies": int(plies), "export": True})["match"])

    def _job(self, job: GnubgDocument) -> GnubgDocument:
        """Send one job, return gnubg's answer (raises when it failed or gnubg stopped)."""
        try:
            self._write.write(json.dumps(job) + "\n")
            self._write.flush()
            line = self._read.readline()
        except OSError as exc:  # pragma: no cover - the process died
            raise EngineNotAvailableError(f"gnubg stopped: {exc}") from None
        except BaseException:  # e.g. an interrupt: this job's answer would reach the next
            self._proc.kill()  # so the process goes (the next job starts a new one)
            self._proc.wait()
            raise
        if not line:
            tail = (self._proc.stderr.read() if self._proc.stderr else "")[-500:].strip()
            raise EngineNotAvailableError(f"gnubg stopped (exit {self._proc.poll()}): {tail}")
        answer: GnubgDocument = json.loads(line)
        if not answer.get("ok"):
            raise EngineNotAvailableError(f"gnubg could not analyse the match: {answer['error']}")
        return answer

    def close(self) -> None:
        """Stop the process (it ends when its input closes)."""
        if self._proc.poll() is None:
            try:
                self._write.close()
                self._proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):  # pragma: no cover
                self._proc.kill()
        self._read.close()
        if self._proc.stderr is not None:
            self._proc.stderr.close()
        self._home.cleanup()

    def __enter__(self) -> GnubgSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_SESSION: GnubgSession | None = None


def gnubg_session() -> GnubgSession:
    """The process's shared :class:`GnubgSession` (started on first use, stopped at exit).

    Returns
    -------
    GnubgSession

    Examples
    --------
    >>> gnubg_session() is gnubg_session()  # doctest: +SKIP
    True
    """
    global _SESSION
    if _SESSION is None or _SESSION._proc.poll() is not None:
        import atexit

        _SESSION = GnubgSession()
        atexit.register(_SESSION.close)
    return _SESSION


def analysis_threads(plies: int = 1) -> int:
    """gnubg's calculation threads for a match by default: one per CPU this process may
    run on, but one at 0 plies (a move's work is too small to share: a 13-point match
    took more CPU and more wall time with two threads than with one) and one inside a Dask
    worker (its cluster already runs a task per core).

    Parameters
    ----------
    plies : int
        The analysis plies.

    Returns
    -------
    int

    Examples
    --------
    >>> analysis_threads(0)
    1
    >>> analysis_threads(2) >= 1
    True
    """
    if not plies:
        return 1
    if "distributed" in sys.modules:  # only then can this be a Dask worker
        from distributed import get_worker

        try:
            get_worker()
            return 1
        except ValueError:
            pass
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)  # pragma: no cover - not Linux


def analyse_games(
    mat_text: str, rolls: Sequence[int], plies: int = 0, threads: int | None = None,
    progress: bool | None = None, disk_cache: bool = False, checker: bool = True,
) -> GnubgDocument:  # fmt: skip
    """gnubg's analysis of a whole match, game by game, with its calculation threads.

    The shared process (:func:`gnubg_session`) imports the match once, runs ``analyse
    game`` on each game in turn with ``set threads`` (gnubg shares a game's moves among its
    threads, one evaluation cache for all) and exports the match (``gnubg.match()``). A
    game's analysis depends on nothing outside the game (its score comes with it), so the
    document is the one ``analyse match`` gives with one thread (the tests compare them),
    and the games are the progress bar's steps.

    Parameters
    ----------
    mat_text : str
        The match as a Jellyfish ``.mat`` text.
    rolls : sequence of int
        The rolls of each game (the progress counted).
    plies : int
        gnubg's analysis plies (chequer play and cube).
    threads : int, optional
        gnubg's calculation threads (default :func:`analysis_threads`: one per CPU at 1
        ply or more).
    progress : bool, optional
        A progress bar over the rolls analysed (default: when the output is a terminal).
    disk_cache : bool
        Read the analysis kept in mathbg's cache directory when there is one
        (:func:`kept_analysis`: the same match text, plies and gnubg program), else keep
        this one there (:func:`keep_analysis`): a match analysed again, or a corpus run
        killed and run again, costs gnubg nothing for the matches already analysed.
    checker : bool
        Analyse the checker play and luck too (default). False: the cube decisions only
        (gnubg's ``set analysis moves off`` and ``set analysis luck off``): gnubg values
        each cube decision as in the whole analysis (the same numbers, tested), for
        about a fifteenth of the CPU at 2 plies; a whole analysis kept serves it too.

    Returns
    -------
    dict
        gnubg's ``gnubg.match()`` dictionary with every move record's analysis (without
        ``checker`` its cube analyses only, unless a whole analysis was kept).

    Raises
    ------
    EngineNotAvailableError
        When gnubg fails, stops, or reads a different number of games.

    Examples
    --------
    >>> from mathbg.rules.formats import render_match
    >>> from mathbg.rules.formats.example import example_match
    >>> rec = example_match()
    >>> doc = analyse_games(render_match(rec, "mat"), [len(g.actions) for g in rec.games],
    ...                     threads=2)  # doctest: +SKIP
    >>> len(doc["games"])  # doctest: +SKIP
    2
    """
    from tqdm.auto import tqdm

    if disk_cache:
        for whole in (True,) if checker else (False, True):  # a whole analysis serves both
            kept = kept_analysis(mat_text, plies, checker=whole)
            if kept is not None and len(kept["games"]) == len(rolls):
                return kept
    session = gnubg_session()
    count = max(1, threads or analysis_threads(plies))
    path = session.load(mat_text)
    what = "analysis" if checker else "cube analysis"
    bar = tqdm(total=sum(rolls), desc=f"gnubg {plies}-ply {what}", unit="roll",
               disable=None if progress is None else not progress, leave=False)  # fmt: skip
    try:
        for game, n in enumerate(rolls):
            session.analyse_game(path, game, plies, count, checker)
            bar.update(n)
        out = session.export(path, plies)
    finally:
        path.unlink(missing_ok=True)
        bar.close()
    if len(out.get("games") or []) != len(rolls):
        raise EngineNotAvailableError(f"gnubg read {len(out.get('games') or [])} games of the "
                                      f"match, mathbg {len(rolls)}")  # fmt: skip
    if disk_cache:
        keep_analysis(mat_text, plies, out, checker=checker)
    return out


# ----------------------------------------------------------------------------- kept analyses

#: The layout of a kept analysis (part of its identity: another layout is analysed again).
KEPT_FORMAT = 1

_KEPT_PARAMETERS = """
Parameters
----------
mat_text : str
    The match as a Jellyfish ``.mat`` text.
plies : int
    gnubg's analysis plies.
"""

_KEPT_CHECKER = """
checker : bool
    The whole analysis (default), or (False) the cube decisions only.
"""


def _kept_identity(mat_text: str, plies: int, checker: bool = True) -> str | None:
    """What a kept analysis is the analysis of: the match text, the plies, the gnubg
    program (its version, size and modification time) and the server that drove it (its
    digest); None when gnubg's version is unknown (nothing is kept then)."""
    exe, version = find_gnubg(), gnubg_version()
    if exe is None or version is None:
        return None
    st = exe.stat()
    digest = hashlib.sha256(mat_text.encode()).hexdigest()
    server = hashlib.sha256(_SERVER.encode()).hexdigest()[:16]
    what = "" if checker else " cube-only"
    return (f"mathbg-gnubg-analysis v{KEPT_FORMAT} gnubg={version} program={st.st_size}:"
            f"{st.st_mtime_ns} server={server} plies={int(plies)}{what} "
            f"match={digest}")  # fmt: skip


@shared_sections(kept_parameters=_KEPT_PARAMETERS, kept_checker=_KEPT_CHECKER)
def kept_analysis_path(mat_text: str, plies: int, *, checker: bool = True) -> Path | None:
    """The file in mathbg's cache directory that keeps gnubg's analysis of a match at
    ``plies`` (``gnubg/analysis-<plies>ply-<digest>.json.gz``, the cube-only analysis
    ``analysis-<plies>ply-cube-<digest>.json.gz``; ``$MATHBG_DATA`` wins), or None when
    the installed gnubg cannot be identified.

    {kept_parameters}
    {kept_checker}

    Returns
    -------
    Path or None

    Examples
    --------
    >>> from mathbg.rules.formats import render_match
    >>> from mathbg.rules.formats.example import example_match
    >>> TEXT = render_match(example_match(), "mat")
    >>> path = kept_analysis_path(TEXT, 2)
    >>> path is None or path.name.startswith("analysis-2ply-")
    True
    """
    kept = _kept(mat_text, plies, checker)
    return None if kept is None else kept[0]


def _kept(mat_text: str, plies: int, checker: bool = True) -> tuple[Path, str] | None:
    """The kept file's path and identity (None: gnubg unidentified)."""
    from mathbg._paths import cache_dir

    identity = _kept_identity(mat_text, plies, checker)
    if identity is None:
        return None
    key = hashlib.sha256(identity.encode()).hexdigest()[:32]
    what = "" if checker else "-cube"
    return cache_dir("gnubg") / f"analysis-{int(plies)}ply{what}-{key}.json.gz", identity


def _read_kept(path: Path, identity: str) -> GnubgDocument:
    """The document a kept file holds; raises when any check fails: the file is gzip
    (its CRC), its first line is ``identity`` (another match, plies or gnubg fails) and
    its second line the SHA-256 of the document's text."""
    import gzip

    head, digest, text = gzip.decompress(path.read_bytes()).decode().split("\n", 2)
    if head != identity:
        raise ValueError("another match, plies or gnubg")
    if hashlib.sha256(text.encode()).hexdigest() != digest:
        raise ValueError("checksum mismatch")
    doc = json.loads(text)
    if not isinstance(doc, dict) or not isinstance(doc.get("games"), list):
        raise ValueError("not gnubg's match document")
    return doc


def _warn(message: str) -> None:
    import warnings

    from mathbg.errors import MathbgWarning

    warnings.warn(message, MathbgWarning, stacklevel=4)


@shared_sections(kept_parameters=_KEPT_PARAMETERS, kept_checker=_KEPT_CHECKER)
def kept_analysis(mat_text: str, plies: int, *, checker: bool = True) -> GnubgDocument | None:
    """gnubg's analysis of the match at ``plies`` as :func:`keep_analysis` kept it, or None:
    none kept, or (with a one-line warning) a file that fails its checks, which is never
    served.

    {kept_parameters}
    {kept_checker}

    Returns
    -------
    dict or None

    Examples
    --------
    >>> kept_analysis("not a match gnubg analysed", 0) is None
    True
    """
    try:
        kept = _kept(mat_text, plies, checker)
    except OSError:  # no cache directory can be made: keep_analysis says so
        return None
    if kept is None or not kept[0].exists():
        return None
    path, identity = kept
    try:
        return _read_kept(path, identity)
    except Exception as exc:  # any damage means: analyse again
        why = reason(exc)
        _warn(f"{path}: damaged kept analysis ({why}); analysing again")
        return None


@shared_sections(kept_parameters=_KEPT_PARAMETERS, kept_checker=_KEPT_CHECKER)
def keep_analysis(mat_text: str, plies: int, document: GnubgDocument, *,
                  checker: bool = True) -> Path | None:  # fmt: skip
    """Keep gnubg's analysis of a match in mathbg's cache directory (atomic: a temporary
    file renamed into place), best effort: a file that cannot be written (no space, a
    read-only directory) is a one-line warning.

    {kept_parameters}
    document : dict
        gnubg's ``gnubg.match()`` dictionary of the analysis.
    {kept_checker}

    Returns
    -------
    Path or None
        The file written (None when nothing was).

    Examples
    --------
    >>> with GnubgSession() as gnubg:  # doctest: +SKIP
    ...     doc = gnubg.analyse(TEXT, plies=2)
    >>> keep_analysis(TEXT, 2, doc) == kept_analysis_path(TEXT, 2)  # doctest: +SKIP
    True
    """
    import gzip

    from mathbg import _files
    from mathbg.errors import ResourceError

    text = json.dumps(document)
    digest = hashlib.sha256(text.encode()).hexdigest()
    path: Path | str = "mathbg's cache directory"
    try:
        kept = _kept(mat_text, plies, checker)
        if kept is None:
            return None
        path, identity = kept
        data = gzip.compress(f"{identity}\n{digest}\n{text}".encode(), compresslevel=1,
                             mtime=0)  # fmt: skip
        with _files.atomic_file(path, what="kept gnubg analysis",
                                is_same_kind=lambda p: p.name.endswith(".json.gz"),
                                force=True, needed_bytes=len(data) + 4096) as tmp:  # fmt: skip
            tmp.write_bytes(data)
    except (ResourceError, OSError) as exc:
        why = reason(exc)
        _warn(f"{path}: analysis not kept ({why})")
        return None
    return path


def _situation(setting: CubeSetting) -> Situation:
    if setting.away is None or setting.length is None:
        return Situation(cube=setting.cube, owner=CubeOwner.parse(setting.owner),
                         jacoby=setting.jacoby, beavers=setting.beavers)  # fmt: skip
    return Situation.at(setting.length, setting.away, crawford=setting.crawford,
                        cube=setting.cube, owner=setting.owner)  # fmt: skip


def _decision(dec: GnubgDocument) -> EngineCubeDecision:
    opt, nd, dt, dp = (float(v) for v in dec["mwc"])
    return EngineCubeDecision(str(dec["text"]), gnubg_action(str(dec["text"])), opt, nd, dt, dp,
                              float(dec["no_double"]), float(dec["double_take"]),
                              float(dec["double_pass"]))  # fmt: skip
