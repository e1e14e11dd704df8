"""The ``hawks-deap`` command: one module per command, a table of them, and `main`.

- `generate`, `versus`, `target`, `features`, `plot`, `export`, `suite`, `fill`, `verify`:
  each command's ``prepare(args)``, which validates everything and returns the function
  that works;
- `common`: exit codes, `UsageError`, a run's settings, collections of datasets, the dask
  backend of `suite` and `fill`;
- `app`: `SUBCOMMANDS` (name -> summary, description, ``prepare``), the parser, `main`.
"""

from hawks_deap.cli.app import main

__all__ = ["main"]
