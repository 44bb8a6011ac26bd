"""The mypyc build of the engine's hot modules (`make compile`), what `make run` serves.

`make run`, `make bench` and CI's compiled tests ask for it with ``prepare``: with a C
compiler and mypyc at hand, a fresh build is reused and a missing or stale one is made;
without them, or when the build fails, it says why in one line and exits 1, and the
caller goes on with the .py sources.

The build never touches the source tree: build/mypyc/ gets a copy of the ``service``
package, and the compiled extension modules are built beside the copy. Nothing imports
it unless asked to: `make run` serves it (PYTHONPATH=build/mypyc, SCOPA_ENGINE=compiled),
the benchmark runs itself in a child process with that directory first on the path, and
`make test-compiled` (`make test-compiled-engine`: part of it) runs the suite against it.
`make test` and the installed package run the .py sources (a test checks it).

The build records digests of the sources it was copied from. Once the engine's sources
change, the benchmark calls the build stale and skips it rather than measure old code;
once any source of the package changes, `make test-compiled` refuses it, and ``prepare``
(package scope, for `make run`) builds it again: what serves is never older code.

    python -m tests.bench.compiled build            # what `make compile` runs
    python -m tests.bench.compiled status [SCOPE]   # prints missing, stale or fresh
    python -m tests.bench.compiled check [SCOPE]    # fails unless fresh
    python -m tests.bench.compiled prepare [SCOPE]  # fresh, built if need be, or exit 1

SCOPE is ``engine`` (service/engine, what the benchmark imports) or ``package`` (all of
service, what the tests import; the default).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
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


def build(quiet: bool = False) -> None:
    """Build into BUILD; ``quiet``: mypyc's output only if it fails (in the exception)."""
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
    subprocess.run(
        [sys.executable, "-m", "mypyc", *MODULES],
        cwd=BUILD,
        check=True,
        capture_output=quiet,
        text=True,
    )
    DIGESTS.write_text(json.dumps(digests, indent=1) + "\n")
    print(f"compiled {', '.join(MODULES)} into {BUILD.relative_to(ROOT)}")


def c_compiler() -> str | None:
    """The C compiler a build would use (CC, Python's own CC, then cc or gcc), if any."""
    for name in (os.environ.get("CC"), sysconfig.get_config_var("CC"), "cc", "gcc"):
        if name and name.split() and (found := shutil.which(name.split()[0])):
            return found
    return None


def prepare(scope: str = "package") -> bool:
    """A build fresh for ``scope``: reused, or made when a C compiler and mypyc are at
    hand. False (having said why in one line) when there is none; no exception."""
    state = status(scope)
    where = os.path.relpath(BUILD, ROOT)
    if state == "fresh":
        print(f"engine: compiled (mypyc): {where} is fresh for today's sources, reused")
        return True
    if c_compiler() is None:
        print("engine: pure Python (no C compiler: cc or gcc not on PATH, so no mypyc build)")
        return False
    if importlib.util.find_spec("mypyc") is None:
        print("engine: pure Python (mypyc is not installed: pip install -e '.[compile]')")
        return False
    print(f"engine: {where} is {state}: building it with mypyc (about 20 s)", flush=True)
    try:
        build(quiet=True)
    except (OSError, subprocess.CalledProcessError) as error:
        shutil.rmtree(BUILD, ignore_errors=True)  # no half build left to be taken
        output = getattr(error, "stdout", None) or ""
        tail = "\n".join(output.splitlines()[-15:]) + (getattr(error, "stderr", None) or "")
        why = (
            f"mypyc exited with status {error.returncode}"
            if isinstance(error, subprocess.CalledProcessError)
            else str(error)
        )
        print(f"{tail.rstrip()}\nengine: pure Python (the mypyc build failed: {why})")
        return False
    return True


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
    elif command == "prepare":
        raise SystemExit(0 if prepare(scope) else 1)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
