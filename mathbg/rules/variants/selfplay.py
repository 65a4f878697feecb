"""Self-play: random and heuristic players, whole games and matches, result statistics.

Players
-------
A player is a function ``(state, plays, rng) -> index`` choosing one of the legal plays
of the roll (never called when there is no play).

- ``random``: a uniformly random legal play.
- ``heuristic``: a greedy one-ply player. It scores the position after each play (mover's
  view) with a fixed linear evaluation and keeps the best, ties broken at random:

  ``score = (opponent's pips - own pips) + 6 * own points made - 8 * own exposed blots
  + 12 * opposing checkers pinned + 40 * [opponent's mother pinned]
  + 3 * own blocks ahead of the opponent's rearmost checker + 2 * longest run of them``

  where points made (two or more checkers) and exposed blots count only in the hitting
  and pinning games (a blot is exposed when an opposing checker, or the bar, is 1 to 11
  pips behind it along the opponent's route), pins only in Plakoto, and the blocking
  terms only in Fevga and Long Nardi (every point held counts, one checker holds it).
  Hits show up in the pip term (a hit blot goes back to the start). It is a simple,
  documented reference player for measuring rates such as the gammon rate, not a strong
  one.

Statistics (:func:`selfplay`): results by name (``single``, ``gammon``, ``backgammon``,
``mother``, ``draw``), mean plies (rolls played per game, passes included) and the gammon
rate: the share of decisive games won with 2 points or more (gammon, mars, Plakoto's
mother; backgammons too in the standard game), the ``G`` of the cubeless MET.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from mathbg.errors import InvalidParameterError
from mathbg.rules.game import GameResult, GameState, Phase
from mathbg.rules.ruleset import RuleSet, get_ruleset
from mathbg.rules.variants.geometry import Contact, Movement

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.plays import Plays
    from mathbg.rules.position import Position
    from mathbg.rules.variants.match import VariantMatch

__all__ = [
    "PLAYERS",
    "GameSummary",
    "MatchSummary",
    "heuristic_player",
    "play_game",
    "play_match",
    "random_player",
    "selfplay",
]

Player = Callable[[GameState, "Plays[Position]", random.Random], int]


def random_player(state: GameState, plays: Plays[Position], rng: random.Random) -> int:
    """A uniformly random legal play."""
    return rng.randrange(len(plays))


def _geometry(ruleset: RuleSet) -> tuple[Movement, Contact]:
    movement = getattr(ruleset, "movement", Movement.OPPOSITE)
    contact = getattr(ruleset, "contact", Contact.HIT)
    return movement, contact


_POINTS = np.arange(1, 25, dtype=np.int64)


def evaluate(ruleset: RuleSet, boards: np.ndarray, pins: np.ndarray | None = None) -> np.ndarray:
    """The heuristic player's score of each resulting board (mover's view; see the module
    docstring). ``boards`` has shape (n, 50) or (n, 2, 25); ``pins`` are Plakoto's masks."""
    b = np.asarray(boards, dtype=np.int64).reshape(-1, 2, 25)
    movement, contact = _geometry(ruleset)
    me = b[:, 1, :24]
    opp = b[:, 0, :24]
    my_pips = me @ _POINTS + 25 * b[:, 1, 24]
    opp_pips = opp @ _POINTS + 25 * b[:, 0, 24]
    score = (opp_pips - my_pips).astype(float)
    # the opponent's checkers on the mover's points 1..24 (index p-1)
    if movement == Movement.OPPOSITE:
        opp_on_mine = opp[:, ::-1]
    else:
        opp_on_mine = np.roll(opp, 12, axis=1)  # mover's index t <- opponent's (t + 12) % 24
    if contact in (Contact.HIT, Contact.PIN):
        score += 6.0 * (me >= 2).sum(axis=1)
        # exposed blots: an opposing checker 1..11 pips behind along its route. With
        # opposite movement the opponent travels up the mover's numbering.
        present = (opp_on_mine > 0).astype(np.int64)
        cs = np.concatenate([np.zeros((len(b), 1), np.int64), np.cumsum(present, axis=1)], axis=1)
        idx = np.arange(24)
        lo = np.maximum(idx - 11, 0)
        behind = cs[:, idx] - cs[:, lo]  # opposing checkers on points p-11..p-1
        exposed = (me == 1) & ((behind > 0) | ((b[:, 0, 24] > 0)[:, None] & (idx < 12)))
        if pins is not None and contact == Contact.PIN:
            mine_pinned = (pins.astype(np.int64)[:, None] >> idx) & 1
            exposed &= mine_pinned == 0
        score -= 8.0 * exposed.sum(axis=1)
    if contact == Contact.PIN and pins is not None:
        p = pins.astype(np.int64)
        theirs = (p >> 24) & ((1 << 24) - 1)
        count = np.zeros(len(p))
        for k in range(24):
            count += (theirs >> k) & 1
        score += 12.0 * count
        score += 40.0 * (((p >> 47) & 1) * (b[:, 0, 23] == 1))
    if contact == Contact.BLOCK:
        held = me > 0
        # the opponent's rearmost checker, in the mover's numbering: opponent index q is
        # the mover's (q + 12) % 24 (same-direction travel)
        occupied = opp > 0
        rear = np.where(occupied.any(axis=1), 23 - np.argmax(occupied[:, ::-1], axis=1), -1)
        ahead = np.zeros(len(b))
        longest = np.zeros(len(b))
        for row in range(len(b)):
            q0 = rear[row]
            if q0 < 0:
                continue
            run = best = n_ahead = 0
            for q in range(q0 - 1, -1, -1):  # the points in front of that checker
                if held[row, (q + 12) % 24]:
                    n_ahead += 1
                    run += 1
                    best = max(best, run)
                else:
                    run = 0
            ahead[row] = n_ahead
            longest[row] = best
        score += 3.0 * ahead + 2.0 * longest
    return score


def heuristic_player(state: GameState, plays: Plays[Position], rng: random.Random) -> int:
    """The greedy one-ply player of the module docstring."""
    if len(plays) == 1:
        return 0
    pins = getattr(plays, "pins", None)
    scores = evaluate(state.ruleset, plays.boards, pins)
    best = np.flatnonzero(scores >= scores.max() - 1e-9)
    return int(best[rng.randrange(len(best))]) if len(best) > 1 else int(best[0])


#: Players by name.
PLAYERS: dict[str, Player] = {"random": random_player, "heuristic": heuristic_player}


def _player(p: str | Player) -> Player:
    if callable(p):
        return p
    try:
        return PLAYERS[p]
    except KeyError:
        raise InvalidParameterError(
            f"unknown player {p!r}: choose one of {', '.join(PLAYERS)}"
        ) from None


@dataclass(frozen=True)
class GameSummary:
    """A finished game: its result, the number of plies (rolls played, passes included)
    and the final state."""

    result: GameResult
    plies: int
    final: GameState


def play_game(
    variant: str | RuleSet = "backgammon",
    rng: random.Random | int | None = None,
    players: Sequence[str | Player] | str | Player = "random",
    *,
    state: GameState | None = None,
    max_plies: int = 20_000,
) -> GameSummary:
    """Play one game to the end with the given players (no cube actions).

    Parameters
    ----------
    variant : str or RuleSet
        Used when ``state`` is not given.
    rng : random.Random or int, optional
        Source of the dice and of the players' random choices.
    players : name, player, or a pair of them (for player 0 and player 1)
    state : GameState, optional
        Where to start (default: a new game in phase OPENING).
    max_plies : int
        Safety limit; reaching it raises RuntimeError.
    """
    r = rng if isinstance(rng, random.Random) else random.Random(rng)
    pair = [players, players] if isinstance(players, str) or callable(players) else list(players)
    if len(pair) != 2:
        raise InvalidParameterError("players: one player, or a pair for players 0 and 1")
    chooser = (_player(pair[0]), _player(pair[1]))
    st = state if state is not None else GameState.new(variant=variant)
    plies = 0
    while st.phase != Phase.OVER:
        if st.phase == Phase.OPENING:
            st = st.opening(r.randint(1, 6), r.randint(1, 6))
        elif st.phase == Phase.ROLL:
            st = st.roll((r.randint(1, 6), r.randint(1, 6)))
        elif st.phase == Phase.MOVE:
            plays = st.legal_plays()
            n = len(plays)
            if n == 0:
                st = st.play(None)
            elif n == 1:
                st = st.play(plays[0])
            else:
                st = st.play(plays[chooser[st.turn](st, plays, r)])
            plies += 1
            if plies > max_plies:
                raise RuntimeError(f"game did not finish in {max_plies} plies")
        else:  # pragma: no cover - no cube or resignation actions here
            raise RuntimeError(f"unexpected phase {st.phase}")
    assert st.result is not None
    return GameSummary(result=st.result, plies=plies, final=st)


@dataclass(frozen=True)
class MatchSummary:
    """A finished match: each game's variant name and summary, and the final match."""

    games: tuple[tuple[str, GameSummary], ...]
    final: VariantMatch


def play_match(
    match: VariantMatch,
    rng: random.Random | int | None = None,
    players: Sequence[str | Player] | str | Player = "random",
) -> MatchSummary:
    """Play ``match`` (e.g. :meth:`VariantMatch.tavli`) to the end."""
    r = rng if isinstance(rng, random.Random) else random.Random(rng)
    games = []
    m = match
    while not m.is_over:
        name = m.next_ruleset.name
        summary = play_game(rng=r, players=players, state=m.new_game())
        games.append((name, summary))
        m = m.after_game(summary.result)
    return MatchSummary(games=tuple(games), final=m)


#: Most games one :func:`selfplay` call plays (hours of play; a larger count never ends
#: in practice).
MAX_GAMES = 10_000_000


def selfplay(
    variant: str | RuleSet = "backgammon",
    games: int = 1000,
    seed: int | None = 0,
    player: str | Player = "random",
    *,
    progress: bool = False,
) -> dict[str, Any]:
    """Play ``games`` games of ``variant`` between two copies of ``player``.

    Returns
    -------
    dict
        ``variant``, ``games``, ``player``, ``seed``, ``results`` (count by result name,
        every name the variant allows), ``mean_plies``, ``gammon_rate`` (share of
        decisive games worth 2 or more points) and ``draw_rate``.
    """
    from mathbg._validate import integer

    rs = get_ruleset(variant)
    games = integer(games, "games", 1, MAX_GAMES)
    names = getattr(rs, "result_names", None) or (
        "single",
        *(("gammon",) if rs.gammons else ()),
        *(("backgammon",) if rs.backgammons else ()),
    )
    counts = dict.fromkeys(names, 0)
    rng = random.Random(seed)
    plies = 0
    big = decisive = 0
    # the first game is played before the bar starts: on first use it compiles the move
    # generator, and the bar's ETA should measure the games
    from mathbg.rules.movegen import expect_positions

    expect_positions(50 * int(games))  # a game is 50-100 plies: the kernel, loaded once
    first: Any = play_game(rs, rng, player)
    iterator: Any = range(1, int(games) + 1)
    if progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, desc=f"{rs.name} self-play", unit="game", leave=False,
                        disable=None)  # fmt: skip
    for k in iterator:
        g = first if k == 1 else play_game(rs, rng, player)
        counts[g.result.name] = counts.get(g.result.name, 0) + 1
        plies += g.plies
        if g.result.winner is not None:
            decisive += 1
            big += g.result.points >= 2
    return {
        "variant": rs.name,
        "games": int(games),
        "player": player if isinstance(player, str) else getattr(player, "__name__", "custom"),
        "seed": seed,
        "results": counts,
        "mean_plies": plies / games,
        "gammon_rate": big / decisive if decisive else 0.0,
        "draw_rate": (games - decisive) / games,
    }
