"""``python -m service.api.problems docs/api.md`` (``make docs``) writes the table of
problem types into that file; with no argument, it prints the table."""

import sys
from pathlib import Path

from .docs import table, with_table

if len(sys.argv) > 1:
    path = Path(sys.argv[1])
    path.write_text(with_table(path.read_text(encoding="utf-8")), encoding="utf-8")
else:
    print(table(), end="")
