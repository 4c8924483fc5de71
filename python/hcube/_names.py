"""The library's messages in Python's terms: a parameter the message names becomes the keyword.

The C++ library names its own parameters in its one-line errors
("DistributedFftPlan::Options::nodes_log2 10: ...", "give Geometry::n (or Geometry::m)"), and the
command-line layer (hcube.animate, Machine's steps) its flags ("--nodes-log2 10"); a Python caller
passed keywords, so the messages name those instead ("nodes_log2=10: ...", "give n= (or m=)").
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, TypeVar, cast

# Flags, and the library's parameters (by their last name), whose Python name is not their own
# spelled with underscores.
_NAMES = {
    "dims": "d", "mem-dims": "m", "cycle": "exchanges", "type": "dtype", "input": "array", "points-log2": "log2(x.size)",
    "a": "algorithm", "p": "permutation", "o": "order",
    "method": "algorithm", "path": "array", "points_log2": "log2(x.size)",
}
# Flags that are switches: True turns them on.
_SWITCHES = {"fused", "overlap", "reverse", "blocked", "unaligned", "sequential"}
# Option values that may follow a flag unquoted.
_VALUES = sorted(["all", "one", "cpu", "cuda", "auto", "transpose", "bit-reversal", "vector-reversal", "gray",
                  "natural", "bit-reversed", "edelman", "Edelman", "sex", "dex", "circulant", "A1'", "A1", "A2",
                  "A4", "A5", "A6", "identity"], key=len, reverse=True)

_FLAG = re.compile(
    r"(?<![\w:-])(?:--(?P<long>[A-Za-z][\w-]*)|-(?P<short>[A-Za-z])(?![\w-])"
    r"|(?:[A-Za-z_]\w*::)+(?P<api>[a-z_]\w*)(?!\w|::))"
    r"(?: (?P<value>'[^']*'|-?\d[\w.^:+-]*|(?:shuffle|random):\d+|(?:%s)(?![\w-])))?"
    r"(?P<after>\s*[()\],;]|\s*$)?" % "|".join(re.escape(v) for v in _VALUES))


def _rename(match: "re.Match[str]") -> str:
    flag = match.group("long") or match.group("short") or match.group("api")
    name = _NAMES.get(flag, flag.replace("-", "_"))
    value, after = match.group("value"), match.group("after") or ""
    if flag in _SWITCHES:
        return f"{name}=True" + (f" {value}" if value else "") + after
    if value is not None:
        shown = value if value[0] in "'-0123456789" else repr(value)
        return f"{name}={shown}" + after
    # A flag named alone: "give -n (or -m)" -> "give n= (or m=)"; before a word, the parameter's bare name.
    return f"{name}=" + after if match.group("after") is not None else name


def python_message(message: str) -> str:
    """message with every command-line flag and library parameter replaced by the Python parameter it stands for."""
    return _FLAG.sub(_rename, message)


F = TypeVar("F", bound=Callable[..., Any])


def python_names(f: F) -> F:
    """f, raising its errors (ValueError, TypeError, MemoryError) worded with Python's parameter names."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except (ValueError, TypeError, MemoryError) as e:
            message = python_message(str(e))
            if message == str(e) or len(e.args) != 1:
                raise
            raise type(e)(message) from None

    return cast(F, wrapper)
