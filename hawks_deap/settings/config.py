"""The configuration schema: every option of every command, and TOML config files.

Every setting of a run is described once, as data, in `OPTIONS`: its TOML section and
key, type, allowed values, default and help text. The ``hawks-deap`` command builds its
``--long-options`` from it (`add_arguments`), config files are validated against it
(`load_config`, `validate_config`), and both are merged by `resolve`, so the list of
options exists in exactly one place.

A config file has the sections ``[dataset]``, ``[objective]``, ``[constraints]`` and
``[ga]``; keys are the long option names with underscores::

    [dataset]
    n_samples = 2000
    n_clusters = 5
    n_dims = 2

    [objective]            # Index mode: target, index, metric
    target = 0.5           # Versus mode: winner, loser, score
    metric = "sqeuclidean"

    [constraints]
    max_overlap = 0.1      # "none" removes a constraint
    min_eccentricity = "none"

    [ga]
    generations = 100
    population_size = 10
    mean_mutation = "pso"
    seed = 0

Options given on the command line override the file; the file overrides the
defaults. An unknown section or key is an error naming it and suggesting the closest
valid one; a wrong type or range names the key and the allowed values.

Grid files (for parameter campaigns) use the same sections: pass ``allow_lists=True``
to `validate_config` and a list value stands for several values, each validated;
`hawks_deap.campaign.suite.expand_grid` makes their cartesian product. Extra sections (e.g.
``[suite]``) are added by passing an extended tuple of `Option` as ``options``.

Options that exist only on the command line (output paths, ``--quiet``, and every
option of ``features``, ``plot``, ``export`` and ``suite``) are in `COMMAND_LINE_OPTIONS`: they
have no TOML section, are not settings of a run and are never recorded in a dataset's
metadata. `SCHEMA` is both tables; ``add_arguments(parser, command, SCHEMA)`` builds
every option of a command.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from hawks_deap._util.workers import MAX_WORKERS
from hawks_deap.analysis.plotting import DPI_RANGE
from hawks_deap.settings.model import preset_names, setting_options, silhouette_metric_names
from hawks_deap.settings.options import COMMANDS, NONE, Option

__all__ = [
    "COMMANDS", "COMMAND_LINE_OPTIONS", "NONE", "OPTIONS", "SCHEMA", "SUITE_BACKENDS",
    "Option", "add_arguments", "check_command_line", "cli_values", "differences",
    "find_option", "load_config", "load_toml", "options_for", "resolve", "sections",
    "validate_config"
]

#: Where the runs of ``hawks-deap suite`` execute.
SUITE_BACKENDS: tuple[str, ...] = ("processes", "dask")

# --------------------------------------------------------------------------- schema


#: Every setting of ``generate`` and ``versus``, read off the typed settings
#: (`hawks_deap.settings.model`): their sections' fields, in order.
OPTIONS: tuple[Option, ...] = setting_options()


_COLLECTION = ("features", "plot")


def _external_score(value: str) -> str:
    """An external index's name or alias (the `performance_table` ``score``), checked."""
    from hawks_deap import metrics

    if metrics.get(value).kind != "external":  # an unknown name: ValueError listing them
        raise ValueError(f"{value!r} is an internal index; the scores compare partitions "
                         "with the true labels: ari, nca or another external index")
    return value

_CONFIG_HELP = ("TOML file with [dataset], [objective], [constraints], [ga] sections (keys: "
                "the long options with underscores)")

#: Options that exist only on the command line: where to write, how verbose, and every
#: option of the commands that read saved datasets or run suites. Their text is converted
#: and checked while parsing, as a setting's (`Option.parse_text`); `check_command_line`
#: then checks that required ones were given.
COMMAND_LINE_OPTIONS: tuple[Option, ...] = (
    # generate, versus, suite (the order of each command's options is its usage line's)
    Option(None, "config", "str", None, f"{_CONFIG_HELP}, or a HAWKS 0.2.0 config (.json); "
           "options given here override it", metavar="FILE.toml",
           commands=("generate", "versus")),
    Option(None, "config", "str", None, f"{_CONFIG_HELP}; options given here override it",
           metavar="FILE.toml", commands=("target",)),  # (HAWKS configs: Index, Versus)
    Option(None, "out", "str", None, "output directory (must not exist, unless --overwrite)",
           metavar="DIR", required=True, commands=COMMANDS),
    Option(None, "overwrite", "bool", False, "replace an existing hawks-deap output directory",
           commands=COMMANDS),
    # not a setting of the run (it changes no result, seed or metadata): the command line's
    Option(None, "format", "str", "csv",
           "file of the points: data.csv (text) or data.npz (compressed, exact)",
           choices=("csv", "npz"), commands=COMMANDS),
    Option(None, "grid", "str", None, "the grid file (.toml, or a HAWKS 0.2.0 config: .json)",
           positional=True, metavar="GRID.toml",
           commands=("suite",)),
    Option(None, "out", "str", None, "output directory", metavar="DIR", required=True,
           commands=("suite",)),
    Option(None, "workers", "int", 1, "runs at once: local processes or dask workers "
           f"(at most one per run to do, and {MAX_WORKERS})", low=1, high=MAX_WORKERS,
           commands=("suite", "fill")),
    Option(None, "backend", "str", SUITE_BACKENDS[0],
           "local processes or dask.distributed", choices=SUITE_BACKENDS,
           commands=("suite", "fill")),
    Option(None, "scheduler", "str", None,
           "an existing dask scheduler, e.g. tcp://host:8786 (default: a local cluster of "
           "--workers workers)", metavar="ADDRESS", commands=("suite", "fill")),
    Option(None, "preset", "str", None,
           "named settings of a study for every configuration (hawks-tevc: the HAWKS "
           "paper's; see hawks_deap.presets): [ga] preset of each, over the grid's own",
           choices=preset_names, metavar="PRESET", commands=("suite",)),
    Option(None, "quiet", "bool", False,
           "no progress bar and no summary (the bar is also off when stderr is not a "
           "terminal)", commands=(*COMMANDS, "suite", "fill")),
    # features, plot
    Option(None, "paths", "str", None, "a dataset or run directory, a folder of them, a "
           "suite's folder, or a clustering-benchmarks battery folder or NAME.data.gz",
           positional=True, metavar="PATH", nargs="+",
           commands=(*_COLLECTION, "export", "fill")),
    Option(None, "labels", "int", 0, "reference partition of battery datasets: "
           "NAME.labels{K}.gz (label 0 is noise)", low=0, metavar="K",
           commands=(*_COLLECTION, "export", "fill")),
    Option(None, "metric", "str", "sqeuclidean",
           "distance of the silhouette features; sqeuclidean is HAWKS' choice",
           choices=silhouette_metric_names, commands=("features",)),
    Option(None, "out", "str", None,
           "folder for the figures (default: the dataset directory; required for several "
           "datasets)", metavar="DIR", commands=("plot",)),
    Option(None, "algorithms", "str", None,
           "also give the ARI of these clustering algorithms: 'all', 'paper' (the paper's "
           "six) or a comma-separated list whose entries are registered names or import "
           "paths package.module:attr or path/to/file.py:attr (plot: for collections "
           "only; export: --format isa "
           "or clustbench-results)", metavar="NAMES", commands=(*_COLLECTION, "export")),
    Option(None, "preset", "str", None,
           "settings of the registered --algorithms (hawks-tevc: K-Means++ n_init=10, GMM "
           "n_init=3, as the original HAWKS analysis)", choices=preset_names, metavar="PRESET",
           commands=(*_COLLECTION, "export")),
    Option(None, "seed", "int", 0, "seed of stochastic clustering algorithms (with each "
           "dataset's data and the algorithm's name: a score does not depend on the other "
           "PATHs)", low=0,
           commands=(*_COLLECTION, "export")),
    Option(None, "score", "str", "ari", "external index that scores the --algorithms: ari, "
           "nca (clustbench's normalised clustering accuracy) or any external index of "
           "hawks_deap.metrics; columns are named SCORE_ALGORITHM", metavar="INDEX",
           check=_external_score, commands=_COLLECTION),
    Option(None, "references", "str", "labels", "the reference labellings that score the "
           "--algorithms: 'labels' (the --labels K one) or 'all' (every labelling of a "
           "battery dataset, each with its own K, the best score over them: "
           "clustbench.get_score's rule)", choices=("labels", "all"), commands=_COLLECTION),
    Option(None, "n_jobs", "int", 1, "processes that run the --algorithms (the table does "
           "not depend on it; export: --format isa only)",
           low=1, high=MAX_WORKERS, commands=(*_COLLECTION, "export")),
    Option(None, "format", "str", "table", "printed format", choices=("table", "csv", "json"),
           commands=("features",)),
    Option(None, "out", "str", None,
           "write the table to FILE (.json: JSON, otherwise CSV) instead of printing it",
           metavar="FILE", commands=("features",)),
    Option(None, "overwrite", "bool", False, "replace an existing FILE",
           commands=("features",)),
    Option(None, "dpi", "int", 150, "resolution", low=DPI_RANGE[0], high=DPI_RANGE[1],
           commands=("plot",)),
    Option(None, "overwrite", "bool", False, "replace existing figures", commands=("plot",)),
    # export
    Option(None, "format", "str", "clustbench",
           "clustbench: a battery, DIR/NAME; isa: DIR/metadata.csv (DIR/NAME/metadata.csv "
           "with --battery), Instance Space Analysis' input (MATILDA); clustbench-results: "
           "the --algorithms' partitions in clustbench's results layout, "
           "DIR/GROUP/BATTERY/NAME.resultK.gz (one K per reference labelling)",
           choices=("clustbench", "isa", "clustbench-results"), commands=("export",)),
    Option(None, "battery", "str", None,
           "the battery's name (clustbench: required, the battery is DIR/NAME; isa: the file "
           "is DIR/NAME/metadata.csv; clustbench-results: BATTERY for every dataset, by "
           "default a battery dataset's own)", metavar="NAME", commands=("export",)),
    Option(None, "method_group", "str", "hawks-deap",
           "clustbench-results: the folder of the methods, GROUP", metavar="GROUP",
           commands=("export",)),
    Option(None, "out", "str", None, "root of the benchmark suite: the battery is DIR/NAME",
           metavar="DIR", required=True, commands=("export",)),
    Option(None, "overwrite", "bool", False,
           "replace datasets (clustbench) or results files (clustbench-results) hawks-deap "
           "wrote, or (isa) an existing metadata.csv",
           commands=("export",)),
    # fill
    Option(None, "out", "str", None, "the fill's folder (a fill's folder with the same "
           "plan resumes)", metavar="DIR", required=True, commands=("fill",)),
    Option(None, "n", "int", 50, "gaps to fill (one run each)", low=1, commands=("fill",)),
    Option(None, "cell", "float", 0.25, "side of the grid's cells, in the space's "
           "standardised units (coverage counts the region's cells that hold a dataset)",
           low=0.0, low_open=True, commands=("fill",)),
    Option(None, "min_margin", "float", 0.1, "how far inside the generator's reach a "
           "target must be: the free features' standardised margin (negative: targets "
           "up to that far outside the estimated reach)", commands=("fill",)),
    Option(None, "config", "str", None, "TOML file with the runs' [dataset] (n_samples, "
           "min_size, ...), [constraints] and [ga] settings (defaults: hawks-deap "
           "target's, with 250 generations)", metavar="FILE.toml", commands=("fill",)),
    Option(None, "seed", "int", 0, "suite seed of the runs", low=0, commands=("fill",)),
    # verify
    Option(None, "runs", "str", None, "a run directory written by generate, versus, "
           "target, a suite or a fill (their runs/NAME), or a folder of them: a suite's "
           "output folder stands for every run under its runs/", positional=True,
           metavar="RUN", nargs="+",
           commands=("verify",)),
    Option(None, "n_jobs", "int", None, "evaluation processes for each repeat (the result "
           "does not depend on it; none: one per core for a Versus run, 1 otherwise, as "
           "hawks_deap.evolve)", low=1, high=MAX_WORKERS, nullable=True,
           commands=("verify",)),
)

#: Every option of every command.
SCHEMA: tuple[Option, ...] = (*OPTIONS, *COMMAND_LINE_OPTIONS)


def _check_schema(options: Sequence[Option]) -> None:
    """A key names one option per command (values are ``{key: value}`` per command)."""
    seen: dict[tuple[str, str], Option] = {}
    for opt in options:
        for command in opt.commands:
            other = seen.setdefault((command, opt.key), opt)
            if other is not opt:
                raise ValueError(f"duplicate option key {opt.key!r} of the {command!r} "
                                 f"command in {opt.qualified} and {other.qualified}")


_check_schema(SCHEMA)


def sections(options: Sequence[Option] = OPTIONS) -> list[str]:
    """TOML section names, in schema order.

    Parameters
    ----------
    options : sequence of Option
        The schema (default `OPTIONS`); options without a section add none.
    """
    return list(dict.fromkeys(opt.section for opt in options if opt.section is not None))


def options_for(command: str | None, options: Sequence[Option] = OPTIONS) -> list[Option]:
    """The options a command uses (all of them for ``None``).

    Parameters
    ----------
    command : str or None
        The command, e.g. ``"generate"``.
    options : sequence of Option
        The schema (default `OPTIONS`), whose order is kept.
    """
    return [opt for opt in options if command is None or command in opt.commands]


def find_option(section: str, key: str, options: Sequence[Option] = OPTIONS
                ) -> Option | None:
    """The option at ``[section] key``, or None.

    Parameters
    ----------
    section, key : str
        The TOML section and key, e.g. ``"ga"``, ``"generations"``.
    options : sequence of Option
        The schema (default `OPTIONS`); the first match is returned.
    """
    for opt in options:
        if opt.section == section and opt.key == key:
            return opt
    return None


def _unknown_key(section: str, key: str, options: Sequence[Option], source: str) -> str:
    """Message for an unknown ``[section] key``, suggesting the closest valid key."""
    where = f" in {source}" if source else ""
    in_section = [o.key for o in options if o.section == section]
    suggestion = None
    moved = [o for o in options if o.key == key or o.key == key.replace("-", "_")]
    if moved:
        suggestion = moved[0].qualified                 # right key, wrong section or dashes
    else:
        close = difflib.get_close_matches(key, in_section, n=1, cutoff=0.5)
        if close:
            suggestion = f"[{section}] {close[0]}"
        else:
            close = difflib.get_close_matches(key, [o.key for o in options], n=1, cutoff=0.6)
            if close:
                suggestion = next(o.qualified for o in options if o.key == close[0])
    hint = f"; did you mean {suggestion}?" if suggestion else ""
    return (f"unknown key [{section}] {key}{where}{hint} (valid keys in [{section}]: "
            f"{', '.join(in_section)})")


def validate_config(data: Mapping[str, Any], *, command: str | None = None,
                    options: Sequence[Option] = OPTIONS, allow_lists: bool = False,
                    source: str = "") -> dict[str, dict[str, Any]]:
    """Validate parsed TOML: known sections and keys, right types and ranges.

    Parameters
    ----------
    data : mapping
        ``{section: {key: value}}`` as parsed from TOML.
    command : str, optional
        When given, keys the command does not use are errors.
    options : sequence of Option
        The schema (default `OPTIONS`).
    allow_lists : bool
        Accept a list of values for any key (grid files); each element is validated.
    source : str
        File name for messages.

    Returns
    -------
    dict
        ``{section: {key: value}}`` with normalised values (``"none"`` becomes None).

    Raises
    ------
    ValueError, TypeError
        Naming the section or key (``[dataset] n_samples``) and the allowed values.
    """
    where = f" in {source}" if source else ""
    valid_sections = sections(options)
    out: dict[str, dict[str, Any]] = {}
    if not isinstance(data, Mapping):
        raise TypeError(f"a config must be a table of sections, got {type(data).__name__}")
    for section, table in data.items():
        if not isinstance(table, Mapping) and section not in valid_sections:
            # a key above every section header: name the section it belongs in
            homes = [o.qualified for o in options
                     if o.key == section and o.section is not None
                     and (command is None or command in o.commands)]
            hint = f"; did you mean {homes[0]}?" if homes else ""
            raise ValueError(f"key {section}{where} is outside any section{hint} (write "
                             "it under its [section] header)")
        if section not in valid_sections:
            close = difflib.get_close_matches(section, valid_sections, n=1)
            hint = f"; did you mean [{close[0]}]?" if close else ""
            raise ValueError(f"unknown section [{section}]{where}{hint} (valid sections: "
                             + ", ".join(f"[{s}]" for s in valid_sections) + ")")
        if not isinstance(table, Mapping):
            raise TypeError(f"[{section}]{where} must be a table of keys, got "
                            f"{table!r}; write it as a [{section}] section")
        values: dict[str, Any] = {}
        for key, value in table.items():
            opt = find_option(section, key, options)
            if opt is None:
                raise ValueError(_unknown_key(section, key, options, source))
            if command is not None and command not in opt.commands:
                users = ", ".join(opt.commands)
                raise ValueError(f"{opt.qualified}{where} is not used by the {command!r} "
                                 f"command (it is a setting of: {users}); remove it")
            if isinstance(value, list):
                if not allow_lists:
                    raise TypeError(f"{opt.qualified}{where} must be {opt.allowed()}, got a "
                                    f"list {value!r}")
                if not value:
                    raise ValueError(f"{opt.qualified}{where} must not be an empty list")
                values[key] = [opt.validate(v, f"{opt.qualified}{where}") for v in value]
            else:
                values[key] = opt.validate(value, f"{opt.qualified}{where}")
        out[section] = values
    return out


def load_toml(path: str | os.PathLike) -> dict[str, Any]:
    """Parse a TOML file (``tomllib``, or ``tomli`` on Python 3.10).

    Raises ``ValueError`` naming the file for a missing or unreadable file, one that is
    not a regular file (``/dev/zero``, a FIFO) or is over 16 MiB, text that is not UTF-8,
    invalid TOML, and tables or lists nested more than 32 levels deep
    (`hawks_deap._util.files.read_toml`).

    Parameters
    ----------
    path : str or pathlib.Path
        The file (UTF-8 text); its parsed tables are returned, not validated.
    """
    from hawks_deap._util.files import read_toml

    return read_toml(path, f"config file {path}")


def load_config(path: str | Path, *, command: str | None = None,
                options: Sequence[Option] = OPTIONS, allow_lists: bool = False
                ) -> dict[str, dict[str, Any]]:
    """Read and validate a TOML config file (see `validate_config`).

    Parameters
    ----------
    path : str or pathlib.Path
        The file (`load_toml`); its name is the ``source`` of messages.
    command : str, optional
        When given, keys the command does not use are errors.
    options : sequence of Option
        The schema (default `OPTIONS`).
    allow_lists : bool
        Accept a list of values for any key (grid files), as `validate_config`, whose
        result is returned.
    """
    return validate_config(load_toml(path), command=command, options=options,
                           allow_lists=allow_lists, source=str(path))


def resolve(command: str, file_values: Mapping[str, Mapping[str, Any]] | None = None,
            cli_values: Mapping[str, Any] | None = None,
            options: Sequence[Option] = OPTIONS,
            presets: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Merge defaults, a validated config and command-line values.

    Parameters
    ----------
    command : str
        The command (its options and defaults are used).
    file_values : mapping, optional
        ``{section: {key: value}}`` from `load_config`.
    cli_values : mapping, optional
        ``{key: value}`` given on the command line (already validated); absent keys
        are not given.
    options : sequence of Option
        The schema.
    presets : mapping, optional
        What each preset sets, ``{name: {key: value}}``, instead of today's
        (`hawks_deap.presets.preset_settings`): a seed key's frozen presets
        (`hawks_deap.campaign.seed_keys.SEED_KEY_PRESETS`).

    Returns
    -------
    dict
        ``{key: value}`` for every option of the command: the command line wins over
        the file, which wins over the preset (``preset``, `hawks_deap.presets`), which
        wins over the default.
    """
    from hawks_deap.presets import preset_settings

    file_values = file_values or {}
    cli_values = cli_values or {}
    out: dict[str, Any] = {}
    given: set[str] = set()
    for opt in options_for(command, options):
        if opt.key in cli_values and cli_values[opt.key] is not _UNSET:
            out[opt.key] = cli_values[opt.key]
        elif opt.section is not None and opt.key in file_values.get(opt.section, {}):
            out[opt.key] = file_values[opt.section][opt.key]
        else:
            out[opt.key] = opt.default_for(command)
            continue
        given.add(opt.key)
    preset = out.get("preset")
    applied = (preset_settings(preset, command) if presets is None
               else dict(presets.get(preset, {})) if preset is not None else {})
    for key, value in applied.items():
        if key in out and key not in given:
            out[key] = value
    return out


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


_UNSET = _Unset()


def _arg_type(opt: Option) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        try:
            return opt.parse_text(text, name="")
        except (TypeError, ValueError) as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    convert.__name__ = opt.key
    return convert


def _add_command_line_option(parser: argparse.ArgumentParser, opt: Option) -> None:
    """Add an option without a TOML section, with its default (nothing overrides it).

    Its text is converted and checked as a setting's (`Option.parse_text`: ``none`` for
    a nullable option, bounds, choices with a did-you-mean), and its help states what
    is allowed. A required option is checked by `check_command_line`, not argparse, so
    that a mistyped flag is named (with a did-you-mean) before a missing one.
    """
    if opt.kind == "bool":
        parser.add_argument(opt.flag, dest=opt.key, action="store_true", help=opt.help)
        return
    text = opt.help
    if opt.kind != "str" or opt.choices is not None or opt.nullable:
        text += f"; {opt.allowed()}"
    if opt.default is not None or opt.nullable:
        text += f" (default {NONE if opt.default is None else opt.default})"
    elif opt.required:
        text += " (required)"
    kwargs: dict[str, Any] = {"metavar": opt.metavar or opt.key.upper(), "help": text,
                              "type": _arg_type(opt)}
    if opt.positional:
        parser.add_argument(opt.key, nargs=opt.nargs, **kwargs)
    else:
        parser.add_argument(opt.flag, dest=opt.key, default=opt.default, **kwargs)


def add_arguments(parser: argparse.ArgumentParser, command: str,
                  options: Sequence[Option] = OPTIONS) -> None:
    """Add a command's options to an argparse parser, one group per TOML section.

    Settings (options with a TOML section) left out on the command line are absent from
    the parsed namespace (``argparse.SUPPRESS``), so `cli_values` can tell them from
    defaults and a config file can supply them; positional settings default to an unset
    marker. Command-line-only options (`COMMAND_LINE_OPTIONS`, e.g. with
    ``options=SCHEMA``) follow, in argparse's own groups, with their defaults.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser (e.g. the command's subparser), changed in place.
    command : str
        The command whose options (`options_for`) are added.
    options : sequence of Option
        The schema (default `OPTIONS`: the settings only).
    """
    for section in sections(options):
        opts = [o for o in options_for(command, options) if o.section == section]
        if not opts:
            continue
        group = parser.add_argument_group(f"[{section}] options")
        for opt in opts:
            default = opt.default_for(command)
            shown = NONE if default is None else default
            text = f"{opt.help}; {opt.allowed()}"
            if opt.positional:
                group.add_argument(opt.key, metavar=opt.key.upper(), nargs="?",
                                   default=_UNSET, type=_arg_type(opt),
                                   help=f"{text} (or {opt.qualified} in --config)")
            else:
                group.add_argument(opt.flag, dest=opt.key, metavar=opt.key.upper(),
                                   type=_arg_type(opt), default=argparse.SUPPRESS,
                                   help=f"{text} (default {shown})")
    for opt in options_for(command, options):
        if opt.section is None:
            _add_command_line_option(parser, opt)


def check_command_line(namespace: argparse.Namespace, command: str,
                       options: Sequence[Option] = COMMAND_LINE_OPTIONS) -> None:
    """Check a command's command-line-only options once parsed: given, and in bounds.

    A required option left out is refused (``--flag is required``), and an empty
    string (``--out ""`` would name the working folder); each value goes
    through its option's `Option.validate`, the rule settings follow too (open bounds,
    finite numbers), which parsing applied already but a namespace built in code has not
    seen: ``ValueError`` (``--flag must be ALLOWED, got value``) for the first value it
    refuses.

    Parameters
    ----------
    namespace : argparse.Namespace
        The parsed command line (a None value is checked only for being required).
    command : str
        The command whose options are checked.
    options : sequence of Option
        The schema (default `COMMAND_LINE_OPTIONS`); options with a section are skipped.
    """
    for opt in options_for(command, options):
        if opt.section is not None:
            continue  # settings are checked while parsing (add_arguments)
        value = getattr(namespace, opt.key, None)
        if opt.required and value is None:
            raise ValueError(f"{opt.flag} is required")
        if isinstance(value, str) and not value.strip():  # e.g. --out "" is not "."
            raise ValueError(f"{opt.flag} must not be empty")
        if value is None or opt.kind == "bool" or opt.nargs is not None:
            continue  # (lists of paths: checked by their commands)
        opt.validate(value, opt.flag)  # bounds, finiteness, choices, e.g. --score's check


def cli_values(namespace: argparse.Namespace, command: str,
               options: Sequence[Option] = OPTIONS) -> dict[str, Any]:
    """The schema options given on the command line, ``{key: value}``.

    Parameters
    ----------
    namespace : argparse.Namespace
        Parsed by a parser from `add_arguments` (settings left out are absent from it).
    command : str
        The command whose options are read.
    options : sequence of Option
        The schema (default `OPTIONS`).
    """
    out = {}
    for opt in options_for(command, options):
        value = getattr(namespace, opt.key, _UNSET)
        if value is not _UNSET:
            out[opt.key] = value
    return out


def unknown_arguments(command: str, extras: Sequence[str]) -> str:
    """The error for arguments a command does not take, with a did-you-mean per option.

    argparse names neither the command nor a close option; a TOML typo gets both. The
    command's options come from the schema, as its parser's do (`add_arguments`).
    """
    options = ["--help", *(o.flag for o in (*options_for(command),
                                            *options_for(command, COMMAND_LINE_OPTIONS))
                           if not o.positional)]
    hints = []
    for given in (e.split("=")[0] for e in extras if e.startswith("--")):
        close = ([o for o in options if o.startswith(given)]  # a cut-short name
                 or difflib.get_close_matches(given.replace("_", "-"), options, n=1,
                                              cutoff=0.75))
        if close:
            hints.append(f"{given}: did you mean {close[0]}?")
    return (f"hawks-deap {command}: error: unrecognized arguments: {' '.join(extras)}"
            + (f" ({'; '.join(hints)})" if hints else "") + f"; see hawks-deap {command} --help")


def differences(before: object, after: object, *, limit: int = 3) -> list[str]:
    """The first ``limit`` places where two JSON values differ, as ``path: old -> new``.

    For refusals that must say what changed (a suite folder holding another grid), so
    the user need not diff two JSON files by hand.

    Parameters
    ----------
    before, after : object
        JSON values (dicts, lists, scalars).
    limit : int
        At most this many differences, in sorted key order.

    Returns
    -------
    list of str
        Empty when the two are equal.

    Examples
    --------
    >>> differences({"ga": {"generations": 4}, "runs": 2}, {"ga": {"generations": 3},
    ...                                                     "runs": 2})
    ['ga.generations: 4 -> 3']
    """
    found: list[str] = []

    def walk(a: object, b: object, path: str) -> None:
        if len(found) >= limit or a == b:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(a.keys() | b.keys(), key=str):
                here = f"{path}.{key}" if path else str(key)
                walk(a.get(key, "(absent)"), b.get(key, "(absent)"), here)
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{path}[{i}]")
        else:
            found.append(f"{path or '(whole)'}: {_json_text(a)} -> {_json_text(b)}")

    walk(before, after, "")
    return found


def _json_text(value: object, width: int = 60) -> str:
    """``value`` as compact JSON, cut to ``width`` characters."""
    text = json.dumps(value, default=str)
    return text if len(text) <= width else text[:width - 3] + "..."
