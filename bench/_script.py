"""How a bench script ends: ``main()``'s return value is the exit status, and Ctrl-C stops
it with a one-line "interrupted" instead of a traceback. Scripts import it as a sibling
(``from _script import run``): the bench directory is on ``sys.path`` when a script runs."""

from __future__ import annotations

import sys
from collections.abc import Callable


def run(main: Callable[[], int]) -> None:
    """Run a script's ``main`` and exit with its status."""
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("interrupted")
