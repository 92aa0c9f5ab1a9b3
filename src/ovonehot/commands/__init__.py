"""The subcommands, one module each; listed here explicitly, in help order (one per line)."""

from . import run
from . import convert
from . import diff
from . import fuzz
from . import validate
from . import inspect

COMMANDS = (
    run,
    convert,
    diff,
    fuzz,
    validate,
    inspect,
)
