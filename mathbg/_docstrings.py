"""Docstring sections that a family of functions shares, written once (internal).

Functions with the same parameters and the same meaning of them (Janowski's money points,
the match cube points, the MET approximations) document those parameters, what they return
and what they raise in the same words. :func:`shared_sections` keeps such a section in one
module-level string: each docstring of the family holds a line ``{name}`` where the section
goes, so the source still shows where it stands, and ``help()``, Sphinx (numpydoc) and
doctest read the filled docstring.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["fill_sections", "shared_sections"]

F = TypeVar("F", bound=Callable[..., Any])


def fill_sections(doc: str, sections: dict[str, str]) -> str:
    """``doc`` with each line ``{name}`` replaced by ``sections[name]``, indented as that line.

    Every section must have exactly one place in ``doc`` (a name misspelt on either side is
    an error when the module is imported, not a docstring silently left short).

    Examples
    --------
    >>> doc = "Sum.\\n\\n    {params}\\n"
    >>> print(fill_sections(doc, {"params": "a, b : float\\n    The terms."}), end="")
    Sum.
    <BLANKLINE>
        a, b : float
            The terms.
    """
    lines = doc.splitlines(keepends=True)
    for name, text in sections.items():
        places = [i for i, line in enumerate(lines) if line.strip() == "{" + name + "}"]
        if len(places) != 1:
            raise ValueError(f"docstring has {len(places)} places for section {name!r}, not 1")
        line = lines[places[0]]
        indent = line[: len(line) - len(line.lstrip())]
        body = textwrap.indent(textwrap.dedent(text).strip("\n"), indent)
        lines[places[0]] = body + "\n"
    return "".join(lines)


def shared_sections(**sections: str) -> Callable[[F], F]:
    """Decorator: fill the decorated function's docstring with ``sections`` (:func:`fill_sections`).

    Examples
    --------
    >>> PARAMS = '''
    ... x : float
    ...     The argument.
    ... '''
    >>> @shared_sections(params=PARAMS)
    ... def double(x: float) -> float:
    ...     '''Twice ``x``.
    ...
    ...     Parameters
    ...     ----------
    ...     {params}
    ...     '''
    ...     return 2 * x
    >>> print(double.__doc__.splitlines()[4])
        x : float
    """

    def fill(function: F) -> F:
        function.__doc__ = fill_sections(function.__doc__ or "", sections)
        return function

    return fill
