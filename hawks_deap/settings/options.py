"""One option of the configuration schema (`hawks_deap.settings.config`): its type, range, help.

Kept apart from the schema itself so that the table of options (`hawks_deap.settings.config`)
reads as data.
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["COMMANDS", "NONE", "Option"]

#: Commands whose settings the schema describes.
COMMANDS: tuple[str, ...] = ("generate", "versus", "target")

#: The word that disables an optional setting (e.g. a constraint): ``--max-overlap none``
#: on the command line, ``max_overlap = "none"`` in TOML.
NONE = "none"

_KINDS = ("int", "float", "str", "bool")


@dataclass(frozen=True)
class Option:
    """One option: its TOML location (if any), type, allowed values, default and help.

    Parameters
    ----------
    section : str or None
        TOML section; None for an option that exists only on the command line.
    key : str
        TOML key (``[section] key``) and argparse destination; the command-line flag is
        ``--key`` with dashes.
    kind : {"int", "float", "str", "bool"}
        Value type. TOML integers are accepted for floats, never the reverse; booleans
        are never numbers. ``"bool"`` is a command-line flag (``store_true``), only for
        options without a section.
    default : object
        Default value (None: unset, e.g. no constraint).
    help : str
        One line of help.
    low, high : float, optional
        Bounds of numbers (inclusive unless ``low_open`` / ``high_open``).
    low_open, high_open : bool
        Make ``low`` / ``high`` a strict bound (default False).
    choices : tuple of str or callable, optional
        Allowed strings, or a function returning them (evaluated lazily, e.g. the
        clustering registry).
    check : callable, optional
        Extra validation ``check(value) -> value`` raising ValueError / TypeError; its
        message is prefixed with the option's name.
    nullable : bool
        Accept `NONE` ("none"), meaning unset (None).
    commands : tuple of str
        Commands that use it.
    command_defaults : mapping, optional
        Per-command defaults overriding ``default``.
    positional : bool
        A positional argument on the command line (e.g. ``versus WINNER LOSER``).
    metavar, nargs : str, optional
        argparse's placeholder in help, and number of values (command-line-only
        positionals, e.g. ``"+"``).
    required : bool
        A command-line-only option that must be given.
    """

    section: str | None
    key: str
    kind: str
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] | Callable[[], Sequence[str]] | None = None
    check: Callable[[Any], Any] | None = None
    nullable: bool = False
    commands: tuple[str, ...] = COMMANDS
    command_defaults: Mapping[str, Any] = field(default_factory=dict)
    positional: bool = False
    metavar: str | None = None
    nargs: str | None = None
    required: bool = False

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"Option {self.key}: kind must be one of {_KINDS}, got "
                             f"{self.kind!r}")
        if self.section is not None and (self.kind == "bool" or self.nargs or self.required):
            # a TOML setting may come from the file: argparse must neither require it
            # nor give it a value of its own (see add_arguments)
            raise ValueError(f"Option {self.key}: kind 'bool', nargs and required are for "
                             "command-line-only options (section None)")

    @property
    def flag(self) -> str:
        """The command-line flag, e.g. ``--n-samples``."""
        return "--" + self.key.replace("_", "-")

    @property
    def qualified(self) -> str:
        """The TOML name, e.g. ``[dataset] n_samples`` (the flag without a section)."""
        return self.flag if self.section is None else f"[{self.section}] {self.key}"

    def allowed_choices(self) -> list[str]:
        """The allowed strings (empty if any string is allowed)."""
        if self.choices is None:
            return []
        return list(self.choices() if callable(self.choices) else self.choices)

    def allowed(self) -> str:
        """What values are allowed, in words."""
        if self.kind == "str":
            choices = self.allowed_choices()
            text = ("one of " + ", ".join(repr(c) for c in choices)) if choices else "a string"
        else:
            noun = "an integer" if self.kind == "int" else "a number"
            if self.low is not None and self.high is not None:
                left = "(" if self.low_open else "["
                right = ")" if self.high_open else "]"
                text = f"{noun} in {left}{self.low:g}, {self.high:g}{right}"
            elif self.low is not None:
                text = f"{noun} {'>' if self.low_open else '>='} {self.low:g}"
            elif self.high is not None:
                text = f"{noun} {'<' if self.high_open else '<='} {self.high:g}"
            else:
                text = noun
        if self.nullable:
            text += f' or "{NONE}"'
        return text

    def default_for(self, command: str | None = None) -> Any:
        """The default value for a command.

        Parameters
        ----------
        command : str, optional
            The command; its entry of ``command_defaults`` wins over ``default``.
        """
        if command is not None and command in self.command_defaults:
            return self.command_defaults[command]
        return self.default

    def validate(self, value: Any, name: str | None = None) -> Any:
        """Check a value (from TOML or already converted) and return it normalised.

        Raises ``TypeError`` for a wrong type and ``ValueError`` for a value out of range
        or not among the choices; the message starts with ``name`` (default: the
        qualified TOML name; ``""`` for none) and states the allowed values.

        Parameters
        ----------
        value : object
            The value; with ``nullable``, None or ``"none"`` (any case) gives None.
        name : str, optional
            The name that starts error messages.

        Returns
        -------
        object
            The value: an ``int`` / ``float`` for numbers (a float must be finite), the
            string itself for strings, or what ``check`` returns.
        """
        name = self.qualified if name is None else name
        lead = f"{name} must be" if name else "must be"
        if self.nullable and (value is None or (isinstance(value, str)
                                                and value.lower() == NONE)):
            return None
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{lead} {self.allowed()}, got {value!r} "
                                f"({type(value).__name__})")
            value = int(value)
        elif self.kind == "float":
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{lead} {self.allowed()}, got {value!r} "
                                f"({type(value).__name__})")
            value = float(value)
            if not math.isfinite(value):
                raise ValueError(f"{lead} {self.allowed()}, got {value!r}")
        else:
            if not isinstance(value, str):
                raise TypeError(f"{lead} {self.allowed()}, got {value!r} "
                                f"({type(value).__name__})")
            choices = self.allowed_choices()
            if choices and value not in choices:
                close = difflib.get_close_matches(value, choices, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ValueError(f"{lead} {self.allowed()}, got {value!r}{hint}")
        if self.kind in ("int", "float"):
            low_bad = self.low is not None and (value <= self.low if self.low_open
                                                else value < self.low)
            high_bad = self.high is not None and (value >= self.high if self.high_open
                                                  else value > self.high)
            if low_bad or high_bad:
                raise ValueError(f"{lead} {self.allowed()}, got {value!r}")
        if self.check is not None:
            try:
                value = self.check(value)
            except (TypeError, ValueError) as error:
                prefix = f"{name}: " if name else ""
                raise type(error)(f"{prefix}{error}") from None
        return value

    def parse_text(self, text: str, name: str | None = None) -> Any:
        """Convert command-line text to a value and validate it.

        Parameters
        ----------
        text : str
            The text given on the command line (with ``nullable``, ``none`` in any
            case gives None).
        name : str, optional
            The name that starts error messages (default: the flag; ``""`` for none).

        Returns
        -------
        object
            The value, as `validate` returns it.

        Raises
        ------
        TypeError, ValueError
            ``TypeError`` for text that is not a number of the option's kind; else as
            `validate`.
        """
        name = self.flag if name is None else name
        if self.nullable and text.strip().lower() == NONE:
            return None
        lead = f"{name} must be" if name else "must be"
        if self.kind == "int":
            try:
                value: Any = int(text)
            except ValueError:
                raise TypeError(f"{lead} {self.allowed()}, got {text!r}") from None
        elif self.kind == "float":
            try:
                value = float(text)
            except ValueError:
                raise TypeError(f"{lead} {self.allowed()}, got {text!r}") from None
        else:
            value = text
        return self.validate(value, name)
