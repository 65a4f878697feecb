"""numba kernels of :mod:`mathbg.analysis.match_audit.search`: gnubg 1.07's cubeful n-ply
recursion (internal).

The functions follow gnubg's eval.c function by function, in its single precision and in
the order its ``-ffast-math`` build computes:

- :func:`_node1` and :func:`_node2` are ``EvaluatePositionCubeful4`` above the leaves:
  for each of the 21 rolls the side on roll's best play (:func:`_best_play`), then the
  position after it valued one ply less deep (the opponent on roll), in every cube state
  at once; the sums weighted 1 (doubles) or 2, multiplied by the rounded reciprocal of 36;
  at each state the opponent's best of no double and double (``MakeCubePos``,
  ``GetECF3``) below the top ply;
- :func:`_leaf` is its 0-ply end: the network's chances (``EvaluatePositionFull`` through
  the position cache), the cube life of the class (``EvalEfficiency``) and ``Cl2CfMatch``;
  inside the two-sided bearoff database ``EvaluatePerfectCubeful``'s money equities, the
  winning chance and the cube lives backed out of them;
- :func:`_best_play` is ``FindBestMoveInEval``: when every play leaves a position of the
  same class (race or contact) and there are more than ``5 + floor(log2(n))`` of them, the
  pruning network keeps that many, then each is valued by the cubeful 0-ply ``ScoreMove``
  of the state (the largest cubeful equity, ties to the larger cubeless one).

A cube state is a row of the tables :func:`mathbg.analysis.match_audit.search.state_tables`
builds (the score's states over the cube levels the search can reach).
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from mathbg._native import no_refcounts_ieee
from mathbg.analysis.match_audit._kernels import cubeful, utility
from mathbg.analysis.match_audit._layout import (
    CASH,
    CENTRED,
    OPP_CASH,
    OWNED,
    OWNER,
    SEARCH_DONE,
    SEARCH_PLAYS,
    SEARCH_WORKSPACE,
)
from mathbg.analysis.net._inputs import point_inputs
from mathbg.analysis.net._kernels import (
    BEAROFF1,
    BEAROFF2,
    CRASHED,
    OVER,
    RACE,
    bearoff_rank,
    board_words,
    cached_evaluate,
    classify,
    forward,
    race_backgammons,
    sanity,
    words_hash,
)
from mathbg.rules.movegen import search_kernels

_SEARCH, _MATERIALIZE = search_kernels()
F32 = np.float32
_ONE, _TWO, _HALF, _ZERO = F32(1.0), F32(2.0), F32(0.5), F32(0.0)
#: ``1 / 36`` rounded to single precision (gnubg's build multiplies by it).
_RCP36 = _ONE / F32(36.0)
#: The two-sided database's stored equities: 16-bit, ``e / 32767.5 - 1``.
_TS_SCALE = _ONE / F32(32767.5)
#: The smallest number of plays ``FindBestMoveInEval`` keeps (``MIN_PRUNE_MOVES``).
MIN_PRUNE = 5


@no_refcounts_ieee
def _cube_life(board: Any, klass: Any) -> Any:
    """gnubg ``EvalEfficiency``: the cube life of the class (the race's from the pips of
    the side on roll)."""
    if klass == OVER:
        return _ZERO
    if klass == RACE:
        p = 0
        for i in range(25):
            p += (i + 1) * int(board[25 + i])
        e = F32(p) * F32(0.00125) + F32(0.55)
        return F32(0.7) if e > F32(0.7) else F32(0.6) if e < F32(0.6) else e
    if klass == BEAROFF1:
        return F32(0.6)
    return F32(0.68)  # contact and crashed


@no_refcounts_ieee
def _perfect(board: Any, ts: Any, e: Any, out: Any) -> None:
    """``EvaluatePerfectCubeful``'s money equities ``e`` (cubeless, owned, centred, the
    other's) and the winning chance from them (no gammons) into ``out``."""
    me = bearoff_rank(board[25:31], 6)
    them = bearoff_rank(board[0:6], 6)
    for k in range(4):
        e[k] = F32(ts[me, them, k]) * _TS_SCALE - _ONE
    for k in range(5):
        out[k] = _ZERO
    out[0] = (_ONE + e[0]) * _HALF


@no_refcounts_ieee
def _money_live(w: Any, owner: Any) -> Any:
    """``Cl2CfMoney``'s live cube equity of a winning chance ``w`` without gammons (its
    gammon rates 0: take point 0.5 / 2.5, cash point 2 / 2.5)."""
    if not (w > F32(1e-7) and w < F32(0.9999999)):
        return w + w - _ONE
    d = F32(1.5) + _ONE
    tp = _HALF / d
    cp = _TWO / d
    if owner == CENTRED:
        if tp > w:
            return -_ONE
        if cp > w:
            return (w - tp + (w - tp)) / (_TWO - _HALF) * d - _ONE
        return _ONE
    if owner == OWNED:
        if cp > w:
            return (w * _TWO) / cp - _ONE
        return _ONE
    if tp > w:
        return -_ONE
    return _TWO * (w - tp) / (_ONE - tp) - _ONE


@no_refcounts_ieee
def _perfect_life(e: Any, w: Any, owner: Any) -> Any:
    """The cube life gnubg backs out of the database's money equities (clamped to
    [0, 0.6])."""
    cl = e[0]
    cf = _money_live(w, owner)
    money = e[1] if owner == OWNED else (e[2] if owner == CENTRED else e[3])
    x = (money - cl) / (cf - cl) if abs(cl - cf) > F32(0.0001) else F32(0.6)
    return _ZERO if x < _ZERO else F32(0.6) if x > F32(0.6) else x


@nb.njit(cache=True, inline="always", error_model="numpy")
def _decide(nd: Any, dt: Any, dp: Any) -> Any:
    """``GetECF3``: the doubler's best of no double and double (take or pass)."""
    if dt >= nd and dp >= nd:
        return dp if dt >= dp else dt
    return nd


@no_refcounts_ieee
def _leaf(board: Any, states: Any, m: Any, tables: Any, ctx: Any, out_p: Any,
          out_v: Any) -> None:  # fmt: skip
    """0 plies: the chances of the board (the side on roll's) into ``out_p`` and its
    cubeful MWC at each of the ``m`` states (-1: none) into ``out_v``."""
    si, sf, may, dpv, _, _, dbl, _ = tables
    model, work, _, cache, live, _, ts, sx, _ = ctx
    k = classify(board)
    perfect = k == BEAROFF2
    e = sx[6]
    x = _ZERO
    if perfect:
        _perfect(board, ts, e, out_p)
    else:
        k = cached_evaluate(board, model, work, cache, out_p)
        x = _cube_life(board, k)
    for i in range(m):
        s = states[i]
        if s < 0:
            out_v[i] = _ZERO
            continue
        xs = _perfect_life(e, out_p[0], si[s, OWNER]) if perfect else x
        nd = cubeful(out_p, si[s], sf[s], xs, live)
        if may[s]:
            d = dbl[s]
            xd = _perfect_life(e, out_p[0], si[d, OWNER]) if perfect else x
            out_v[i] = _decide(nd, cubeful(out_p, si[d], sf[d], xd, live), dpv[s])
        else:
            out_v[i] = nd


@no_refcounts_ieee
def _prune(plays: Any, n: Any, keep: Any, klass: Any, sf: Any, ctx: Any, cand: Any) -> None:
    """``FindBestMoveInEval``'s pruning: the ``keep`` plays with the best cubeless match
    value by the class's pruning network into ``cand``, in gnubg's selection order."""
    model, work, _, _, _, pn, _, sx, _ = ctx
    u, inp, po = sx[2], sx[3], sx[4]
    for j in range(n):
        point_inputs(plays[j, 0:25], inp, np.int64(0), True)
        point_inputs(plays[j, 25:50], inp, np.int64(100), True)
        if klass == RACE:
            forward(inp, pn[1], work, po)
            race_backgammons(plays[j], model[3], model[5], po, work[5], work[2])
        elif klass == CRASHED:
            forward(inp, pn[2], work, po)
        else:
            forward(inp, pn[0], work, po)
        sanity(plays[j], model[3], po)
        u[j] = _HALF * (utility(po, sf) * (sf[CASH] - sf[OPP_CASH]) + (sf[CASH] + sf[OPP_CASH]))
    # the opponent's lowest value first: the best for the side that plays
    for i in range(n):
        if i < keep:
            cand[i] = i
            if u[i] > u[cand[0]]:
                cand[i] = cand[0]
                cand[0] = i
        elif u[i] < u[cand[0]]:
            worst = 0
            cand[0] = i
            for k in range(1, keep):
                if u[cand[k]] > u[cand[worst]]:
                    worst = k
            cand[0] = cand[worst]
            cand[worst] = i


@no_refcounts_ieee
def _best_play(board: Any, d1: Any, d2: Any, smv: Any, tables: Any, ctx: Any,
               out: Any) -> Any:  # fmt: skip
    """``FindBestMoveInEval``: the board after the best play of the roll (the opponent on
    roll) into ``out`` at the state ``smv`` of the side on roll; returns False when the
    move generator's workspace or the plays' scratch was too small (``SEARCH_WORKSPACE``,
    ``SEARCH_PLAYS``)."""
    si, sf, may, dpv, win_t, lose_t, dbl, inv = tables
    model, work, ws, cache, live, _, ts, sx, _ = ctx
    n = _SEARCH(board, d1, d2, ws)
    if n < 0:
        return SEARCH_WORKSPACE
    if n == 0:
        for c in range(25):
            out[c] = board[25 + c]
            out[25 + c] = board[c]
        return SEARCH_DONE
    plays, cand = sx[0], sx[1]
    if n > plays.shape[0]:
        return SEARCH_PLAYS
    _MATERIALIZE(board, ws[3], n, plays, np.int64(0))
    for j in range(n):
        for c in range(25):
            t = plays[j, c]
            plays[j, c] = plays[j, 25 + c]
            plays[j, 25 + c] = t
    if n == 1:
        for c in range(50):
            out[c] = plays[0, c]
        return SEARCH_DONE
    sopp = inv[smv]
    keep = MIN_PRUNE
    t = n
    while t > 1:  # + floor(log2 n)
        t >>= 1
        keep += 1
    prune = n > keep
    first = -1
    if prune:
        for j in range(n):
            k = classify(plays[j])
            if k < RACE or (j > 0 and k != first):
                prune = False
                break
            first = k
    m = n
    if prune:
        _prune(plays, n, keep, first, sf[sopp], ctx, cand)
        m = keep
    else:
        for i in range(n):
            cand[i] = i
    p, e = sx[5], sx[6]
    best = -1
    score = F32(-99999.9)
    score2 = _ZERO
    win, lose = win_t[smv], lose_t[smv]
    for i in range(m):
        j = cand[i]
        k = classify(plays[j])
        perfect = k == BEAROFF2
        if perfect:
            _perfect(plays[j], ts, e, p)
            x = _perfect_life(e, p[0], si[sopp, OWNER])
        else:
            k = cached_evaluate(plays[j], model, work, cache, p)
            x = _cube_life(plays[j], k)
        v = cubeful(p, si[sopp], sf[sopp], x, live)
        if may[sopp]:
            d = dbl[sopp]
            xd = _perfect_life(e, p[0], si[d, OWNER]) if perfect else x
            v = _decide(v, cubeful(p, si[d], sf[d], xd, live), dpv[sopp])
        r = (_TWO * (_ONE - v) - (win + lose)) / (win - lose)
        r2 = -utility(p, sf[sopp])
        if r > score or (r == score and r2 > score2):
            best, score, score2 = j, r, r2
    for c in range(50):
        out[c] = plays[best, c]
    return SEARCH_DONE


@no_refcounts_ieee
def _start(states: Any, m: Any, top: Any, tables: Any, kids: Any, sp: Any, sc: Any) -> None:
    """A node's children's cube states into ``kids`` (each state turned round, and below
    the top ply also after its double and take; -1: none) and its sums set to 0."""
    _, _, may, _, _, _, dbl, inv = tables
    for i in range(m):
        s = states[i]
        if s >= 0:
            kids[2 * i] = inv[s]
            kids[2 * i + 1] = inv[dbl[s]] if (not top and may[s]) else -1
        else:
            kids[2 * i] = -1
            kids[2 * i + 1] = -1
    for i in range(5):
        sp[i] = _ZERO
    for i in range(2 * m):
        sc[i] = _ZERO


@no_refcounts_ieee
def _add(sp: Any, sc: Any, cp: Any, cv: Any, double: Any, n: Any) -> None:
    """A roll's child added to the sums, a double once and the others twice."""
    w = _ONE if double else _TWO
    for i in range(5):
        sp[i] += w * cp[i]
    for i in range(n):
        sc[i] += w * cv[i]


@no_refcounts_ieee
def _finish(sp: Any, sc: Any, kids: Any, states: Any, m: Any, tables: Any, out_p: Any,
            out_v: Any) -> None:  # fmt: skip
    """The children's sums turned round into the node's chances and values (the 36ths
    by the rounded reciprocal), each state's best of no double and double."""
    dpv = tables[3]
    # the opponent's chances turned round: W = 1 - W', WG = LG', WB = LB', ...
    out_p[0] = _ONE - sp[0] * _RCP36
    out_p[1] = sp[3] * _RCP36
    out_p[2] = sp[4] * _RCP36
    out_p[3] = sp[1] * _RCP36
    out_p[4] = sp[2] * _RCP36
    for i in range(2 * m):
        sc[i] = _ONE - sc[i] * _RCP36
    for i in range(m):
        if kids[2 * i + 1] >= 0:
            out_v[i] = _decide(sc[2 * i], sc[2 * i + 1], dpv[states[i]])
        else:
            out_v[i] = sc[2 * i]


# numba cannot cache a recursive kernel (a cached one crashes when loaded), so each ply
# above the leaves is a function of its own: at most MAX_PLIES (2) of them


@no_refcounts_ieee
def _node1(board: Any, states: Any, m: Any, top: Any, smv: Any, tables: Any, ctx: Any,
           out_p: Any, out_v: Any) -> Any:  # fmt: skip
    """``EvaluatePositionCubeful4`` at 1 ply of the board (the side on roll's view, at its
    state ``smv``) in the ``m`` cube states ``states``: the chances into ``out_p``, the
    cubeful MWC of each state into ``out_v``; the opponent's doubles are looked at below
    the ``top`` ply. Returns ``SEARCH_DONE``, else what was too small."""
    sx = ctx[7]
    kids, sp, sc, cp, cv, child = (sx[7][1], sx[8][1], sx[9][1], sx[10][1], sx[11][1],
                                   sx[12][1])  # fmt: skip
    _start(states, m, top, tables, kids, sp, sc)
    for n0 in range(1, 7):
        for n1 in range(1, n0 + 1):
            got = _best_play(board, n0, n1, smv, tables, ctx, child)
            if got != SEARCH_DONE:
                return got
            _leaf(child, kids, 2 * m, tables, ctx, cp, cv)
            _add(sp, sc, cp, cv, n0 == n1, 2 * m)
    _finish(sp, sc, kids, states, m, tables, out_p, out_v)
    return SEARCH_DONE


@no_refcounts_ieee
def _node_slot(nodes: Any, board: Any, meta: Any, stamp: Any) -> Any:
    """The slot of ``(board, meta)`` in the node cache (a slot of an older stamp: not
    there); the key is written into ``nodes[5]``."""
    keys, _, _, stamps, _, key = nodes
    k0, k1, k2, k3 = board_words(board)
    k3 |= np.int64(meta) << 8
    key[0], key[1], key[2], key[3] = k0, k1, k2, k3
    mask = keys.shape[0] - 1
    slot = words_hash(k0, k1, k2, k3) & mask
    while stamps[slot] == stamp:
        if keys[slot, 0] == k0 and keys[slot, 1] == k1 and keys[slot, 2] == k2 and (
            keys[slot, 3] == k3
        ):
            return slot
        slot = (slot + 1) & mask
    return slot


@no_refcounts_ieee
def _cached_node1(board: Any, kids: Any, m: Any, smv: Any, tables: Any, ctx: Any,
                  out_p: Any, out_v: Any) -> Any:  # fmt: skip
    """:func:`_node1` below the top ply through the node cache (gnubg's cache of cubeful
    evaluations: a position's chances and cubeful value at 1 ply for each score's tables
    (``nodes[4][2]``), mover and cube state, the same bits whichever way the search
    reaches it)."""
    nodes = ctx[8]
    keys, probs, values, stamps, state, key = nodes
    stamp = state[0]
    every = True
    for i in range(m):
        s = kids[i]
        if s < 0:
            out_v[i] = _ZERO
            continue
        slot = _node_slot(nodes, board, (state[2] * 4096 + smv) * 4096 + s, stamp)
        if stamps[slot] != stamp:
            every = False
            break
        out_v[i] = values[slot]
        for j in range(5):
            out_p[j] = probs[slot, j]
    if every:
        return SEARCH_DONE
    got = _node1(board, kids, m, False, smv, tables, ctx, out_p, out_v)
    if got != SEARCH_DONE:
        return got
    for i in range(m):
        s = kids[i]
        if s < 0:
            continue
        if state[1] >= keys.shape[0] // 2:  # half full: start again
            state[0] += 1
            state[1] = 0
        stamp = state[0]
        slot = _node_slot(nodes, board, (state[2] * 4096 + smv) * 4096 + s, stamp)
        if stamps[slot] != stamp:
            state[1] += 1
        stamps[slot] = stamp
        for j in range(4):
            keys[slot, j] = key[j]
        values[slot] = out_v[i]
        for j in range(5):
            probs[slot, j] = out_p[j]
    return SEARCH_DONE


@no_refcounts_ieee
def _node2(board: Any, states: Any, m: Any, top: Any, smv: Any, tables: Any, ctx: Any,
           out_p: Any, out_v: Any) -> Any:  # fmt: skip
    """:func:`_node1` at 2 plies: each roll's position valued at 1 ply (a finished game
    at 0)."""
    sx = ctx[7]
    kids, sp, sc, cp, cv, child = (sx[7][2], sx[8][2], sx[9][2], sx[10][2], sx[11][2],
                                   sx[12][2])  # fmt: skip
    _start(states, m, top, tables, kids, sp, sc)
    sopp = tables[7][smv]  # the children's mover
    for n0 in range(1, 7):
        for n1 in range(1, n0 + 1):
            got = _best_play(board, n0, n1, smv, tables, ctx, child)
            if got == SEARCH_DONE and classify(child) > OVER:
                got = _cached_node1(child, kids, 2 * m, sopp, tables, ctx, cp, cv)
            elif got == SEARCH_DONE:
                _leaf(child, kids, 2 * m, tables, ctx, cp, cv)
            if got != SEARCH_DONE:
                return got
            _add(sp, sc, cp, cv, n0 == n1, 2 * m)
    _finish(sp, sc, kids, states, m, tables, out_p, out_v)
    return SEARCH_DONE


@no_refcounts_ieee
def evaluate_into(boards: Any, movers: Any, plies: Any, top: Any, tables: Any, ctx: Any,
                  out_p: Any, out_v: Any) -> Any:  # fmt: skip
    """Each board (the side on roll's view) at its state ``movers[i]``: at the ``top``
    ply (a cube decision) the chances and the cubeful MWC of no double and of double/take
    (``out_v[i, 0:2]``); below it (a play's value, the opponent on roll) the chances and
    the MWC of the one state, the opponent's double looked at. A finished game is valued
    at 0 plies. ``ctx`` is ``(model, work, workspace, cache, live, pruning, two-sided,
    scratch, nodes)`` (:func:`~mathbg.analysis.match_audit._layout.search_scratch`,
    :func:`~mathbg.analysis.match_audit._layout.node_cache`). Returns
    ``SEARCH_DONE``, else what was too small (``SEARCH_WORKSPACE``, ``SEARCH_PLAYS``)."""
    sx = ctx[7]
    states, v = sx[13], sx[14]
    dbl = tables[6]
    for i in range(boards.shape[0]):
        s = movers[i]
        states[0] = s
        states[1] = dbl[s] if top else -1
        m = 2 if top else 1
        got = SEARCH_DONE
        if plies == 0 or classify(boards[i]) == OVER:
            _leaf(boards[i], states, m, tables, ctx, out_p[i], v)
        elif plies == 1:
            got = _node1(boards[i], states, m, top, s, tables, ctx, out_p[i], v)
        else:
            got = _node2(boards[i], states, m, top, s, tables, ctx, out_p[i], v)
        if got != SEARCH_DONE:
            return got
        out_v[i, 0] = v[0]
        out_v[i, 1] = v[1] if top else _ZERO
    return SEARCH_DONE
