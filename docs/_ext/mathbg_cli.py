"""Sphinx directive ``.. mathbg-cli::``: the command-line reference from the real parser.

Builds :func:`mathbg.cli.build_parser` and emits, for ``mathbg`` and for every sub-command
(and their sub-commands), a section holding the exact ``--help`` text, so the page can never
disagree with the program.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def _subparsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    out = []
    for action in parser._actions:  # argparse keeps sub-commands only here
        if isinstance(action, argparse._SubParsersAction):
            seen = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:  # aliases map to the same parser
                    seen.add(id(sub))
                    out.append((name, sub))
    return out


def help_texts() -> list[tuple[str, str]]:
    """``(command, help text)`` for ``mathbg`` and every sub-command, depth first."""
    from mathbg.cli import build_parser

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal width: fix it
    try:
        root = build_parser()
        out: list[tuple[str, str]] = []

        def walk(prefix: str, parser: argparse.ArgumentParser) -> None:
            out.append((prefix, parser.format_help()))
            for name, sub in _subparsers(parser):
                walk(f"{prefix} {name}", sub)

        walk("mathbg", root)
        return out
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


class MathbgCli(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        result: list[nodes.Node] = []
        for command, text in help_texts():
            section = nodes.section(ids=[nodes.make_id("cli " + command)])
            section += nodes.title(text=command)
            section += nodes.literal_block(text, text, language="text")
            result.append(section)
        return result


def setup(app: Any) -> dict[str, Any]:
    app.add_directive("mathbg-cli", MathbgCli)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
