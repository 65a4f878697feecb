"""Match files held to the database standard (issue 33) and what gnubg reads (issue 34
item 8, issue 32's bad input): each reproducer of the issues as a test.

The seed of the mutations is a real Galaxy match (``tests/data/matches/match10014006.txt``,
a 5-point match). Reference facts come from gnubg 1.07's ``import.c`` (its match length
limit, its reading of a ``Wins`` line that no play explains) and, where a number is
involved, from gnubg itself (``tests/test_match_gnubg.py`` imports the same files).
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from mathbg.cli import main
from mathbg.errors import MatchFileError, MathbgWarning
from mathbg.rules import GameOutcome, read_match, render_match
from mathbg.rules.formats.fields import MAX_MATCH_LENGTH

DATA = Path(__file__).resolve().parent / "data" / "matches"
SEED = DATA / "match10014006.txt"
TEXT = SEED.read_text()
BIG = "9" * 5000


def _sgf() -> str:
    return render_match(read_match(SEED), "sgf")


def _convert(capsys: pytest.CaptureFixture[str], src: Path, out: Path) -> tuple[int, str]:
    status = main(["convert", str(src), str(out)])
    return status, capsys.readouterr().err


def _refused(capsys: pytest.CaptureFixture[str], src: Path, out: Path, line: int) -> str:
    """``convert`` refuses ``src`` in one line naming the file and ``line``, writes nothing."""
    status, err = _convert(capsys, src, out)
    lines = err.strip().splitlines()
    assert status == 2, err
    assert len(lines) == 1 and lines[0].startswith(f"mathbg convert: error: {src}, line {line}: ")
    assert "Exceeds the limit" not in err and "internal error" not in err
    assert not out.exists()
    return lines[0]


# ------------------------------------------------------------------ 1. huge numbers

HUGE_MAT = {
    "match length": (TEXT.replace("5 point match", f"{BIG} point match"), 14,
                     "the match length is a 5000-digit number, not in 0..64"),
    "score": (TEXT.replace("lasse : 0 ", f"lasse : {BIG} ", 1), 17,
              "lasse's score is a 5000-digit number"),
    "cube": (TEXT.replace("Doubles => 2", f"Doubles => {BIG}", 1), 23,
             "the cube value is a 5000-digit number"),
    "cube limit": (TEXT.replace('CubeLimit "1024"', f'CubeLimit "{BIG}"'), 12,
                   "the cube limit is a 5000-digit number"),
    "point": (TEXT.replace("24/20 13/8", f"24/20 13/{BIG}", 1), 18, "cannot read the play"),
    "points won": (TEXT.replace("Wins 2 point", f"Wins {BIG} point", 1), 41,
                   "the number of points won is a 5000-digit number"),
    "game number": (TEXT.replace("Game 2", f"Game {BIG}", 1), 44,
                    "the game number is a 5000-digit number"),
}


@pytest.mark.parametrize("field", sorted(HUGE_MAT))
def test_a_huge_number_in_any_mat_field_is_refused_in_one_line(
    field: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, line, message = HUGE_MAT[field]
    src = tmp_path / "huge.mat"
    src.write_text(text)
    assert message in _refused(capsys, src, tmp_path / "out.sgf", line)


@pytest.mark.parametrize("old, new, message", [
    ("MI[length:5]", f"MI[length:{BIG}]", "the match length (MI length) is a 5000-digit"),
    ("[ws:0]", f"[ws:{BIG}]", "White's score (MI ws) is a 5000-digit"),
    ("RE[B+2]", f"RE[B+{BIG}]", "the number of points won (RE) is a 5000-digit"),
    ("[cube_limit:1024]", f"[cube_limit:{BIG}]", "the cube limit (MX cube_limit) is a 5000-digit"),
])
def test_a_huge_number_in_any_sgf_field_is_refused_in_one_line(
    old: str, new: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _sgf()
    assert old in text
    src = tmp_path / "huge.sgf"
    src.write_text(text.replace(old, new, 1))
    assert message in _refused(capsys, src, tmp_path / "out.mat", 1)


def test_audit_and_corpus_refuse_a_huge_number_with_the_same_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mathbg.analysis.corpus import file_stats

    src = tmp_path / "huge.mat"
    src.write_text(HUGE_MAT["score"][0])
    assert main(["audit", str(src)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{src}, line 17: lasse's score is a 5000-digit number" in err[0]
    error = file_stats(src).error
    assert error is not None
    assert error.startswith(f"{src}, line 17: ") and "Exceeds" not in error


# ------------------------------------------------------------------ 2. the .sgf reader


def test_sgf_is_refused_at_its_first_error_with_its_line() -> None:
    """An unknown action in game 1 is reported, not the damage at the end of the file
    (the reader replays each game as soon as its tree is read)."""
    lines = _sgf().splitlines()
    assert lines[4].startswith(";W[")
    lines[4] = ";W[frobnicate]"
    text = "\n".join(lines) + "\n" + "(;FF[4]GM[6]MI[length:5]" * 2000 + "\n;W[31"
    with pytest.raises(MatchFileError) as exc:
        read_match(text)
    assert exc.value.line == 5 and "unknown action W[frobnicate]" in str(exc.value)
    with pytest.raises(MatchFileError, match=r"line 2: .*truncated"):  # the tail alone
        read_match("(;FF[4]GM[6]MI[length:3]\n;W[31")


def test_sgf_line_numbers_hold_in_a_long_file_and_deep_nesting_is_no_crash() -> None:
    games = _sgf()
    text = games * 40  # the same match 40 times over: the second copy breaks the scores
    with pytest.raises(MatchFileError) as exc:
        read_match(text)
    second = games.count("\n") + 1
    assert exc.value.line == second and "the score line says 0-0" in str(exc.value)
    deep = "\n" + "(" * 200_000 + ";GM[6]" + ")" * 200_000
    with pytest.raises(MatchFileError, match=r"line 2: game 1 has no result"):
        read_match(deep)  # one game tree nested 200,000 deep: read without recursion



def test_sgf_variations_in_runs_of_brackets_leave_the_main_line() -> None:
    # the reader takes a run of opening or closing brackets at once: every game's main
    # line (the first variation at each branch, however deep) reads as it does without them
    games = _sgf()
    plain = read_match(games)
    trees = [t.strip() for t in games.split("\n(")]  # each game's tree starts a line
    trees = [trees[0]] + ["(" + t for t in trees[1:]]
    assert len(trees) == 3 and all(t[0] == "(" and t[-1] == ")" for t in trees)
    branched = []
    for t in trees:
        body = t[1:-1]  # one game's nodes
        cut = [i for i, ch in enumerate(body) if ch == ";"][3]  # after its third node
        head, tail = body[:cut], body[cut:]
        branched.append("(" + head + "((((" + tail + "))(;W[11])))((;B[66])))")
    again = read_match("\n".join(branched))
    assert again.games == plain.games and again.length == plain.length
    with pytest.raises(MatchFileError, match="after a variation"):
        read_match("(" + trees[0][1:-1] + "((;B[11]));W[66])")

# ------------------------------------------------------------------ 3. scores past the length


def test_a_score_past_the_length_is_refused_not_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mathbg.analysis.corpus import file_stats

    src = tmp_path / "past.mat"
    src.write_text(TEXT.replace("lasse : 0 ", "lasse : 7 ", 1))
    assert "lasse's score is 7, not in 0..5" in _refused(capsys, src, tmp_path / "o.sgf", 17)
    assert file_stats(src).error is not None
    src.write_text(TEXT.replace("lasse : 0 ", "lasse : 5 ", 1))  # at the length: over
    assert "a 5-point match is over at 5 points" in _refused(capsys, src, tmp_path / "o.sgf", 17)


# ------------------------------------------------------------------ 4. what convert writes


@pytest.mark.parametrize("old, new", [
    ("MI[length:5]", "MI[length:-3]"),  # refused when read
    ("PW[lasse]", "PW[]"),  # an empty name: the side's number
    ("PW[lasse]", "PW[las\nse]"),  # a line break in a name: SGF simple text, a space
    ("MX[", "MX[tag:Odd=Key=x \\] y]["),  # a tag name holding the separator
    ("PC[BackgammonGalaxy]", "PC[Back\ngammon ]"),
])
def test_convert_writes_only_what_mathbg_reads_back_to_the_same_record(
    old: str, new: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _sgf()
    assert old in text
    src = tmp_path / "src.sgf"
    src.write_text(text.replace(old, new, 1))
    try:
        record = read_match(src)
    except MatchFileError:
        assert _convert(capsys, src, tmp_path / "x.mat")[0] == 2
        assert not (tmp_path / "x.mat").exists()
        return
    for ext in ("mat", "sgf"):
        out = tmp_path / f"out.{ext}"
        status, err = _convert(capsys, src, out)
        assert status == 0, err
        assert read_match(out) == record
        again = tmp_path / f"again.{ext}"
        assert _convert(capsys, out, again)[0] == 0 and read_match(again) == record


def test_an_empty_player_name_is_the_sides_number_or_its_tag() -> None:
    rec = read_match(TEXT.replace("; [Player 1 \"lasse\"]\n", "").replace(" lasse : ", " : "))
    assert rec.players == ("Player 1", "leon77")
    rec = read_match(TEXT.replace(" leon77 : ", " : "))  # the Player 2 tag names him
    assert rec.players == ("lasse", "leon77")
    rec = read_match(_sgf().replace("PB[leon77]", "PB[]"))
    assert rec.players == ("lasse", "Player 2")


# ------------------------------------------------------------------ 5. match resignations

RESIGNED = """\
 5 point match

 Game 1
 Ann : 0                        Bob : 0
  1) 31: 8/5 6/5
                                  Wins 5 points and the match
"""


def test_a_match_resignation_is_scored_as_gnubg_scores_it() -> None:
    """gnubg reads "Wins 5 points" at cube 1 after one move as a backgammon resigned and
    records 3 points (its ``import.c``; tests/test_match_gnubg.py asks gnubg itself)."""
    rec = read_match(RESIGNED)
    assert rec.games[0].result == GameOutcome(1, 3, "resign", cube=1, resign_level=3,
                                              match_resigned=True)
    assert rec.final_score == (0, 3) and rec.winner == 1
    for fmt in ("mat", "sgf"):
        assert read_match(render_match(rec, fmt)) == rec


# ------------------------------------------------------------------ 6. results mid-game


def test_a_result_in_the_middle_of_a_game_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = TEXT.splitlines()
    assert lines[20].startswith("  4) 65: 22/16 21/16")
    lines.insert(20, "                                  Wins 1 point")
    src = tmp_path / "mid.mat"
    src.write_text("\n".join(lines) + "\n")
    message = _refused(capsys, src, tmp_path / "o.sgf", 22)
    assert "a roll after the game's result (line 21): a result in the middle of a game" in message


# ------------------------------------------------------------------ 7. the length limit


def test_the_match_length_is_gnubgs_0_to_64(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert MAX_MATCH_LENGTH == 64  # gnubg's MAXSCORE
    src = tmp_path / "long.mat"
    src.write_text(TEXT.replace("5 point match", "100000 point match"))
    assert "the match length is 100000, not in 0..64" in _refused(
        capsys, src, tmp_path / "o.sgf", 14)
    sgf = tmp_path / "long.sgf"
    sgf.write_text(_sgf().replace("MI[length:5]", "MI[length:65]"))
    assert "is 65, not in 0..64" in _refused(capsys, sgf, tmp_path / "o.mat", 1)
    src.write_text(TEXT.replace("5 point match", "64 point match").replace(" and the match", ""))
    assert read_match(src).length == 64 and read_match(src).winner is None


# ------------------------------------------------------------------ 8. the user's paths


def test_a_missing_output_directory_is_named_as_the_user_wrote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "nodir" / "x.sgf"
    status, err = _convert(capsys, SEED, target)
    assert status == 2
    assert err.strip() == (f"mathbg convert: error: {target}: cannot write the .sgf match "
                           f"file: {target.parent} does not exist")
    assert ".mathbg-tmp" not in err


# ------------------------------------------------------------------ 9. stale temporaries


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_the_temporaries_of_a_killed_convert_are_cleaned_by_the_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "x.sgf"
    stale = tmp_path / f".mathbg-tmp-{_dead_pid()}-0123abcd-x.sgf"
    stale.write_text("half a match")
    live = tmp_path / f".mathbg-tmp-{os.getpid()}-0123abcd-y.sgf"
    live.write_text("a live writer's")
    old = tmp_path / f".mathbg-tmp-{os.getpid()}-0123abcd-z.sgf"
    old.write_text("a week old: its pid has been reused")
    os.utime(old, (0, 0))
    foreign = [tmp_path / ".mathbg-tmp-notes.txt", tmp_path / ".mathbg-tmp-12-x.sgf"]
    for f in foreign:
        f.write_text("not a name mathbg gives")
    assert _convert(capsys, SEED, target)[0] == 0
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([target.name, live.name] + [f.name for f in foreign])


# ------------------------------------------------------------------ issue 34 item 8, 32


def _forfeit(game: int, points: str) -> str:
    """The seed with game ``game`` (1-based) ending after lasse's opening roll in a
    ``Wins N points`` line for leon77 (the games after it dropped)."""
    heads = TEXT.split(" Game ")
    kept = " Game ".join(heads[:game])
    score = {1: 0, 2: 2, 3: 4}[game]
    return kept + f""" Game {game}
 lasse : 0                       leon77 : {score}
  1) 31: 8/5 6/5
                                  Wins {points} points
"""


def _warnings(text: str, name: str) -> tuple[list[str], object]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rec = read_match(text, name=name)
    return [str(w.message) for w in caught if issubclass(w.category, MathbgWarning)], rec


def test_a_forfeit_line_is_read_as_gnubg_reads_it_with_a_warning() -> None:
    """Backgammon Studio writes "Wins 4016 points" for a forfeit: gnubg reads a backgammon
    resigned, 3 points at cube 1 (capped at what the winner needed); nothing else of the
    match is lost."""
    messages, rec = _warnings(_forfeit(3, "4016"), "studio.mat")
    assert messages == ["studio.mat, line 87: game 3: 4016 points for a resignation at cube 1: "
                        "read as gnubg reads it, a backgammon resigned (scored 1)"]
    assert len(rec.games) == 3 and rec.games[:2] == read_match(SEED).games[:2]
    assert rec.games[2].result == GameOutcome(1, 1, "resign", cube=1, resign_level=3)
    assert rec.winner == 1 and rec.final_score == (0, 5)
    # in game 1 leon77 needs 5: the match forfeited, the game scores 3 as gnubg scores it
    messages, rec = _warnings(_forfeit(1, "4016"), "studio.mat")
    assert len(messages) == 1 and "(the match resigned; the game scores 3)" in messages[0]
    assert rec.games[0].result == GameOutcome(1, 3, "resign", cube=1, resign_level=3,
                                              match_resigned=True)
    assert rec.winner == 1 and rec.final_score == (0, 3)
    messages, rec = _warnings(" 0 point match\n\n Game 1\n A : 0   B : 0\n  1) 31: 8/5 6/5\n"
                              "                                  Wins 4016 points\n", "money")
    assert rec.games[0].result.points == 3 and len(messages) == 1  # money: a backgammon


def test_the_cli_prints_the_warning_on_one_line_and_converts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "studio.mat"
    src.write_text(_forfeit(3, "4016"))
    status, err = _convert(capsys, src, tmp_path / "o.sgf")
    assert status == 0
    assert err.strip().splitlines() == [
        f"mathbg: warning: {src}, line 87: game 3: 4016 points for a resignation at cube 1: "
        "read as gnubg reads it, a backgammon resigned (scored 1)"
    ]


def test_a_refused_command_drops_the_warnings_of_the_files_read_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that warns, then one that is refused: the refusal's one line only (the
    warning comes back once the other file is mended)."""
    src = tmp_path / "studio.mat"
    src.write_text(_forfeit(3, "4016"))
    bad = tmp_path / "bad.mat"
    bad.write_text("not a match\n")
    status = main(["audit", "--cube-only", str(src), str(bad)])
    lines = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(lines) == 1
    assert lines[0].startswith(f"mathbg audit: error: {bad}, line 1: ")
    status, err = _convert(capsys, src, tmp_path / "missing" / "o.sgf")  # write refused
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith("mathbg convert: error: ") and "warning" not in err


def test_a_match_that_contradicts_its_own_length_is_refused_with_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "header.mat"
    src.write_text(TEXT.replace("5 point match", "25 point match"))
    message = _refused(capsys, src, tmp_path / "o.sgf", 119)
    assert ("game 3: the file says this game won the match ('and the match'), at 5 points, "
            "but the match is played to 25: the match contradicts its own length") in message


def test_a_result_after_the_match_was_won_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "more.mat"
    extra = " Game 4\n lasse : 0                       leon77 : 5\n  1) 31: 8/5 6/5\n" \
            "      Wins 1 point\n"
    src.write_text(TEXT + "\n" + extra)
    message = _refused(capsys, src, tmp_path / "o.sgf", TEXT.count("\n") + 5)
    assert "game 4 has a result, but the match was won before it" in message
