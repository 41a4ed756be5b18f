"""Close-match suggestions for names a user typed ("did you mean ...?").

Used by every lookup of a name in a fixed list (rotary presets, conventions, built-in backend
names), so that ``Qwen2.5-7B`` is answered with ``did you mean Qwen2.5-7B-Instruct?``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["close_matches", "did_you_mean"]


def close_matches(name: str, choices: Iterable[str], limit: int = 3) -> list[str]:
    """Up to ``limit`` of ``choices`` close to ``name`` (difflib, case-insensitive), best
    first; a choice that starts with ``name`` (a prefix typed) counts as close."""
    options = list(dict.fromkeys(choices))
    folded = {option.casefold(): option for option in options}
    key = name.strip().casefold()
    found = [folded[m] for m in difflib.get_close_matches(key, list(folded), limit, 0.6)]
    prefixed = [o for o in options if key and o.casefold().startswith(key) and o not in found]
    return (found + prefixed)[:limit]


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``"; did you mean A?"`` or ``"; did you mean A or B?"``, or ``""`` when none is close."""
    found = close_matches(name, choices)
    if not found:
        return ""
    if len(found) == 1:
        return f"; did you mean {found[0]}?"
    return f"; did you mean {', '.join(found[:-1])} or {found[-1]}?"
