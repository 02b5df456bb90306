"""How the SDK scripts of this folder run: their `main`, with a failure reported on
standard error (the test that runs them prints it) and raised again, so the exit status is
not zero."""

import asyncio
import sys
from collections.abc import Callable, Coroutine
from typing import Any


def run(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    try:
        asyncio.run(main())
    except Exception as e:  # report and fail
        print(f"FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        raise
