"""Legal-play generation for standard backgammon: a numba kernel, its pure-Python port and
a reference generator.

The rules (gnubg manual "Rules of the game"; bkgm.com/rules.html), as implemented:

1. A roll is played die by die; doubles are played four times.
2. A checker may land on an empty point, a point of its own, or a point holding exactly one
   opposing checker (a blot), which is hit and goes to the opponent's bar. A point with two
   or more opposing checkers is blocked.
3. Checkers on the bar must all enter (on the opponent's home board: die ``d`` enters on
   point ``25 - d``) before any other checker moves; dice that cannot enter are forfeited.
4. Bearing off needs all the side's checkers (those borne off included) in its home board
   (points 1-6). A die ``d`` bears off a checker from point ``d``; a higher die bears off
   from the highest occupied point only when no checker stands higher. A checker that
   reaches home with the first die lets the second die bear off.
5. As many dice as possible must be played (both, or up to four for doubles); if only one
   die of a non-double can be played, the larger one must be played when either could.

Rule 5 is applied as gnubg does (``eval.c:GenerateMoves``/``SaveMoves``): among all
maximal sequences keep those that play the most dice and, among them, the most pips of
dice (for non-doubles playing one die, that is "the larger die"). Plays are identified
by their resulting position, hits included, and each appears once.

Implementation
--------------
:func:`generate` (one board, one roll) and :func:`successors` (many boards, all 21 rolls)
run an iterative depth-first search in numba over the dice
(``mathbg.rules._movegen_kernels``). Non-doubles are searched in
both die orders; for doubles the source point never increases along a sequence (any
legal sequence of four equal dice can be reordered that way with the same result), which
removes permutations. Results are deduplicated by an exact key (the mover's 25 counts as
nibbles plus a bit mask of the points where a blot was hit) in an open-addressing table
whose entries are invalidated by a stamp, so nothing is cleared between calls.

:func:`generate_python` is the same search written in Python (recursive, a dict for the
table): the same plays in the same order with the same moves, about 0.1 ms a position.
:func:`generate` uses it for the first :data:`PORT_CALLS` positions of a process, so that
reading a match file, or anything else that asks for the plays of a few positions, does
not pay the 0.6 CPU-s of numba's import and kernel load; the tests hold the two equal.

:func:`reference_results` is a small, slow, pure-Python generator that follows the rules
text literally (every order of every die for every checker, then the "most dice, larger
die" filter); the tests check the kernel against it.

Kernel arrays use gnubg ``TanBoard`` order flattened to 50 ``uint8``: the side not on roll
(points 1..24, bar) then the side on roll; a move is ``(from, to, die)`` with 0-based
indices (24 = bar, -1 = off).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from mathbg._native import compiled

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.board import BasePosition

__all__ = [
    "PORT_CALLS",
    "count_plays",
    "expect_positions",
    "generate",
    "generate_python",
    "reference_results",
    "search_kernels",
    "successors",
    "workspace",
]

_ALL_DICE = np.array([(hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1)], dtype=np.int32)

#: Single positions whose plays :func:`generate` finds with the pure-Python port before it
#: switches to the numba kernel, when the build did not compile the kernel ahead of time
#: (:mod:`mathbg._native`; with it, every call goes to the compiled kernel): numba's first
#: call in a process costs about 0.6 CPU-s (its import and its cache's load), the port about
#: 0.1 ms a position, so a process that reads a match file or two never pays for numba
#: (``benchmarks/bench_movegen.py``).
PORT_CALLS = 5000

_port_calls_left = PORT_CALLS


def expect_positions(n: int) -> None:
    """Say that about ``n`` single positions' plays will be asked for next (self-play, a
    long replay): when that is more than the port still has to serve, :func:`generate` goes
    to the kernel at once, its load paid once instead of after thousands of slower port
    calls.

    Examples
    --------
    >>> expect_positions(10)  # a few: the port keeps serving them
    """
    global _port_calls_left
    if int(n) >= _port_calls_left:
        _port_calls_left = 0


def _too_many() -> None:
    from mathbg.errors import InvalidPositionError

    raise InvalidPositionError(
        "legal plays need at most 15 checkers on a point (the kernel packs counts in 4 bits)"
    )


def _as_boards(boards: np.ndarray) -> np.ndarray:
    arr = np.ascontiguousarray(np.asarray(boards, dtype=np.uint8).reshape(-1, 50))
    if arr.size and arr.max() > 15:
        _too_many()
    return arr


def generate(cells: bytes | np.ndarray, d1: int, d2: int) -> tuple[np.ndarray, np.ndarray]:
    """All distinct legal plays of one roll.

    Parameters
    ----------
    cells : bytes or uint8 array of 50
        The board in flattened gnubg ``TanBoard`` order (side on roll in cells 25..49).
    d1, d2 : int
        The dice (any order, 1..6; not validated here).

    Returns
    -------
    boards : uint8 array (n, 50)
        The resulting boards, still from the mover's point of view (mover in 25..49).
    moves : int8 array (n, 4, 3)
        For each play its moves in play order as ``(from, to, die)``: 0-based indices of
        the mover's points, 24 = bar, ``to = -1`` = off; unused rows are ``(-1, -1, 0)``.
    """
    global _port_calls_left
    # a writable copy: the kernel then shares its compiled search with the native engine's
    # (numba compiles a read-only array's once more, a second or so of a first run)
    board = np.frombuffer(cells, dtype=np.uint8).copy() if isinstance(cells, bytes) else (
        np.array(cells, dtype=np.uint8).reshape(50))  # fmt: skip
    if (max(cells) if isinstance(cells, bytes) else int(board.max())) > 15:
        _too_many()
    kernel: Any = compiled("movegen_generate")
    if kernel is None:
        if _port_calls_left > 0:
            _port_calls_left -= 1
            return generate_python(cells, d1, d2)
        from mathbg.rules._movegen_kernels import generate_kernel as kernel
    from mathbg.rules._movegen_workspace import WORKSPACE

    while True:
        n, boards, moves = kernel(board, int(d1), int(d2), WORKSPACE.args())
        if n >= 0:
            return boards, moves
        WORKSPACE.grow()


def generate_python(
    cells: bytes | np.ndarray, d1: int, d2: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`generate` by the kernel's search written in Python (see the module notes).

    The search goes die by die from the highest point down, both die orders for a
    non-double, the source never increasing for a double; a sequence that cannot go on is
    kept when it plays at least as many dice (then pips of dice) as the best so far, and
    a resulting position (the mover's counts and the blots hit) is kept once, with the
    moves that reached it first. Same arguments and results as :func:`generate`.

    Examples
    --------
    >>> from mathbg.rules.position import INITIAL
    >>> boards, moves = generate_python(INITIAL.cells, 3, 1)
    >>> len(boards), moves[0].tolist()[:2]
    (16, [[23, 20, 3], [20, 19, 1]])
    """
    opp = list(cells[:25])
    start = list(cells[25:])
    doubles = d1 == d2
    dice_count = 4 if doubles else 2
    orders = ((d1,) * 4,) if doubles else ((d1, d2), (d2, d1))
    best = -1
    found: dict[tuple[tuple[int, ...], int], tuple[tuple[int, int, int], ...]] = {}
    path: list[tuple[int, int, int]] = []

    def keep(me: list[int], hits: int, score: int) -> None:
        nonlocal best, found
        if score > best:
            best, found = score, {}
        if score == best:
            found.setdefault((tuple(me), hits), tuple(path))

    def play(me: list[int], outside: int, hits: int, top: int, dice: tuple[int, ...]) -> None:
        level = len(path)
        d = dice[level]
        if me[24]:  # the bar is the only source
            sources = [24] if top == 24 and opp[d - 1] < 2 else []
        else:
            sources = [s for s in range(top, -1, -1) if me[s] and (
                opp[23 - (s - d)] < 2 if s >= d else
                outside == 0 and (s == d - 1 or not any(me[s + 1:6])))]  # fmt: skip
        for s in sources:
            t = max(s - d, -1)
            after, out_after, hits_after = me.copy(), outside, hits
            after[s] -= 1
            if t >= 0:
                after[t] += 1
                out_after -= s >= 6 > t
                if opp[23 - t] == 1:
                    hits_after |= 1 << t
            path.append((s, t, d))
            if level + 1 == dice_count:
                keep(after, hits_after, dice_count * 64 + sum(dice[:dice_count]))
            else:
                play(after, out_after, hits_after, s if doubles else 24, dice)
            path.pop()
        if not sources and level > 0:
            keep(me, hits, level * 64 + sum(dice[:level]))

    for dice in orders:
        play(start, sum(start[6:]), 0, 24, dice)
    boards = np.empty((len(found), 50), np.uint8)
    moves = np.empty((len(found), 4, 3), np.int8)
    moves[:] = (-1, -1, 0)
    for j, ((me, hits), seq) in enumerate(found.items()):
        row = opp.copy()
        for t in range(24):
            if (hits >> t) & 1:
                row[23 - t] = 0
                row[24] += 1
        boards[j, :25] = row
        boards[j, 25:] = me
        if seq:
            moves[j, :len(seq)] = seq
    return boards, moves


def successors(
    boards: np.ndarray, rolls: Iterable[tuple[int, int]] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Resulting positions of every legal play, for many boards and rolls (CSR layout).

    Parameters
    ----------
    boards : uint8 array (N, 50) or (N, 2, 25)
        Boards in gnubg ``TanBoard`` layout (side on roll = row 1).
    rolls : iterable of (int, int), optional
        Rolls to play; default the 21 rolls of :data:`mathbg.rules.dice.ROLLS` in that
        order.

    Returns
    -------
    ptr : int64 array (N * R + 1,)
        Plays of board ``b`` and roll ``r`` are ``results[ptr[b*R + r]:ptr[b*R + r + 1]]``.
    results : uint8 array (M, 50)
        The resulting boards, from the mover's point of view (not swapped).
    """
    arr = _as_boards(boards)
    dice = _ALL_DICE if rolls is None else np.array(list(rolls), dtype=np.int32).reshape(-1, 2)
    from mathbg.rules._movegen_workspace import WORKSPACE

    kernel: Any = compiled("movegen_successors")
    if kernel is None:
        from mathbg.rules._movegen_kernels import successors_kernel as kernel
    while True:
        ptr, res, ok = kernel(arr, dice, WORKSPACE.args())
        if ok:
            return ptr, res
        WORKSPACE.grow()


def search_kernels() -> tuple[Any, Any]:
    """The move generator's numba kernels, for kernels elsewhere that generate plays inside
    their own loops: ``search(board, d1, d2, ws) -> n`` fills the workspace ``ws``
    (:func:`workspace`) with the ``n`` distinct plays of a roll (-1: the workspace is too
    small; :func:`workspace` ``(grow=True)`` enlarges it), and ``materialize(board, keys, n,
    dest, row0)`` writes their resulting boards (mover in cells 25..49) into
    ``dest[row0:row0 + n]`` (``keys`` is ``ws[3]``). Importing them loads numba.

    Examples
    --------
    >>> import numpy as np
    >>> from mathbg.rules.position import Position
    >>> search, materialize = search_kernels()
    >>> board = np.frombuffer(Position.initial().cells, dtype=np.uint8)
    >>> int(search(board, 3, 1, workspace()))
    16
    """
    from mathbg.rules._movegen_kernels import materialize, search

    return search, materialize


def workspace(grow: bool = False) -> tuple[np.ndarray, ...]:
    """The shared workspace of the move generator's kernels (:func:`search_kernels`),
    enlarged first when ``grow``.

    A caller of this runs numba kernels (the native engine): numba's import and its
    cache's first load are paid, so from now on :func:`generate` goes to the kernel, whose
    own load then costs about 10 ms (a match's replay of 500 positions: 0.2 CPU-s in the
    port, 0.01 s in the kernel).
    """
    global _port_calls_left
    from mathbg.rules._movegen_workspace import WORKSPACE

    _port_calls_left = 0

    if grow:
        WORKSPACE.grow()
    return WORKSPACE.args()


def count_plays(boards: np.ndarray, rolls: Iterable[tuple[int, int]] | None = None) -> np.ndarray:
    """Number of legal plays (distinct resulting positions) for many boards and rolls.

    Returns an int32 array of shape (N, R), rolls defaulting to the 21 of
    :data:`mathbg.rules.dice.ROLLS`.
    """
    arr = _as_boards(boards)
    dice = _ALL_DICE if rolls is None else np.array(list(rolls), dtype=np.int32).reshape(-1, 2)
    from mathbg.rules._movegen_workspace import WORKSPACE

    kernel: Any = compiled("movegen_count_plays")
    if kernel is None:
        from mathbg.rules._movegen_kernels import count_plays_kernel as kernel
    while True:
        counts = kernel(arr, dice, WORKSPACE.args())
        if counts.size == 0 or counts.min() >= 0:
            return np.asarray(counts)
        WORKSPACE.grow()


# ----------------------------------------------------------------------------------------
# Reference generator (pure Python, literal reading of the rules; for tests)


def _ref_step(me: list[int], opp: list[int], src: int, die: int) -> tuple[int, bool] | None:
    """Destination of moving one checker of ``me`` from ``src`` by ``die``.

    ``me``/``opp`` are 25 counts (0-based own points, 24 = bar). Returns ``(dest, hit)``
    with dest -1 for borne off, or None if the move is illegal.
    """
    if me[src] == 0:
        return None
    if me[24] > 0 and src != 24:  # everything on the bar must enter first
        return None
    dest = src - die
    if dest >= 0:
        opposing = opp[23 - dest]  # my point dest+1 is the opponent's point 24-dest
        if opposing >= 2:
            return None
        return dest, opposing == 1
    # bearing off: every checker must be in the home board (points 1..6)
    if any(me[i] for i in range(6, 25)):
        return None
    if dest == -1:  # exact
        return -1, False
    # a larger die bears off only from the highest occupied point
    if any(me[i] for i in range(src + 1, 6)):
        return None
    return -1, False


def reference_results(
    position: BasePosition, roll: tuple[int, int]
) -> dict[bytes, list[tuple[int, ...]]]:
    """Legal plays by brute force: ``{resulting cells: [moves of one way to play it]}``.

    Tries every checker for every die in every order (both orders of a non-double, all
    four dice of a double with no ordering shortcut), keeps the sequences that cannot be
    extended, then applies the rules literally: keep those using the most dice; if that
    is a single die of a non-double and the larger die can be played, keep only plays of
    the larger die. Moves are ``(from, to, die)`` with public point numbers (25 = bar,
    0 = off). Slow: for tests only.
    """
    d1, d2 = roll
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    cells = position.cells
    found: dict[bytes, tuple[list[tuple[int, ...]], list[int]]] = {}

    def rec(
        me: list[int], opp: list[int], dice: list[int], used: list[int], path: list[Any]
    ) -> None:
        extended = False
        if dice:
            die = dice[0]
            for src in range(24, -1, -1):
                step = _ref_step(me, opp, src, die)
                if step is None:
                    continue
                dest, hit = step
                me2, opp2 = me.copy(), opp.copy()
                me2[src] -= 1
                if dest >= 0:
                    me2[dest] += 1
                    if hit:
                        opp2[23 - dest] = 0
                        opp2[24] += 1
                extended = True
                rec(me2, opp2, dice[1:], [*used, die], [*path, (src + 1, dest + 1, die)])
        if not extended and used:
            key = bytes(opp) + bytes(me)
            # one way to reach each result: prefer more dice, then (one die) the larger
            if key not in found or (len(used), sum(used)) > (
                len(found[key][1]),
                sum(found[key][1]),
            ):
                found[key] = (path, used)

    for order in orders:
        rec(list(cells[25:]), list(cells[:25]), order, [], [])
    if not found:
        return {}
    most = max(len(u) for _, u in found.values())
    keep = {k: v for k, v in found.items() if len(v[1]) == most}
    if d1 != d2 and most == 1:
        larger = max(d1, d2)
        if any(u[0] == larger for _, u in keep.values()):
            keep = {k: v for k, v in keep.items() if v[1][0] == larger}
    return {k: v[0] for k, v in keep.items()}
