"""The ``hawks-deap`` command's entry point, outside the package on purpose.

Importing ``hawks_deap`` (numpy, scipy, scikit-learn, DEAP) takes a second or two; a
Ctrl-C then would print a traceback from the middle of an import. Python imports a
package before any of its modules, so the guard that turns that Ctrl-C into exit code
130 and one line must live in a module of its own.
"""

from __future__ import annotations

import signal
import sys


def main() -> int:
    """Run ``hawks_deap.cli.main``; a Ctrl-C (or SIGTERM) while it is imported exits 130."""
    interrupted: list[int] = []

    def on_sigint(signum: int, frame: object) -> None:
        interrupted.append(signum)
        raise KeyboardInterrupt

    # A KeyboardInterrupt raised inside an extension module's import (numpy's C core
    # importing ``datetime``, say) reaches us as an ImportError: the flag tells them apart.
    # (SIGTERM too, as the command handles it once running: a batch scheduler's stop)
    previous = {sig: signal.signal(sig, on_sigint) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        try:
            from hawks_deap.cli.app import main_process as cli_main
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if interrupted:  # raised inside a callback Python ignores (an import lock's): seen
            raise KeyboardInterrupt  # once in CI, the command then ran on and exited 0
        return cli_main()
    except KeyboardInterrupt:  # while importing or parsing (the commands catch their own)
        print("hawks-deap: interrupted", file=sys.stderr)
        return 130
    except ImportError:
        if not interrupted:
            raise
        print("hawks-deap: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
