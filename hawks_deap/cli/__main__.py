"""``python -m hawks_deap.cli``: the ``hawks-deap`` command."""

import sys

from hawks_deap.cli.app import main_process

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main_process())
