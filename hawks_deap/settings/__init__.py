"""The settings of a run: the option schema of every command, TOML files and presets.

- `config`: the schema (`OPTIONS`, `COMMAND_LINE_OPTIONS`), presets applied under the file
  and the command line, TOML loading and validation;
- `options`: `Option`, one setting's type, default, bounds, help and flag.
"""
