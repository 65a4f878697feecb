"""The numba kernels of the ``native`` engine: gnubg 1.07's 0-ply evaluation (internal).

A board is a flat ``uint8`` array of 50 cells (gnubg's ``TanBoard``: 0..24 the side not on
roll, 25..49 the side on roll, each side's points 1..24 in its own numbering, then its
bar). :func:`evaluate` gives gnubg's five outputs for the side on roll as float32, computed
as gnubg 1.07 computes them (``eval.c``: ``ClassifyPosition``, ``EvaluatePositionFull`` at
0 plies, ``SanityCheck``, ``EvalRaceBG``; ``bearoff.c``: ``BearoffEvalOneSided``,
``BearoffEvalTwoSided``; ``neuralnetsse.c``: the network with SSE's output sums), so the
bits match the peer's.

``model`` is the tuple :func:`mathbg.analysis.net.tables.model` assembles: for each of the
contact, race and crashed networks its hidden weights (inputs x hidden, float32), output
weights (outputs x hidden), hidden and output thresholds and the two sigmoid scales; then
the one-sided 6 x 15 bearoff table (gnubg's 16-bit distributions, rows of 64), the
two-sided 6 x 6 table (gnubg's 16-bit cubeless equities), the race backgammon table and
the three pruning networks.
"""

from __future__ import annotations

import math
import platform
from typing import Any

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.extending import intrinsic
from numba.misc.special import literally

from mathbg._native import no_refcounts
from mathbg.analysis.net._inputs import contact_inputs, race_inputs
from mathbg.analysis.net._workspace import (
    ALL_PLAYS,
    EVALUATE,
    EVALUATE_CACHED,
)
from mathbg.rules.movegen import search_kernels

__all__ = [
    "BEAROFF1",
    "BEAROFF2",
    "CONTACT",
    "CRASHED",
    "OVER",
    "RACE",
    "classify",
    "evaluate",
    "run",
]

F32 = np.float32
#: gnubg's position classes (the subset gnubg 1.07 reaches with its standard databases).
OVER, BEAROFF2, BEAROFF1, RACE, CRASHED, CONTACT = 0, 4, 6, 8, 9, 10

# gnubg's sigmoid table: exp(k / 10) / 10 as float32, the last entry repeated.
_E = np.array([math.exp(k / 10.0) / 10.0 for k in range(100)] + [math.exp(9.9) / 10.0],
              dtype=np.float32)  # fmt: skip
_BIG = F32(19931.370438230298)
# gnubg's -ffast-math build multiplies by these reciprocals where its source divides
_INV65535 = F32(1.0) / F32(65535.0)
_INV32767_5 = F32(1.0) / F32(32767.5)
_BIG_M1 = F32(19930.370438230298)

# C(n, r) for the bearoff index (gnubg's PositionBearoff), n, r <= 40.
_BINOM = np.zeros((41, 41), dtype=np.int64)
_BINOM[:, 0] = 1
for _n in range(1, 41):
    _BINOM[_n, 1 : _n + 1] = _BINOM[_n - 1, 0:_n] + _BINOM[_n - 1, 1 : _n + 1]

_SEARCH, _MATERIALIZE = search_kernels()


# Every kernel below but ``run`` compiles without numba's reference counts
# (:func:`mathbg._native.no_refcounts`): none allocates or keeps an array past its call.

#: x86 processors: the hidden layer's reciprocal is the processor's approximate RCPSS, as in
#: gnubg's SSE build (compiled with -ffast-math, it takes RCPPS for 1 / x); elsewhere gnubg
#: builds without SIMD and divides.
X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86")


@intrinsic
def _rcp4(typingctx: Any, arr: Any, i: Any) -> Any:
    """``arr[i:i + 4]`` replaced by the x86 approximate reciprocals (RCPPS) of its values."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        vec = ir.VectorType(ir.FloatType(), 4)
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), vec.as_pointer())
        fn = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
            builder.module, ir.FunctionType(vec, [vec]), "llvm.x86.sse.rcp.ps")  # fmt: skip
        builder.store(builder.call(fn, [builder.load(ptr, align=4)]), ptr, align=4)
        return context.get_dummy_value()

    return types.void(arr, i), codegen


def _accumulator(units: int, scaled: bool) -> Any:
    """An intrinsic that adds rows of weights to a hidden layer of ``units`` (a multiple of
    8) in 8-lane registers: ``add(hidden, rows, inputs, active, n)`` adds
    ``rows[i] * inputs[i]`` for the ``n`` indices ``i`` in ``active`` (int64), in order;
    without ``scaled``, ``add(hidden, rows, active, n)`` adds ``rows[i]``. ``rows`` is a
    C-contiguous array whose last axis is the ``units`` (its row ``i`` the ``i``-th run of
    ``units`` values). Each unit's sum is in the same order as one unit at a time, a
    product then a sum, never fused: the same bits as a plain loop (and as gnubg's SSE
    loop), with the units in registers while the rows pass (blocks of 64)."""
    block_vectors = min(units // 8, 8)
    blocks = units // (8 * block_vectors)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        arrays = [context.make_array(signature.args[j])(context, builder, args[j])
                  for j in range(len(args) - 1)]  # fmt: skip
        hidden, rows, active = arrays[0], arrays[1], arrays[-1]
        i64 = ir.IntType(64)
        vec = ir.VectorType(ir.FloatType(), 8)
        accs = [cgutils.alloca_once(builder, vec)  # type: ignore[no-untyped-call]
                for _ in range(block_vectors)]  # fmt: skip
        hidden_v = builder.bitcast(hidden.data, vec.as_pointer())

        def units_at(block: int, v: int) -> Any:  # the 8 units at 64 block + 8 v
            return builder.gep(hidden_v, [ir.Constant(i64, block_vectors * block + v)])

        for block in range(blocks):
            for v in range(block_vectors):
                builder.store(builder.load(units_at(block, v), align=4), accs[v])
            with cgutils.for_range(builder, args[-1]) as loop:
                i = builder.load(builder.gep(active.data, [loop.index]))
                start = builder.add(builder.mul(i, ir.Constant(i64, units)),
                                    ir.Constant(i64, 8 * block_vectors * block))  # fmt: skip
                row = builder.bitcast(builder.gep(rows.data, [start]), vec.as_pointer())
                if scaled:
                    a = builder.load(builder.gep(arrays[2].data, [i]))
                    a8 = ir.Constant(vec, ir.Undefined)
                    for lane in range(8):
                        a8 = builder.insert_element(a8, a, ir.Constant(ir.IntType(32), lane))
                for v in range(block_vectors):
                    w = builder.load(builder.gep(row, [ir.Constant(i64, v)]), align=4)
                    term = builder.fmul(w, a8) if scaled else w
                    builder.store(builder.fadd(builder.load(accs[v]), term), accs[v])
            for v in range(block_vectors):
                builder.store(builder.load(accs[v]), units_at(block, v), align=4)
        return context.get_dummy_value()

    def typer(typingctx: Any, *args: Any) -> Any:
        # the code reads raw, contiguous float32 rows and int64 indices: any other type is a
        # typing error, never a wrong sum
        arrays = args[:-1]
        dtypes = [types.float32, types.float32, *([types.float32] if scaled else []),
                  types.int64]  # fmt: skip
        if args[-1] != types.int64 or len(arrays) != len(dtypes) or not all(
            isinstance(a, types.Array) and a.layout == "C" and a.dtype == d
            for a, d in zip(arrays, dtypes, strict=True)
        ):
            return None
        return types.void(*args), codegen

    def add_scaled(typingctx: Any, hidden: Any, rows: Any, inputs: Any, active: Any,
                   n: Any) -> Any:  # fmt: skip
        return typer(typingctx, hidden, rows, inputs, active, n)

    def add_rows(typingctx: Any, hidden: Any, rows: Any, active: Any, n: Any) -> Any:
        return typer(typingctx, hidden, rows, active, n)

    return intrinsic(add_scaled if scaled else add_rows)


#: The contact and crashed networks' hidden sums, and the pruning networks' (their point
#: tables' rows added, no inputs to scale them).
_ADD_SCALED_128 = _accumulator(128, True)
_ADD_ROWS_16 = _accumulator(16, False)


if X86:

    @nb.njit(cache=True, inline="always")
    def _reciprocals(den: Any, n: Any) -> None:
        for k in range(0, n, 4):
            _rcp4(den, k)  # type: ignore[call-arg]

else:  # pragma: no cover - tested on x86 only

    @nb.njit(cache=True, inline="always")
    def _reciprocals(den: Any, n: Any) -> None:
        for k in range(n):
            den[k] = F32(1.0) / den[k]


@nb.njit(cache=True, inline="always")
def _sigmoid(x: Any) -> Any:
    """gnubg's scalar sigmoid ``1 / (1 + e^x)`` by table (the output layer)."""
    if not (x < 0 or (x == 0 and math.copysign(1.0, x) < 0)):
        if x < F32(10.0):
            x1 = F32(10.0) * x
            i = int(x1)
            return F32(1.0) / (F32(1.0) + _E[i] * (F32(10 - i) + x1))
        return F32(1.0) / _BIG
    if x > F32(-10.0):
        x1 = F32(-10.0) * x
        i = int(x1)
        return F32(1.0) - F32(1.0) / (F32(1.0) + _E[i] * (F32(10 - i) + x1))
    return _BIG_M1 / _BIG


@no_refcounts
def _network(inputs: Any, hw: Any, ow: Any, ht: Any, ot: Any, beta_h: Any, beta_o: Any,
             hidden: Any, den: Any, active: Any, out: Any, nh: Any) -> None:  # fmt: skip
    """:func:`forward` for ``nh`` hidden units, ``nh`` a literal (each size compiles with
    its count known: the compiler's vector code needs it, about four times as fast);
    ``active`` is scratch for the indices of the non-zero inputs."""
    nh = literally(nh)
    n = 0
    for i in range(inputs.shape[0]):  # the non-zero inputs' indices, without a branch
        active[n] = i
        n += inputs[i] != F32(0.0)
    for k in range(nh):
        hidden[k] = ht[k]
    if nh == 128:
        _ADD_SCALED_128(hidden, hw, inputs, active, n)
    else:
        for m in range(n):
            i = active[m]
            a = inputs[i]
            # gnubg adds the weights of an input of 1 without multiplying: the same bits
            for k in range(nh):
                hidden[k] += hw[i, k] * a
    _squash(hidden, den, beta_h, nh)
    for o in range(5):
        out[o] = _sigmoid(-(beta_o * (_output_sum(hidden, ow, o, nh) + ot[o])))


@nb.njit(cache=True, inline="always")
def _squash(hidden: Any, den: Any, beta_h: Any, nh: Any) -> None:
    """gnubg's SSE sigmoid of the hidden layer in place: its table, then the processor's
    approximate reciprocal four at a time (``den`` is scratch)."""
    for k in range(nh):
        y = hidden[k] * beta_h
        hidden[k] = y
        x1 = min(abs(y), F32(10.0)) * F32(10.0)
        j = int(x1)
        den[k] = ((x1 - F32(j)) + F32(10.0)) * _E[j] + F32(1.0)
    _reciprocals(den, nh)
    for k in range(nh):
        hidden[k] = den[k] if hidden[k] < F32(0.0) else F32(1.0) - den[k]


@nb.njit(cache=True, inline="always")
def _output_sum(hidden: Any, ow: Any, o: Any, nh: Any) -> Any:
    """Output ``o``'s weighted sum of the hidden layer in four lanes, as SSE sums it."""
    s0 = F32(0.0)
    s1 = F32(0.0)
    s2 = F32(0.0)
    s3 = F32(0.0)
    for k in range(0, nh, 4):
        s0 += hidden[k] * ow[o, k]
        s1 += hidden[k + 1] * ow[o, k + 1]
        s2 += hidden[k + 2] * ow[o, k + 2]
        s3 += hidden[k + 3] * ow[o, k + 3]
    return (s0 + s1) + (s2 + s3)


@no_refcounts
def forward(inputs: Any, net: Any, work: Any, out: Any) -> None:
    """One network (``net``: hidden weights, output weights, hidden and output thresholds,
    the two sigmoid scales): the hidden sums input by input (zero inputs skipped), gnubg's
    SSE sigmoid of the hidden layer (its table, then the processor's approximate reciprocal
    four at a time), and each output summed in four lanes as SSE sums it."""
    hw, ow, ht, ot, beta_h, beta_o = net
    nh = hw.shape[1]
    if nh == 128:
        _network(inputs, hw, ow, ht, ot, beta_h, beta_o, work[1], work[2], work[3], out, 128)
    elif nh == 16:
        _network(inputs, hw, ow, ht, ot, beta_h, beta_o, work[1], work[2], work[3], out, 16)
    else:
        _network(inputs, hw, ow, ht, ot, beta_h, beta_o, work[1], work[2], work[3], out, 8)


@no_refcounts
def bearoff_rank(row: Any, points: Any) -> Any:
    """gnubg's ``PositionBearoff`` of a side's points 1..``points``."""
    total = 0
    for i in range(points):
        total += int(row[i])
    rank = 0
    above = total
    for k in range(points):
        rank += _BINOM[points - 1 - k + above, points - k]
        above -= int(row[k])
    return rank


@no_refcounts
def _side_top(board: Any, side: Any) -> Any:
    base = 25 * side
    for i in range(24, -1, -1):
        if board[base + i]:
            return i
    return -1


@no_refcounts
def _in_database(board: Any, checkers: Any) -> Any:
    """gnubg's ``isBearoff`` for a 6-point database of ``checkers``: no contact, both sides
    within their home boards with at most ``checkers`` each."""
    for side in range(2):
        top = _side_top(board, side)
        if top < 1 and board[25 * side] == 0:
            return False
        if top > 5:
            return False
        n = 0
        for i in range(top + 1):
            n += int(board[25 * side + i])
        if n > checkers:
            return False
    return True


@no_refcounts
def classify(board: Any) -> Any:
    """gnubg's ``ClassifyPosition`` with its standard databases (two-sided 6 x 6 in
    memory, one-sided 6 x 15): OVER, BEAROFF2, BEAROFF1, RACE, CRASHED or CONTACT."""
    opp_back = _side_top(board, np.int64(0))
    back = _side_top(board, np.int64(1))
    if back < 0 or opp_back < 0:
        return OVER
    if back + opp_back > 22:
        for side in range(2):
            row = board[25 * side : 25 * side + 25]
            tot = 0
            for i in range(25):
                tot += int(row[i])
            if tot <= 6:
                return CRASHED
            if row[0] > 1:
                if tot <= 6 + int(row[0]):
                    return CRASHED
                if row[1] > 1 and 1 + tot - (int(row[0]) + int(row[1])) <= 6:
                    return CRASHED
            elif tot <= 5 + int(row[1]):
                return CRASHED
        return CONTACT
    if _in_database(board, np.int64(6)):
        return BEAROFF2
    if _in_database(board, np.int64(15)):
        return BEAROFF1
    return RACE


@no_refcounts
def _over(board: Any, out: Any) -> None:
    """A finished game (gnubg's ``EvalOver``): the side that has borne off won, a gammon
    when the other has all 15 on the board, a backgammon when one is in the winner's home
    board or on the bar."""
    for k in range(5):
        out[k] = F32(0.0)
    for loser, win in ((1, False), (0, True)):
        winner = 1 - loser
        if _side_top(board, winner) >= 0:
            continue
        c = 0
        bg = False
        for i in range(25):
            c += int(board[25 * loser + i])
            if i >= 18 and board[25 * loser + i]:
                bg = True
        gammon = F32(1.0) if c == 15 else F32(0.0)
        backgammon = F32(1.0) if c == 15 and bg else F32(0.0)
        if win:
            out[0] = F32(1.0)
            out[1] = gammon
            out[2] = backgammon
        else:
            out[3] = gammon
            out[4] = backgammon
        return


@no_refcounts
def _one_sided(board: Any, dist: Any, out: Any) -> None:
    """gnubg's ``BearoffEvalOneSided``: winning and gammon chances from the two sides'
    distributions of rolls to bear off (16-bit, / 65535) in float32."""
    me = bearoff_rank(board[25:31], 6)
    them = bearoff_rank(board[0:6], 6)
    r = F32(0.0)
    for i in range(32):
        pi = F32(dist[me, i]) * _INV65535
        for j in range(i, 32):
            r += pi * (F32(dist[them, j]) * _INV65535)
    out[0] = r
    on_me = 0
    on_them = 0
    for i in range(25):
        on_me += int(board[25 + i])
        on_them += int(board[i])
    out[1] = F32(0.0)
    out[3] = F32(0.0)
    if on_me == 15 or on_them == 15:
        r = F32(0.0)
        for i in range(32):
            pi = F32(dist[me, i]) * _INV65535
            for j in range(i, 32):
                r += pi * (F32(dist[them, 32 + j]) * _INV65535)
        out[1] = r
        r = F32(0.0)
        for i in range(32):
            pi = F32(dist[them, i]) * _INV65535
            for j in range(i + 1, 32):
                r += pi * (F32(dist[me, 32 + j]) * _INV65535)
        out[3] = r
    out[2] = F32(0.0)
    out[4] = F32(0.0)


@no_refcounts
def _two_sided(board: Any, table: Any, out: Any) -> None:
    """gnubg's ``BearoffEvalTwoSided``: the winning chance from the 16-bit cubeless equity."""
    me = bearoff_rank(board[25:31], 6)
    them = bearoff_rank(board[0:6], 6)
    eq = F32(table[me, them]) * _INV32767_5 - F32(1.0)
    for k in range(5):
        out[k] = F32(0.0)
    out[0] = eq / F32(2.0) + F32(0.5)


@no_refcounts
def _race_bg_chance(board: Any, side: Any, dist: Any, race_bg: Any, scratch_board: Any,
                    scratch_out: Any) -> Any:  # fmt: skip
    """gnubg's ``raceBGprob``: the chance that ``side`` (1: on roll) wins a backgammon in a
    race, from the loser's escape table and the winner's bearoff distribution
    (``scratch_board``, ``scratch_out``: scratch of 50 and 5 cells)."""
    other = 1 - side
    home = 0
    for i in range(6):
        home += int(board[25 * side + i])
    pips = 0
    for i in range(22, 17, -1):
        pips += int(board[25 * other + i]) * (i - 17)
    if not ((home + 3) // 4 - (1 if side == 1 else 0) <= (pips + 2) // 3):
        return F32(0.0)
    group = 0
    tot = 0
    for i in range(4, -1, -1):
        c = int(board[25 * other + 18 + i])
        if c:
            group += 1 << i
        tot += c
    if tot <= 6:
        g = 0
        for k in range(5):
            if group & (1 << k):
                scratch_board[g] = board[25 * other + 18 + k] - 1
                g += 1
        index = bearoff_rank(scratch_board, g)
        me = bearoff_rank(board[25 * side : 25 * side + 6], 6)
        p = F32(0.0)
        scale = 36 if side == 0 else 1
        for j in range(1 - side, 5):
            total = 0
            scale *= 36
            for i in range(1, j + side + 1):
                total += int(dist[me, i])
            p += F32(race_bg[group - 1, index, j]) / F32(scale) * F32(total)
        p = p * _INV65535
        return p if p < F32(1.0) else F32(1.0)
    # too many checkers for the table: a one-sided bearoff of the loser's checkers there
    for i in range(50):
        scratch_board[i] = 0
    for i in range(25):
        scratch_board[25 * side + i] = board[25 * side + i]
    for i in range(6):
        scratch_board[25 * other + i] = board[25 * other + 18 + i]
    _one_sided(scratch_board, dist, scratch_out)  # rare: more than 6 checkers to leave
    p = scratch_out[0] if side == 1 else F32(1.0) - scratch_out[0]
    return p if p < F32(1.0) else F32(1.0)


@no_refcounts
def race_backgammons(board: Any, dist: Any, race_bg: Any, out: Any, scratch_board: Any,
                      scratch_out: Any) -> None:  # fmt: skip
    """gnubg's ``EvalRaceBG``: the backgammon chance of a race overrides the network's."""
    men0 = 0
    men1 = 0
    far0 = False
    far1 = False
    for i in range(24):
        men0 += int(board[i])
        men1 += int(board[25 + i])
        if i >= 18:
            far0 = far0 or board[i] > 0
            far1 = far1 or board[25 + i] > 0
    # side 0 (not on roll) may be backgammoned when it has all 15 on the board with one
    # in the roller's home board, and likewise side 1
    bg_me = men0 == 15 and far0
    bg_them = men1 == 15 and far1
    if not (bg_me or bg_them):
        return
    side = 1 if bg_me else 0
    p = _race_bg_chance(board, side, dist, race_bg, scratch_board, scratch_out)
    if p > F32(0.0):
        if side == 1:
            out[2] = p
            if out[1] < out[2]:
                out[1] = out[2]
        else:
            out[4] = p
            if out[3] < out[4]:
                out[3] = out[4]
    elif side == 1:
        out[2] = F32(0.0)
    else:
        out[4] = F32(0.0)


@no_refcounts
def _max_turns(board: Any, side: Any, dist: Any) -> Any:
    """The last turn with a non-zero chance in the side's bearoff distribution (-1: none):
    read where it is needed, the table's pages the race touches and no more."""
    row = bearoff_rank(board[25 * side : 25 * side + 6], 6)
    for c in range(31, -1, -1):
        if dist[row, c] != 0:
            return c
    return -1


@no_refcounts
def _crossovers(board: Any, side: Any) -> Any:
    """A side's checkers on the board, its back checker, its crossovers to bear off
    (gnubg's ``anCross``) and to get home (``anGammonCross``, from 1)."""
    base = 25 * side
    count = 0
    back = 0
    cross = 0
    gcross = 1
    for q in range(4):
        n = 0
        for i in range(6 * q, 6 * q + 6):
            if board[base + i]:
                back = i
                n += int(board[base + i])
        count += n
        cross += (q + 1) * n
        gcross += q * n
    bar = int(board[base + 24])
    if bar:
        back = 24
        count += bar
        cross += 5 * bar
        gcross += 4 * bar
    return count, back, cross, gcross


@no_refcounts
def sanity(board: Any, dist: Any, out: Any) -> None:
    """gnubg 1.07's ``SanityCheck`` of a network's outputs: in a race, certain wins and
    losses (crossovers against the most turns the other side needs), impossible and certain
    gammons, impossible backgammons; a side that has borne off loses no gammon; then WG <= W,
    LG <= 1 - W, WB <= WG, LB <= LG, and with contact gammons below 1e-4 set to 0."""
    count0, back0, cross0, gcross0 = _crossovers(board, np.int64(0))
    count1, back1, cross1, gcross1 = _crossovers(board, np.int64(1))
    contact = back0 + back1 >= 24
    turns0 = 0
    turns1 = 0
    if not contact:
        turns0 = _max_turns(board, np.int64(0), dist) if back0 < 6 else cross0 * 2
        turns1 = _max_turns(board, np.int64(1), dist) if back1 < 6 else cross1 * 2
        if turns1 == 0:
            turns1 = 1
        if cross0 > 4 * (turns1 - 1):
            out[0] = F32(1.0)
    if count0 < 15:
        out[1] = F32(0.0)
        out[2] = F32(0.0)
    elif not contact:
        if cross1 > 8 * gcross0:
            out[1] = F32(0.0)
        elif gcross0 > 4 * (turns1 - 1):
            out[1] = F32(1.0)
        if back0 < 18:
            out[2] = F32(0.0)
    if not contact and cross1 > 4 * turns0:
        out[0] = F32(0.0)
    if count1 < 15:
        out[3] = F32(0.0)
        out[4] = F32(0.0)
    elif not contact:
        if cross0 > 8 * gcross1 - 4:
            out[3] = F32(0.0)
        elif gcross1 > 4 * turns0:
            out[3] = F32(1.0)
        if back1 < 18:
            out[4] = F32(0.0)
    if out[1] > out[0]:
        out[1] = out[0]
    lose = F32(1.0) - out[0]
    if out[3] > lose:
        out[3] = lose
    if out[2] > out[1]:
        out[2] = out[1]
    if out[4] > out[3]:
        out[4] = out[3]
    if contact:
        for i in range(1, 5):
            if out[i] < F32(1e-4):
                out[i] = F32(0.0)


@nb.njit(cache=True, inline="always")
def evaluate(board: Any, model: Any, work: Any, out: Any) -> Any:
    """gnubg 1.07's 0-ply outputs of ``board`` for the side on roll into ``out`` (float32
    W, WG, WB, LG, LB, gammons cumulative); returns the position class. Inlined where it
    is called (as :func:`cached_evaluate` is): a call passes every array of the model's
    tuples as an argument, hundreds of words copied a call."""
    inputs, hit, spare = work[0], work[4], work[5]
    contact, race, crashed, dist, two_sided, race_bg = model[:6]
    klass = classify(board)
    if klass == OVER:
        _over(board, out)
    elif klass == BEAROFF2:
        _two_sided(board, two_sided, out)
    elif klass == BEAROFF1:
        _one_sided(board, dist, out)
    elif klass == RACE:
        race_inputs(board, inputs)
        forward(inputs[:214], race, work, out)
        # the hidden layer's denominators are free once the network has run
        race_backgammons(board, dist, race_bg, out, spare, work[2])
        sanity(board, dist, out)
    else:
        crashed_net = klass == CRASHED
        contact_inputs(board, crashed_net, inputs, hit)
        forward(inputs, crashed if crashed_net else contact, work, out)
        sanity(board, dist, out)
    return klass


# ----------------------------------------------------------------------------- the rollouts'
# kernels: gnubg's pruning networks, a cache of evaluated positions, and the best play of
# many (board, roll) pairs at once.


@nb.njit(cache=True, inline="always")
def prune_score(board: Any, net: Any, hidden: Any, den: Any, active: Any, weights: Any) -> Any:
    """``outputs @ weights`` of gnubg's pruning network ``net`` (of the play's class: race,
    crashed, contact) for ranking plays, inlined into :func:`choose_play`: the hidden sums
    from the network's point tables (each cell's four inputs summed once,
    :func:`mathbg.analysis.net.tables.point_tables`; 16 hidden units, the race network's 8
    padded with units of no weight), gnubg's sigmoids as in :func:`forward` (gnubg
    evaluates its pruning networks with its SSE code too), no sanity check (the ranking is
    all it serves)."""
    table, ow, ht, ot, beta_h, beta_o = net
    m = 0
    for c in range(50):  # the rows of the occupied cells, without a branch
        n = board[c]
        active[m] = 16 * c + n
        m += n != 0
    for h in range(16):
        hidden[h] = ht[h]
    _ADD_ROWS_16(hidden, table, active, m)
    _squash(hidden, den, beta_h, 16)
    s = 0.0
    for o in range(5):
        s += weights[o] * np.float64(_sigmoid(-(beta_o * (_output_sum(hidden, ow, o, 16)
                                                         + ot[o]))))  # fmt: skip
    return s


#: Slots of the cache that finds the plays a board reaches by more than one roll (the same
#: checkers moved the same pips by other dice: about one play in ten of a match's).
PLAY_CACHE_SLOTS = 1 << 12


@nb.njit(cache=True, inline="always")
def board_words(board: Any) -> Any:
    """A board's key in the position caches: four words of its 4-bit counts (the last
    holds cells 48 and 49 in its low byte)."""
    k0 = np.int64(0)
    k1 = np.int64(0)
    k2 = np.int64(0)
    for i in range(16):
        k0 |= np.int64(board[i]) << (4 * i)
        k1 |= np.int64(board[16 + i]) << (4 * i)
        k2 |= np.int64(board[32 + i]) << (4 * i)
    return k0, k1, k2, np.int64(board[48]) | (np.int64(board[49]) << 4)


@nb.njit(cache=True, inline="always")
def words_hash(k0: Any, k1: Any, k2: Any, k3: Any) -> Any:
    """The hash of a key's four words (its low bits pick the first slot)."""
    h = (k0 * np.int64(-7046029254386353131)) ^ (k1 * np.int64(-4658895280553007687))
    h ^= (k2 * np.int64(-7723592293110705685)) ^ (k3 * np.int64(0x2545F4914F6CDD1D))
    return h ^ (h >> 31)


@nb.njit(cache=True, inline="always")
def cached_evaluate(board: Any, model: Any, work: Any, cache: Any, out: Any) -> Any:
    """:func:`evaluate` through the cache (a board's four words of 4-bit counts are its
    key; at most half its slots in use, then it starts again); returns the class."""
    keys, values, classes, stamps, state = cache
    k0, k1, k2, k3 = board_words(board)
    h = words_hash(k0, k1, k2, k3)
    mask = keys.shape[0] - 1
    slot = h & mask
    stamp = state[0]
    while stamps[slot] == stamp:
        if keys[slot, 0] == k0 and keys[slot, 1] == k1 and keys[slot, 2] == k2 and (
            keys[slot, 3] == k3
        ):
            for j in range(5):
                out[j] = values[slot, j]
            return classes[slot]
        slot = (slot + 1) & mask
    klass = evaluate(board, model, work, out)
    if state[1] >= keys.shape[0] // 2:  # full: start again (entries of older stamps are free)
        state[0] += 1
        state[1] = 0
        slot = h & mask
    stamps[slot] = state[0]
    keys[slot, 0] = k0
    keys[slot, 1] = k1
    keys[slot, 2] = k2
    keys[slot, 3] = k3
    for j in range(5):
        values[slot, j] = out[j]
    classes[slot] = klass
    state[1] += 1
    return klass


@no_refcounts
def _score(probs: Any, weights: Any) -> Any:
    s = 0.0
    for j in range(5):
        s += np.float64(probs[j]) * weights[j]
    return s


@no_refcounts
def choose_play(board: Any, d1: Any, d2: Any, weights: Any, keep: Any, model: Any,
                work: Any, ws: Any, cache: Any, plays: Any, scores: Any, probs: Any,
                out_board: Any, out_probs: Any) -> Any:  # fmt: skip
    """The play of the roll with the largest ``probs @ weights`` (the next side's 0-ply
    outputs after it; the first of equals in the move generator's order): its board (the
    next side on roll) into ``out_board``, its outputs into ``out_probs``; returns its
    class (-1: the workspace was too small; -2: ``plays`` was). With ``keep > 0``, gnubg's
    pruned search (``FindBestMoveInEval``): the pruning networks rank the plays and only
    the best ``keep`` are valued by the full network, when every play leaves a position of
    one network class (race, crashed or contact); else every play is valued.
    ``plays``, ``scores`` and ``probs`` are scratch (rows of 50 and a score for at least the
    plays of a roll, 5 outputs)."""
    n = _SEARCH(board, d1, d2, ws)
    if n < 0:
        return -1
    if n > plays.shape[0]:
        return -2
    if n == 0:  # no legal play: the turn passes
        for c in range(25):
            out_board[c] = board[25 + c]
            out_board[25 + c] = board[c]
        return cached_evaluate(out_board, model, work, cache, out_probs)
    _MATERIALIZE(board, ws[3], n, plays, np.int64(0))
    for j in range(n):  # the next side on roll: swap the halves in place
        for c in range(25):
            t = plays[j, c]
            plays[j, c] = plays[j, 25 + c]
            plays[j, 25 + c] = t
    pruned = keep > 0 and n > keep
    hidden, den, active = work[1], work[2], work[3]
    best = -1
    best_score = -np.inf
    if pruned:
        first = -1
        for j in range(n):
            klass = classify(plays[j])
            if klass < RACE or (j > 0 and klass != first):  # gnubg prunes one class only
                pruned = False
                break
            first = klass
            # the class's network and the scratch, not the model and the workspace: a
            # call passes each array of its tuples as arguments, hundreds for the model
            if klass == RACE:
                scores[j] = prune_score(plays[j], model[7], hidden, den, active, weights)
            elif klass == CRASHED:
                scores[j] = prune_score(plays[j], model[8], hidden, den, active, weights)
            else:
                scores[j] = prune_score(plays[j], model[6], hidden, den, active, weights)
    if pruned:
        for _ in range(keep):  # the best ``keep`` by score, the first of equals first
            j = 0
            for m in range(1, n):
                if scores[m] > scores[j]:
                    j = m
            scores[j] = -np.inf
            cached_evaluate(plays[j], model, work, cache, probs)
            s = _score(probs, weights)
            if s > best_score or (s == best_score and j < best):
                best, best_score = j, s
    else:
        for j in range(n):
            cached_evaluate(plays[j], model, work, cache, probs)
            s = _score(probs, weights)
            if s > best_score:
                best, best_score = j, s
    for c in range(50):
        out_board[c] = plays[best, c]
    return cached_evaluate(out_board, model, work, cache, out_probs)


@no_refcounts
def _pips(board: Any) -> Any:
    """The pip count of the side on roll."""
    p = 0
    for i in range(25):
        p += (i + 1) * int(board[25 + i])
    return p


@no_refcounts
def _differ(a: Any, b: Any) -> Any:
    """Whether two boards differ."""
    for c in range(50):
        if a[c] != b[c]:
            return True
    return False


@no_refcounts
def _all_plays(board: Any, d1: Any, d2: Any, model: Any, work: Any, ws: Any, cache: Any,
               res: Any, probs: Any, total: Any) -> Any:  # fmt: skip
    """Every play of a roll (the next side on roll) with its outputs (through ``cache``),
    appended to ``res`` and ``probs`` from row ``total``; returns the new total (-1: the
    workspace was too small, -2: the arrays were)."""
    n = _SEARCH(board, d1, d2, ws)
    if n < 0:
        return -1
    if total + n > res.shape[0]:
        return -2
    _MATERIALIZE(board, ws[3], n, res, total)
    for j in range(total, total + n):
        for c in range(25):
            t = res[j, c]
            res[j, c] = res[j, 25 + c]
            res[j, 25 + c] = t
        cached_evaluate(res[j], model, work, cache, probs[j])
    return total + n


@nb.njit(cache=True)
def run(mode: Any, boards: Any, rolls: Any, weights: Any, keep: Any, model: Any, work: Any,
        ws: Any, cache: Any) -> Any:  # fmt: skip
    """The native engine's one entry point (one compile of the evaluation for every use),
    row by row of ``boards``:

    - ``EVALUATE``, ``EVALUATE_CACHED``: the board's outputs (through ``cache`` for the
      latter);
    - ``ALL_PLAYS``: every play of the roll ``rolls[i]`` with its outputs (rows ``ptr[i]:
      ptr[i + 1]`` of the results; a play a run of rows of the same board reaches again,
      by another roll, is looked up, not evaluated again: a cache of its own, emptied when
      the board changes);
    - ``BEST_PLAY``: :func:`choose_play` with ``weights[i]`` and ``keep``.

    Returns ``(ptr, boards, outputs, classes, pips, ok)``: for the one-row modes ``ptr`` is
    ``0..n``, ``boards`` the boards after (BEST_PLAY) or the plays (ALL_PLAYS), ``classes``
    and ``pips`` (of the side on roll) those of each output row (empty for ALL_PLAYS);
    ``ok`` False when the move generator's workspace was too small (enlarge it and call
    again)."""
    n = boards.shape[0]
    cap = n if mode != ALL_PLAYS else max(64, 24 * n)
    ptr = np.arange(n + 1).astype(np.int64)
    res = np.empty((cap, 50), np.uint8)
    probs = np.empty((cap, 5), np.float32)
    plays = np.empty((1024, 50), np.uint8)
    scores = np.empty(1024, np.float64)
    best_probs = np.empty(5, np.float32)
    slots = PLAY_CACHE_SLOTS if mode == ALL_PLAYS else 2
    seen = (np.empty((slots, 4), np.int64), np.empty((slots, 5), np.float32),
            np.empty(slots, np.int64), np.zeros(slots, np.int64), np.ones(2, np.int64))
    total = np.int64(0)
    for i in range(n):
        if mode == EVALUATE or mode == EVALUATE_CACHED:
            for c in range(50):  # element loops: a slice copy compiles numba's shape errors
                res[i, c] = boards[i, c]
            if mode == EVALUATE:
                evaluate(res[i], model, work, probs[i])
            else:
                cached_evaluate(res[i], model, work, cache, probs[i])
        elif mode == ALL_PLAYS:
            if i > 0 and _differ(boards[i], boards[i - 1]):  # a new board: empty the cache
                seen[4][0] += 1
                seen[4][1] = 0
            got = _all_plays(boards[i], rolls[i, 0], rolls[i, 1], model, work, ws, seen, res,
                             probs, total)  # fmt: skip
            while got == -2:
                bigger = np.empty((2 * res.shape[0], 50), np.uint8)
                wider = np.empty((2 * probs.shape[0], 5), np.float32)
                for r in range(total):
                    for c in range(50):
                        bigger[r, c] = res[r, c]
                    for c in range(5):
                        wider[r, c] = probs[r, c]
                res = bigger
                probs = wider
                got = _all_plays(boards[i], rolls[i, 0], rolls[i, 1], model, work, ws, seen,
                                 res, probs, total)  # fmt: skip
            if got < 0:
                return ptr, res[:0], probs[:0], ptr[:0], ptr[:0], False
            total = got
            ptr[i + 1] = total
        else:
            k = choose_play(boards[i], rolls[i, 0], rolls[i, 1], weights[i], keep, model,
                            work, ws, cache, plays, scores, best_probs, res[i],
                            probs[i])  # fmt: skip
            while k == -2:
                plays = np.empty((4 * plays.shape[0], 50), np.uint8)
                scores = np.empty(plays.shape[0], np.float64)
                k = choose_play(boards[i], rolls[i, 0], rolls[i, 1], weights[i], keep, model,
                                work, ws, cache, plays, scores, best_probs, res[i],
                                probs[i])  # fmt: skip
            if k < 0:
                return ptr, res[:0], probs[:0], ptr[:0], ptr[:0], False
    rows = total if mode == ALL_PLAYS else n
    labelled = 0 if mode == ALL_PLAYS else rows  # the plays' callers classify what they need
    classes = np.empty(labelled, np.int64)
    pips = np.empty(labelled, np.int64)
    for j in range(labelled):
        classes[j] = classify(res[j])
        pips[j] = _pips(res[j])
    return ptr, res[:rows], probs[:rows], classes, pips, True
