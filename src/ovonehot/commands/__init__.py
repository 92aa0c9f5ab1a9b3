"""The subcommands, one module each; listed here explicitly, in help order."""

from . import run

COMMANDS = (run,)
