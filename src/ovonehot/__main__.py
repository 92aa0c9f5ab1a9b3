"""``python -m ovonehot``: the command-line tool."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while the modules load: no traceback either
    print("error: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
