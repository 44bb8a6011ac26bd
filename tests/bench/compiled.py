"""The optional mypyc build of the engine's hot modules (`make compile`).

The build never touches the source tree: build/mypyc/ gets a copy of the ``service``
package, and the compiled extension modules are built beside the copy. Nothing imports
it unless asked to: the benchmark runs itself in a child process with that directory
first on the path, and `make test-compiled` runs the suite against it. `make test`, the
service and the pure-Python install always run the .py sources (a test checks it).

The build records digests of the sources it was copied from. Once the engine's sources
change, the benchmark calls the build stale and skips it rather than measure old code;
once any source of the package changes, `make test-compiled` refuses it.

    python -m tests.bench.compiled build            # what `make compile` runs
    python -m tests.bench.compiled status [SCOPE]   # prints missing, stale or fresh
    python -m tests.bench.compiled check [SCOPE]    # fails unless fresh

SCOPE is ``engine`` (service/engine, what the benchmark imports) or ``package`` (all of
service, what the tests import; the default).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "mypyc"
#: The modules compiled: Hand.legal_codes()/push()/copy(), Hand.deal(), hand_points().
MODULES = ("service/engine/masks.py", "service/engine/hand.py", "service/engine/scoring.py")
DIGESTS = BUILD / "sources.json"
#: What each scope of freshness covers.
SCOPES = {"engine": ("service/__init__.py", "service/engine"), "package": ("service",)}
# mypyc type-checks what it compiles; a config of its own keeps mypy from reading the
# project's pyproject.toml, whose sections for the web layer do not apply here.
MYPY_INI = """\
[mypy]
python_version = 3.11
strict = True
"""


def sources_digest(scope: str, base: Path = ROOT) -> str:
    """Digest of the Python sources of ``scope`` in ``base``: paths and contents."""
    digest = hashlib.sha256()
    for name in SCOPES[scope]:
        path = base / name
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(str(file.relative_to(base)).encode() + b"\0")
            digest.update(file.read_bytes() + b"\0")
    return digest.hexdigest()


def status(scope: str = "package") -> str:
    """'missing', 'stale' (built from other sources of ``scope`` than today's) or 'fresh'."""
    if not DIGESTS.exists():
        return "missing"
    built = json.loads(DIGESTS.read_text())
    return "fresh" if built[scope] == sources_digest(scope) else "stale"


def build() -> None:
    shutil.rmtree(BUILD, ignore_errors=True)
    BUILD.mkdir(parents=True)
    shutil.copytree(
        ROOT / "service",
        BUILD / "service",
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"),
    )
    # Digests of the copy: what is compiled, whatever changes in the sources meanwhile.
    digests = {scope: sources_digest(scope, BUILD) for scope in SCOPES}
    (BUILD / "mypy.ini").write_text(MYPY_INI)
    subprocess.run([sys.executable, "-m", "mypyc", *MODULES], cwd=BUILD, check=True)
    DIGESTS.write_text(json.dumps(digests, indent=1) + "\n")
    print(f"compiled {', '.join(MODULES)} into {BUILD.relative_to(ROOT)}")


def main(argv: list[str]) -> None:
    command, *rest = argv or [""]
    scope = rest[0] if rest else "package"
    if len(rest) > 1 or scope not in SCOPES:
        raise SystemExit(__doc__)
    if command == "build" and not rest:
        build()
    elif command == "status":
        print(status(scope))
    elif command == "check":
        state = status(scope)
        if state != "fresh":
            raise SystemExit(f"build/mypyc is {state} ({scope}): run `make compile` first")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
