"""``python -m exceptstar``: see ``_commands.cli``."""

import sys

from exceptstar._commands.cli import main

if __name__ == "__main__":
    sys.exit(main())
