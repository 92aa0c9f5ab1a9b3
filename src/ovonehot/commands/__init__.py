"""The subcommands, one module each; listed here explicitly, in help order (one per line)."""

from . import convert, diff, fuzz, inspect, reduce, repro, run, validate

COMMANDS = (
    run,
    convert,
    diff,
    fuzz,
    validate,
    inspect,
    reduce,
    repro,
)
