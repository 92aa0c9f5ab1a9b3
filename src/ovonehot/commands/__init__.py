"""The subcommands, one module each; listed here explicitly, in help order (one per line)."""

from . import run
from . import convert
from . import diff

COMMANDS = (
    run,
    convert,
    diff,
)
