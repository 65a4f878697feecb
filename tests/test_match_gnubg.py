"""Match files against gnubg 1.07: its import, its exports, and its IDs of every decision.

- gnubg imports a sample of the shared Galaxy matches (``import mat``) and exports each as
  ``.sgf`` (``save match``) and as its own ``.mat`` (``export match mat``): mathbg reads
  both back to the same record (same plays, cube actions and results).
- gnubg's ``export match text`` prints the Position ID and Match ID of every decision:
  mathbg's replay gives the same IDs, decision by decision.
- gnubg imports the ``.mat`` and ``.sgf`` files mathbg writes, and its IDs of every
  decision are again mathbg's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_match_reproducers import RESIGNED

from mathbg.rules import MatchRecord, Move, read_match, write_match
from mathbg.rules.record import Double

pytestmark = pytest.mark.gnubg(kind="exact")

DATA = Path(__file__).resolve().parent / "data" / "matches"
#: Matches whose results gnubg reads as the file says (the Galaxy quirks aside).
SAMPLE = ["match10014006.txt", "match10059423.txt", "match2516058.txt", "match10147827.txt"]

_BLOCK = re.compile(
    r"Move number \d+:\s+(?P<desc>[^\n]*)\n.*?"
    r"Position ID: (?P<pid>\S+)\n\s+Match ID\s+: (?P<mid>\S+)",
    re.S,
)


def gnubg_decisions(directory: Path) -> list[tuple[str, str, str]]:
    """(kind, Position ID, Match ID) of every decision in gnubg's text export of a match
    (one file per game: x.txt, x_002.txt, ...)."""
    files = sorted(directory.glob("x*.txt"), key=lambda p: (len(p.name), p.name))
    out = []
    for f in files:
        for m in _BLOCK.finditer(f.read_text()):
            desc = m.group("desc")
            if " to play " in desc:
                kind = "move"
            elif "cube decision" in desc:
                kind = "double"
            elif "doubles to" in desc:
                kind = "answer"
            else:
                continue  # resignations and the like: not decisions mathbg replays
            out.append((kind, m.group("pid"), m.group("mid")))
    return out


def mathbg_decisions(record: MatchRecord) -> list[tuple[str, str, str]]:
    out = []
    for d in record.replay():
        a = d.action
        if isinstance(a, Move):
            if not a.moves and d.play is None and len(d.position.legal_plays(a.dice)):
                continue  # a roll its player resigned after: gnubg records only the dice
            kind = "move"
        elif isinstance(a, Double):
            kind = "double"
        else:
            kind = "answer"
        out.append((kind, d.position_id, d.match_id))
    return out


def _capped(record: MatchRecord, game):  # type: ignore[no-untyped-def]
    r = game.result
    needed = record.length - game.score[r.winner]
    return (r.winner, r.kind, r.cube, r.resign_level, min(r.points, needed))


def _script(jobs: list[tuple[str, str, Path]]) -> str:
    lines = ["import gnubg"]
    for load, src, out in jobs:
        for command in (
            f"{load} {src}",
            f"export match text {out / 'x.txt'}",
            f"save match {out / 'g.sgf'}",
            f"export match mat {out / 'g.mat'}",
        ):
            lines.append(f"gnubg.command({command!r})")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def exported(gnubg, tmp_path_factory):  # type: ignore[no-untyped-def]
    """gnubg's exports of the sample, and of mathbg's own .mat and .sgf of it."""
    root = tmp_path_factory.mktemp("gnubg-matches")
    jobs = []
    for name in SAMPLE:
        rec = read_match(DATA / name)
        for tag, load, path in (
            ("orig", "import mat", DATA / name),
            ("ours-mat", "import mat", write_match(rec, root / f"{name}.mat")),
            ("ours-sgf", "load match", write_match(rec, root / f"{name}.sgf")),
        ):
            out = root / f"{name}-{tag}"
            out.mkdir()
            jobs.append((load, str(path), out))
    gnubg.run_python(_script(jobs), timeout=1200)
    return root


@pytest.mark.parametrize("name", SAMPLE)
def test_gnubg_prints_mathbgs_ids_for_every_decision(exported: Path, name: str) -> None:
    ours = mathbg_decisions(read_match(DATA / name))
    theirs = gnubg_decisions(exported / f"{name}-orig")
    assert len(theirs) > 80
    assert theirs == ours


@pytest.mark.parametrize("name", SAMPLE)
def test_mathbg_reads_gnubgs_sgf_and_mat_exports_to_the_same_record(
    exported: Path, name: str
) -> None:
    ours = read_match(DATA / name).normalized()
    for export in ("g.sgf", "g.mat"):
        theirs = read_match(exported / f"{name}-orig" / export).normalized()
        assert theirs.length == ours.length and theirs.players == ours.players
        assert [g.actions for g in theirs.games] == [g.actions for g in ours.games]
        assert [g.score for g in theirs.games] == [g.score for g in ours.games]
        # points as written: gnubg writes a resignation's full value, Galaxy caps it at
        # what the winner needed; both give the same score
        assert [_capped(theirs, g) for g in theirs.games] == [_capped(ours, g) for g in ours.games]
        assert theirs.final_score == ours.final_score


@pytest.mark.parametrize("name", SAMPLE)
@pytest.mark.parametrize("fmt", ["mat", "sgf"])
def test_gnubg_imports_what_mathbg_writes(exported: Path, name: str, fmt: str) -> None:
    ours = mathbg_decisions(read_match(DATA / name))
    assert gnubg_decisions(exported / f"{name}-ours-{fmt}") == ours


def test_mathbg_reads_gnubgs_sgf_of_a_dance_before_a_resignation(gnubg, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """match3222030's loser danced, then resigned ('Losses 1 point'). gnubg 1.07 imports
    the dance twice and saves both in its .sgf (two B[32] nodes in a row); mathbg reads
    the second once, with a warning naming its line, and gets the match the file gives."""
    from mathbg.errors import MathbgWarning

    sgf = tmp_path / "g.sgf"
    gnubg.run_commands([f"import mat {DATA / 'match3222030.txt'}", f"save match {sgf}"])
    nodes = [ln for ln in sgf.read_text().splitlines() if ln.startswith(";")]
    assert nodes[-2:] == [";B[32]", ";B[32])"]
    with pytest.warns(MathbgWarning, match=r"g\.sgf, line \d+: B\[32\]: the same player's "
                      r"dance again"):  # fmt: skip
        theirs = read_match(sgf)
    ours = read_match(DATA / "match3222030.txt")
    assert theirs.normalized().games == ours.normalized().games


# ------------------------------------------------------------------ what gnubg reads

_RESULTS = r"""
import gnubg, json
out = []
for load, path in {jobs!r}:
    gnubg.command("%s %s" % (load, path))
    m = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
    out.append([[g["info"].get("winner"), g["info"].get("points-won"),
                 bool(g["info"].get("resigned"))] for g in m["games"]])
json.dump(out, open({result!r}, "w"))
"""

def _cases() -> dict[str, str]:
    """Files gnubg must read as mathbg does: a match resigned on move 1, Backgammon
    Studio's forfeit line, an empty player name, a Galaxy match resigned whole, a Galaxy
    gammon resigned at cube 2 that scored the 3 points its winner needed ('Wins 3 point
    and the match': gnubg's ``.mat`` reading gives a gammon, as mathbg's; the ``.sgf``
    mathbg writes must say so to gnubg's ``.sgf`` reading, points over the cube).

    gnubg 1.07.001 itself aborts on the empty name ("buffer overflow detected": its score
    line parser runs before the start of the line), so of that file it is given only what
    mathbg writes (the name read as the side's number)."""
    seed = (DATA / "match10014006.txt").read_text()
    head = " Game ".join(seed.split(" Game ")[:2])
    forfeit = head + (" Game 2\n lasse : 0                       leon77 : 2\n"
                      "  1) 31: 8/5 6/5\n                                  Wins 4016 points\n")
    return {
        "resigned.mat": RESIGNED,
        "forfeit.mat": forfeit,
        "empty-name.mat": seed.replace(" lasse : ", " : ").replace('; [Player 1 "lasse"]\n', ""),
        "galaxy-resigned.mat": (DATA / "match1988690.txt").read_text(),
        "galaxy-capped-gammon.mat": (DATA / "match1282666.txt").read_text(),
    }


def _ours(record: MatchRecord) -> list[list[object]]:
    """Each game's winner, points and whether it was resigned, as gnubg reports them: a
    resignation's points are its value, level times cube, even where the winner needed
    fewer (gnubg's ``nPoints``; the score it adds them to stops at the match's end)."""
    return [["XO"[r.winner], r.resign_level * r.cube if r.kind == "resign" else r.points,
             r.kind == "resign"] for r in (g.result for g in record.games) if r is not None]


def test_gnubg_reads_resignations_forfeits_and_empty_names_as_mathbg(gnubg, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json
    import warnings

    jobs, ours = [], []
    for name, text in _cases().items():
        src = tmp_path / name
        src.write_text(text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the forfeit's implausible points
            rec = read_match(src)
        for tag, load, path in (("orig", "import mat", src),
                                ("mat", "import mat", write_match(rec, tmp_path / f"{name}.mat")),
                                ("sgf", "load match", write_match(rec, tmp_path / f"{name}.sgf"))):
            if tag == "orig" and name == "empty-name.mat":
                assert rec.players == ("Player 1", "leon77")
                continue
            jobs.append((load, str(path)))
            ours.append((name, tag, _ours(rec)))
    result = tmp_path / "results.json"
    gnubg.run_python(_RESULTS.format(jobs=jobs, result=str(result)), timeout=600)
    theirs = json.loads(result.read_text())
    for (name, tag, mine), gnubgs in zip(ours, theirs, strict=True):
        assert gnubgs == mine, (name, tag)
    # the numbers themselves, as gnubg gives them: 3 points for the match resigned at 0-0
    assert theirs[0] == [["O", 3, True]]
