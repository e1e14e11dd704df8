"""The ``hawks-deap`` command."""

from hawks_deap.cli.app import main

__all__ = ["main"]
