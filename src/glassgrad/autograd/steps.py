"""The step counter: it advances at the end of every backward pass and every optimizer step.

Nodes remember the step they were created in, so a backward that reaches a
node from before an earlier backward can be told apart from one that simply
runs twice over the same graph.
"""

from __future__ import annotations

current = 0


def advance() -> int:
    global current
    current += 1
    return current
