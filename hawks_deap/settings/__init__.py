"""The settings of a run: typed, validated once, and the schema of every command.

- `model`: the typed settings, one frozen dataclass per section (`DatasetSettings`,
  `IndexObjective`, `VersusObjective`, `ConstraintSettings`, `GASettings`) and
  `RunSettings`, which checks the rules that span settings and builds the problem;
- `config`: the schema (`OPTIONS`, read off the settings' fields, and
  `COMMAND_LINE_OPTIONS`), presets applied under the file and the command line, TOML
  loading and validation;
- `options`: `Option`, one setting's type, default, bounds, help and flag.
"""
