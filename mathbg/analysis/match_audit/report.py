"""Texts of the match analysis: gnubg's statistics table, in gnubg's words and digits.

:func:`gnubg_statistics_text` prints a match's statistics as gnubg 1.07 prints ``show
statistics match`` (formatgs.c ``formatGS``: each row a label of 40 characters and the two
players' columns of 23; totals with 3 decimals, rates in milli-EMG with 1, MWC in percent
with 3), so that the two can be compared line by line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.analysis.match_audit.statistics import MatchStatistics, PlayerStatistics

__all__ = ["CUBE_ROWS", "gnubg_statistics_text"]

f32 = np.float32

#: The cube categories in gnubg's order, with its labels.
CUBE_ROWS: tuple[tuple[str, str], ...] = (
    ("missed_double_below_cp", "Missed doubles below CP"),
    ("missed_double_above_cp", "Missed doubles above CP"),
    ("wrong_double_below_dp", "Wrong doubles below DP"),
    ("wrong_double_above_tg", "Wrong doubles above TG"),
    ("wrong_take", "Wrong takes"),
    ("wrong_pass", "Wrong passes"),
)


def _row(label: str, a: str, b: str) -> str:
    return f"{label:<40} {a:<23} {b:<23}"


def _total(rn: float, ru: float, match: bool) -> str:
    unit = f"{float(f32(ru) * f32(100.0)):+7.3f}%" if match else f"{ru:+7.3f}"
    return f"     {rn:+6.3f} ({unit})"


def _per(rn: float | None, ru: float | None, match: bool) -> str:
    if rn is None or ru is None:  # gnubg prints its zero rate negated
        rn = ru = -0.0
    unit = f"{float(f32(ru) * f32(100.0)):+7.3f}%" if match else f"{ru:+7.3f}"
    return f"   {float(f32(1000.0) * f32(rn)):+6.1f}   ({unit})"


def _cube(n: int, rn: float, ru: float, match: bool) -> str:
    if not n:
        return "  0"
    unit = f"{float(f32(100.0) * f32(ru)):+7.3f}%" if match else f"{ru:+7.3f}"
    return f"{n:3d} ({rn:+6.3f} ({unit}))"


def _label(text: str | None) -> str:
    return "n/a" if text is None else text


def _checker(p: tuple[PlayerStatistics, PlayerStatistics], match: bool, unit: str) -> list[str]:
    rows = [_row("Total moves", f"{p[0].total_moves:3d}", f"{p[1].total_moves:3d}"),
            _row("Unforced moves", f"{p[0].unforced_moves:3d}", f"{p[1].unforced_moves:3d}")]
    for key, label in (("unmarked", "Unmarked moves"), ("doubtful", "Moves marked doubtful"),
                       ("bad", "Moves marked bad"), ("very bad", "Moves marked very bad")):
        rows.append(_row(label, f"{p[0].moves_marked[key]:3d}", f"{p[1].moves_marked[key]:3d}"))
    rows.append(_row(f"Error total {unit}", *(_total(-x.checker_error_emg, -x.checker_error_mwc,
                                                      match) for x in p)))
    rows.append(_row(f"Error rate m{unit}", *(_per(_neg(x.checker_rate_emg),
                                                    _neg(x.checker_rate_mwc), match) for x in p)))
    rows.append(_row("Chequerplay rating", *(_label(x.checker_rating) for x in p)))
    return rows


def _neg(v: float | None) -> float | None:
    return None if v is None else -v


def _luck(p: tuple[PlayerStatistics, PlayerStatistics], match: bool, unit: str) -> list[str]:
    rows = []
    for key, label in (("very lucky", "Rolls marked very lucky"), ("lucky", "Rolls marked lucky"),
                       ("unmarked", "Rolls unmarked"), ("unlucky", "Rolls marked unlucky"),
                       ("very unlucky", "Rolls marked very unlucky")):  # fmt: skip
        rows.append(_row(label, f"{p[0].rolls_marked[key]:3d}", f"{p[1].rolls_marked[key]:3d}"))
    rows.append(_row(f"Luck total {unit}", *(_total(x.luck_emg, x.luck_mwc, match) for x in p)))
    rates = [("n/a" if x.luck_rate_emg is None else _per(x.luck_rate_emg, x.luck_rate_mwc, match))
             for x in p]  # fmt: skip
    rows.append(_row(f"Luck rate m{unit}", *rates))
    rows.append(_row("Luck rating", *(_label(x.luck_rating) for x in p)))
    return rows


def _cubes(p: tuple[PlayerStatistics, PlayerStatistics], match: bool, unit: str) -> list[str]:
    rows = []
    for attr, label in (("total_cube", "Total cube decisions"),
                        ("close_cube", "Close or actual cube decisions"), ("doubles", "Doubles"),
                        ("takes", "Takes"), ("passes", "Passes")):  # fmt: skip
        rows.append(_row(label, f"{getattr(p[0], attr):3d}", f"{getattr(p[1], attr):3d}"))
    for key, label in CUBE_ROWS:
        cells = [_cube(int(x.cube_errors[key]["count"]), -x.cube_errors[key]["emg"],
                       -x.cube_errors[key]["mwc"], match) for x in p]  # fmt: skip
        rows.append(_row(f"{label} ({unit})", *cells))
    rows.append(_row(f"Error total {unit}", *(_total(-x.cube_error_emg, -x.cube_error_mwc, match)
                                               for x in p)))  # fmt: skip
    rows.append(_row(f"Error rate m{unit}", *(_per(_neg(x.cube_rate_emg), _neg(x.cube_rate_mwc),
                                                    match) for x in p)))  # fmt: skip
    rows.append(_row("Cube decision rating", *(_label(x.cube_rating) for x in p)))
    return rows


def _overall(s: MatchStatistics, match: bool, unit: str) -> list[str]:
    p = s.players
    rows = [_row(f"Error total {unit}", *(_total(-x.error_emg, -x.error_mwc, match) for x in p)),
            _row(f"Error rate m{unit}", *(_per(_neg(x.error_rate_emg), _neg(x.error_rate_mwc),
                                                match) for x in p))]  # fmt: skip
    snowie = ["n/a" if x.snowie_error_rate is None else
              f"   {-x.snowie_error_rate:+6.1f}   ({0.0:+7.3f}{'%' if match else ''})"
              for x in p]  # fmt: skip
    rows.append(_row("Snowie error rate", *snowie))
    rows.append(_row("Overall rating", *(_label(x.overall_rating) for x in p)))
    if p[0].actual_result > 0 or p[1].actual_result > 0:
        def fmt(v: float) -> str:
            return f"{float(f32(100.0) * f32(v)):+7.2f}%" if match else f"{v:+7.3f}"

        rows.append(_row("Actual result", fmt(p[0].actual_result), fmt(p[1].actual_result)))
        rows.append(_row("Luck adjusted result", fmt(p[0].luck_adjusted_result),
                         fmt(p[1].luck_adjusted_result)))  # fmt: skip
        if match:
            d = s.luck_fibs_difference
            rows.append(_row("Luck based FIBS rating diff.", "n/a" if d is None else f"{d:+7.2f}",
                             ""))  # fmt: skip
    if s.ppg is not None:  # a money session of two games or more, its luck analysed
        for row, what in zip(s.ppg, ("actual", "luck adjusted"), strict=True):
            rows.append(_row(f"Advantage ({what}) in ppg", f"{row[0]:+6.3f}", f"{row[3]:+6.3f}"))
            rows.append(_row("95% confidence interval (ppg)", f"[{row[1]:6.3f},{row[2]:6.3f}]",
                             f"[{row[4]:6.3f},{row[5]:6.3f}]"))  # fmt: skip
    if match:
        for attr, label in (("fibs_rating", "Error based abs. FIBS rating"),
                            ("checker_rating_loss", "Chequerplay errors rating loss"),
                            ("cube_rating_loss", "Cube errors rating loss")):  # fmt: skip
            cells = ["n/a" if getattr(x, attr) is None else f"{getattr(x, attr):6.1f}" for x in p]
            rows.append(_row(label, *cells))
    return rows


def gnubg_statistics_text(stats: MatchStatistics) -> str:
    """gnubg 1.07's ``show statistics match`` text of ``stats`` (see the module notes).

    Parameters
    ----------
    stats : MatchStatistics
        A game's or a match's statistics.

    Returns
    -------
    str
        The four sections, gnubg's lines (trailing blanks stripped).

    Examples
    --------
    >>> from mathbg.analysis.match_audit.statistics import MatchStatistics, Statistics
    >>> text = gnubg_statistics_text(MatchStatistics.of(Statistics(), ("A", "B"), 5))
    >>> text.splitlines()[2], text.count("statistics")
    ('Chequerplay statistics', 4)
    """
    match = stats.length > 0
    unit = "EMG (MWC)" if match else "EMG (Points)"
    p = stats.players
    parts = [_row("Player", p[0].name, p[1].name), ""]
    for title, rows in (("Chequerplay statistics", _checker(p, match, unit)),
                        ("Luck statistics", _luck(p, match, unit)),
                        ("Cube statistics", _cubes(p, match, unit)),
                        ("Overall statistics", _overall(stats, match, unit))):  # fmt: skip
        parts += [title, "", *rows, "", ""]
    return "\n".join(line.rstrip() for line in parts).rstrip() + "\n"
