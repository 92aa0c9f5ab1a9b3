"""``python -m ovonehot``: the command-line tool (Ctrl-C at any moment: one line, exit 130)."""

from ._console import run

run()
