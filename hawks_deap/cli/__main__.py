"""``python -m hawks_deap.cli``: the ``hawks-deap`` command."""

import sys

from hawks_deap.cli.app import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
