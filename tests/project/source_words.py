"""The one walk behind the vocabulary tests of tests/project: every name a reader sees.

:func:`source_texts` yields ``(line, text)`` for each identifier, attribute, argument, keyword,
definition name, imported name (and its ``as`` name) and string constant of a module; the
engine, fixture-plumbing and numerics vocabulary tests each match their own words on it.
"""

from __future__ import annotations

import ast


def _texts(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.alias):
        return [node.name] + ([node.asname] if node.asname else [])
    if isinstance(node, ast.keyword) and node.arg:
        return [node.arg]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    return []


def source_texts(source: str | ast.AST) -> list[tuple[int, str]]:
    """``(line, text)`` of every name and string constant of ``source`` (text or a tree)."""
    tree = ast.parse(source) if isinstance(source, str) else source
    return [(getattr(node, "lineno", 0), text) for node in ast.walk(tree) for text in _texts(node)]
