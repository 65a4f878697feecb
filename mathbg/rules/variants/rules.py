"""The variant rule sets: Portes, Plakoto, Fevga (Greek Tavli), Tavla, Long Nardi.

Each variant is a :class:`VariantRuleSet` (a :class:`~mathbg.rules.ruleset.RuleSet`, so the
game flow of :mod:`mathbg.rules.game` plays it unchanged) registered under its name. Where
regional rule texts disagree, the rule is an option with the common default, changed with
:meth:`VariantRuleSet.with_options`. What every variant shares with backgammon: two dice,
doubles played four times, as many dice as possible must be played and, when only one die
of a non-double can be played, the larger one (stated for each game by the sources below);
bearing off once all of a side's checkers are in its home board, a die bearing off from
its own point or, with no checker higher, from the highest occupied point.

Sources (read for the rules; none of their text is reproduced):

- Portes: backgammon movement and hitting, no backgammon (a gammon scores 2 at most), no
  cube (Papahristou & Refanidis, "Opening statistics and match play for backgammon
  games"; the project's seed text 001, section 11 "Tavli greco").
- Plakoto: Wikipedia "Plakoto"; MSO rules (msoworld.com, "Backgammon Plakoto"); FIBS
  "The Board" rules for Plakoto (fibs.com/~cthulhu/boardgame); pbmserv "Help for
  Plakoto" (gamerz.net); Ludii "Plakoto".
- Fevga: Wikipedia "Fevga" (after Mamoun 2018); BrainKing rules (tp=111); iTavli
  "Fevga"; aipbg.ru "FEVGA" (the opening rolls).
- Tavla: Wikipedia "Tavla"; backgammon-game.eu "Tavla / Takhteh".
- Long Nardi: Wikipedia "Long Nardy"; Georgian Sport Nardi Federation rules
  (geonardi.com); bkgm.com/variants/Narde.html; Ludii "Şeş-Beş" (the Azerbaijani
  variant's first-roll rule).
- Tavli matches of 3, 5 or 7 points, games in rotation, the winner of a game starting
  the next: Wikipedia "Plakoto", "Fevga"; BrainKing Fevga rules.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from mathbg.errors import InvalidParameterError
from mathbg.rules.match import ResultKind
from mathbg.rules.ruleset import RuleSet
from mathbg.rules.variants.geometry import GEOMETRY, Contact, Movement, Variant, VariantGeometry

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.position import Position
    from mathbg.rules.variants.plays import VariantPlays
    from mathbg.rules.variants.position import VariantPosition

__all__ = [
    "FEVGA",
    "LONG_NARDI",
    "PLAKOTO",
    "PORTES",
    "TAVLA",
    "VARIANT_RULESETS",
    "PrimeRule",
    "VariantRuleSet",
]

_STANDARD_ROW = {24: 2, 13: 5, 8: 3, 6: 5}
_HEAD_ROW = {24: 15}


class PrimeRule(enum.StrEnum):
    """What a block of six consecutive points "in front of" the opponent is allowed to do.

    A *trapping block* is six consecutive points held by the mover along the opponent's
    route with no opposing checker ahead of it (none beyond it, none borne off).

    - ``ALLOWED``: no restriction (the hitting and pinning games).
    - ``BAN``: no play may end with a trapping block (Long Nardi: "no block of six unless
      an opposing checker is already ahead of it"; Fevga in some rule sets).
    - ``OPEN``: a trapping block may be built, but a player who starts a turn with one must
      play so that none remains when some legal play does that (Fevga after Wikipedia /
      Mamoun 2018, BrainKing, iTavli: "you must open it to let the opponent move").
      BrainKing words the trap as every opposing checker gathered on the point behind the
      block; we use the broader reading (no opposing checker ahead of it), which contains
      that case. The obligation comes first: a play that opens the block is preferred to
      one that keeps it even when it uses fewer dice, then the usual dice rules apply.

    Both rules are judged on the position at the end of the play, as the rule texts speak
    of the blocks a player builds or holds, not of the order of the moves within a turn.
    """

    ALLOWED = "allowed"
    BAN = "ban"
    OPEN = "open"


@dataclass(frozen=True)
class VariantRuleSet(RuleSet, VariantGeometry):
    """A regional variant's rules (see the module docstring for the shared rules).

    Attributes
    ----------
    variant : Variant
        The game (fixes the starting position, the direction of travel and what landing
        on a single opposing checker does: see :mod:`mathbg.rules.variants.geometry`).
    gammons, backgammons, cube, opening_doubles
        As :class:`~mathbg.rules.ruleset.RuleSet`. In every variant here a gammon ("mars")
        scores 2, there is no backgammon and no cube; ``opening_doubles`` (the winner of
        the opening roll rolls both dice again, so the first play can be a double) is on.
    home_hit_and_run : bool
        Tavla option: False (default for Tavla, after Wikipedia "Tavla": "hit-and-run does
        not apply in a player's home board") means a checker that hits a blot in the
        mover's home board (points 1-6) stops there for the rest of the turn. True is
        standard backgammon movement (the seed text's "Uzun Tavla": standard rules).
    head_limit : int
        Long Nardi: how many checkers may leave the head (own 24-point) in one turn (1);
        0 = no such rule.
    first_roll_doubles : tuple of int
        Long Nardi: doubles that let two checkers leave the head on a side's first roll
        (all 15 still on the head): (6, 4, 3) in the Russian and Georgian rules (the
        single checker could not play the whole roll: the opponent's head blocks it);
        (6, 4) in Azerbaijani Şeş-Beş (Ludii).
    first_checker_passes : bool
        Fevga: no second checker leaves the start (own 24-point) before one checker has
        passed the opponent's start (the mover's 12-point), i.e. stands on the mover's
        11-point or lower; the order of the moves within a turn counts.
    start_quarter_rule : bool
        Fevga: a play may not end with all six points of the mover's start quarter (own
        points 19-24) held.
    prime_rule : PrimeRule
        See :class:`PrimeRule`: ``BAN`` in Long Nardi, ``OPEN`` in Fevga (``BAN`` is the
        regional alternative).
    mother_rule : bool
        Plakoto: the mother is a side's last checker on its starting point (own 24). A
        play that pins the opponent's mother wins at once, 2 points (reason
        ``"mother"``), unless the mover still has a free checker on its own starting
        point; then the game goes on, and the pinned side still saves it by pinning the
        other mother in turn, which ends the game drawn (both mothers pinned: MSO rules,
        Ludii, pbmserv; FIBS "The Board": the exception lasts while the pinner keeps
        checkers on its starting point, so the pinner wins as soon as it has none left
        there with the mother still pinned).
    winner_starts_next : bool
        In a match, the winner of a game starts the next one (it rolls first, no opening
        roll): Tavli and Long Nardi custom.
    """

    initial: Any = None  # unused: initial_position() is defined by the variant
    plays: Any = None  # unused: legal_plays() is defined by the variant
    gammons: bool = True
    backgammons: bool = False
    cube: bool = False
    opening_doubles: bool = True
    variant: Variant = Variant.PORTES
    home_hit_and_run: bool = True
    head_limit: int = 0
    first_roll_doubles: tuple[int, ...] = ()
    first_checker_passes: bool = False
    start_quarter_rule: bool = False
    prime_rule: PrimeRule = PrimeRule.ALLOWED
    mother_rule: bool = False
    winner_starts_next: bool = True

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "variant", Variant(self.variant))
        set_(self, "prime_rule", PrimeRule(self.prime_rule))
        set_(self, "first_roll_doubles", tuple(int(d) for d in self.first_roll_doubles))
        if self.variant == Variant.BACKGAMMON:
            raise InvalidParameterError("standard backgammon is mathbg.rules.ruleset.BACKGAMMON")
        movement, contact = GEOMETRY[self.variant]
        problems = []
        if not self.home_hit_and_run and contact != Contact.HIT:
            problems.append("home_hit_and_run=False needs a hitting game (Portes, Tavla)")
        if self.backgammons and contact != Contact.HIT:
            problems.append("backgammons exist only in the hitting games")
        if self.head_limit < 0:
            problems.append(f"head_limit must be >= 0, got {self.head_limit}")
        if any(not 1 <= d <= 6 for d in self.first_roll_doubles):
            problems.append(f"first_roll_doubles must be die values: {self.first_roll_doubles}")
        if self.first_roll_doubles and not self.head_limit:
            problems.append("first_roll_doubles needs a head rule (head_limit >= 1)")
        if (self.head_limit or self.first_checker_passes) and contact == Contact.HIT:
            problems.append("head rules need a game without hitting")
        if self.mother_rule and contact != Contact.PIN:
            problems.append("the mother rule needs Plakoto's pins")
        if self.start_quarter_rule and movement != Movement.SAME:
            problems.append("the start-quarter rule belongs to Fevga (same-direction travel)")
        if self.prime_rule != PrimeRule.ALLOWED and contact != Contact.BLOCK:
            problems.append("prime rules need a game where one checker holds a point")
        if problems:
            raise InvalidParameterError(f"{self.name} rule set: " + "; ".join(problems))

    # ------------------------------------------------------------------ construction
    def with_options(self, **options: Any) -> VariantRuleSet:
        """A copy with some options changed, e.g. ``FEVGA.with_options(prime_rule="ban")``.

        Raises
        ------
        InvalidParameterError
            For an unknown option or one that does not fit the variant.
        """
        allowed = {
            "gammons",
            "cube",
            "opening_doubles",
            "home_hit_and_run",
            "head_limit",
            "first_roll_doubles",
            "first_checker_passes",
            "start_quarter_rule",
            "prime_rule",
            "mother_rule",
            "winner_starts_next",
            "backgammons",
        }
        unknown = sorted(set(options) - allowed)
        if unknown:
            raise InvalidParameterError(
                f"unknown {self.name} option(s) {', '.join(unknown)}; options are "
                + ", ".join(sorted(allowed))
            )
        return replace(self, **options)

    @property
    def result_names(self) -> tuple[str, ...]:
        """Names of the ways a game of this variant can end (keys of self-play counts)."""
        names = ["single"]
        if self.gammons:
            names.append("gammon")
        if self.backgammons:
            names.append("backgammon")
        if self.mother_rule:
            names += ["mother", "draw"]
        return tuple(names)

    # ------------------------------------------------------------------ RuleSet hooks
    def initial_position(self) -> VariantPosition:
        """The starting position: backgammon's for Portes and Tavla; all 15 checkers on
        each side's own 24-point otherwise (Plakoto: the opponent's 1-point; Fevga and
        Long Nardi: the diagonally opposite corners, the "heads")."""
        from mathbg.rules.variants.position import VariantPosition

        row = _STANDARD_ROW if self.contact == Contact.HIT else _HEAD_ROW
        return VariantPosition.from_counts(row, row, variant=self.variant)

    def legal_plays(self, position: Position, roll: Any) -> VariantPlays:
        """Every legal play of ``roll`` in ``position`` under these rules."""
        from mathbg.rules.variants.plays import variant_legal_plays

        return variant_legal_plays(self, position, roll)

    def game_end(self, position: Position) -> tuple[ResultKind | None, str] | None:
        """How the game ends right after a play leading to ``position`` (mover's view).

        The mover has borne off every checker: single (1) if the loser has borne off at
        least one, else gammon (2). Plakoto's mother rule (see the class docstring): both
        mothers pinned -> draw (``(None, "draw")``); the opponent's mother pinned and the
        mover with no free checker on its own starting point -> gammon, reason
        ``"mother"``. None while the game goes on.
        """
        c = position.cells
        if not any(c[25:]):
            from mathbg.rules.ruleset import classify_result

            kind = classify_result(position, self)
            return None if kind is None else (kind, "played")
        if self.mother_rule:
            pins = getattr(position, "pins", 0)
            my_mother_pinned = c[48] == 1 and (pins >> 23) & 1
            opp_mother_pinned = c[23] == 1 and (pins >> 47) & 1
            if opp_mother_pinned:
                if my_mother_pinned:
                    return None, "draw"
                if c[48] - ((pins >> 23) & 1) <= 0:
                    return ResultKind.GAMMON, "mother"
        return None

    @cached_property
    def kernel_arguments(self) -> tuple[int, int, int]:
        """``(contact, flags, head_limit)`` for :func:`mathbg.rules.variants._kernel.generate`."""
        from mathbg.rules.variants import _kernel as k

        contact = {Contact.HIT: k.HIT, Contact.PIN: k.PIN, Contact.BLOCK: k.BLOCK}[self.contact]
        flags = 0
        if self.movement == Movement.SAME:
            flags |= k.F_ROTATED
        if not self.home_hit_and_run:
            flags |= k.F_HOME_NO_HIT_RUN
        head = 0
        if self.head_limit:
            flags |= k.F_HEAD
            head = self.head_limit
        if self.first_checker_passes:
            flags |= k.F_FEVGA_START
        if self.start_quarter_rule:
            flags |= k.F_START_QUARTER
        if self.prime_rule == PrimeRule.BAN:
            flags |= k.F_PRIME_BAN
        elif self.prime_rule == PrimeRule.OPEN:
            flags |= k.F_PRIME_OPEN
        return contact, flags, head

    def uses_standard_kernel(self) -> bool:
        """True when the legal plays are exactly backgammon's (Portes; Tavla with
        ``home_hit_and_run``): the dedicated standard kernel is used."""
        return self.contact == Contact.HIT and self.home_hit_and_run


#: Portes: backgammon without backgammons and without the cube.
PORTES = VariantRuleSet(name="portes", variant=Variant.PORTES)

#: Tavla (Uzun Tavla): backgammon setup, opening-roll winner re-rolls, no hit-and-run in
#: the home board, single 1 / mars 2, no backgammon, no cube; a match opens every game
#: with the opening roll.
TAVLA = VariantRuleSet(
    name="tavla", variant=Variant.TAVLA, home_hit_and_run=False, winner_starts_next=False
)

#: Plakoto: pins instead of hits, the mother rule, single 1 / gammon 2.
PLAKOTO = VariantRuleSet(name="plakoto", variant=Variant.PLAKOTO, mother_rule=True)

#: Fevga: same-direction travel, one checker holds a point, the first checker passes the
#: opponent's start before a second leaves, the start quarter is never full, a trapping
#: six-block must be opened.
FEVGA = VariantRuleSet(
    name="fevga",
    variant=Variant.FEVGA,
    first_checker_passes=True,
    start_quarter_rule=True,
    prime_rule=PrimeRule.OPEN,
)

#: Long Nardi: same-direction travel, one checker holds a point, one checker leaves the
#: head per turn (two on a first roll of 6-6, 4-4 or 3-3), no trapping six-block, mars 2.
LONG_NARDI = VariantRuleSet(
    name="long-nardi",
    variant=Variant.LONG_NARDI,
    head_limit=1,
    first_roll_doubles=(6, 4, 3),
    prime_rule=PrimeRule.BAN,
)

#: The variant rule sets by name.
VARIANT_RULESETS: dict[str, VariantRuleSet] = {
    rs.name: rs for rs in (PORTES, PLAKOTO, FEVGA, TAVLA, LONG_NARDI)
}
