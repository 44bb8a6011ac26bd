"""The code stays small enough to read (docs/development.md, "The code"): no source file
under service/ over 700 lines (the page's scripts and stylesheets included), no function
of cyclomatic complexity over 20 (radon's count), and no HTTP handler (a method of a
resource's view) over 25 lines. A file or function that grows past these is split where
its parts have names of their own, not squeezed."""

from __future__ import annotations

import ast
from pathlib import Path

from radon.complexity import cc_visit

SERVICE = Path(__file__).resolve().parent.parent / "service"
MOST_LINES = 700
MOST_COMPLEXITY = 20
MOST_HANDLER_LINES = 25
HTTP_METHODS = {"get", "post", "put", "patch", "delete"}
#: Over a limit: none. A file or function is split where it grows past one.
LONG_FILES: set[str] = set()
COMPLEX: set[str] = set()
LONG_HANDLERS: set[str] = set()


def sources(*suffixes: str) -> list[Path]:
    return sorted(p for p in SERVICE.rglob("*") if p.suffix in suffixes and p.is_file())


def name(path: Path, root: Path = SERVICE) -> str:
    return str(path.relative_to(root.parent))


def test_no_file_is_over_700_lines() -> None:
    long = {
        name(p): n
        for p in sources(".py", ".js", ".css", ".html")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MOST_LINES
    }
    assert set(long) <= LONG_FILES, f"over {MOST_LINES} lines: {long}"
    assert not LONG_FILES - set(long), f"under the limit now: drop {LONG_FILES - set(long)}"


def test_no_function_is_over_complexity_20() -> None:
    complex_ = {
        f"{name(p)}:{block.fullname}": block.complexity
        for p in sources(".py")
        for block in cc_visit(p.read_text(encoding="utf-8"))
        if block.complexity > MOST_COMPLEXITY
    }
    assert set(complex_) <= COMPLEX, f"over complexity {MOST_COMPLEXITY}: {complex_}"
    assert not COMPLEX - set(complex_), f"simple enough now: drop {COMPLEX - set(complex_)}"


def handlers(path: Path, root: Path = SERVICE) -> dict[str, int]:
    """The lines of each method of a view class (one registered with ``@blp.route``)."""
    found = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef) and any(
            "route" in ast.unparse(d) for d in node.decorator_list
        ):
            for method in node.body:
                if isinstance(method, ast.FunctionDef) and method.name in HTTP_METHODS:
                    lines = (method.end_lineno or method.lineno) - method.lineno + 1
                    found[f"{name(path, root)}:{node.name}.{method.name}"] = lines
    return found


def test_no_http_handler_is_over_25_lines() -> None:
    views = [p for p in sources(".py") if "resources" in p.parts]
    assert views, "no resource modules found under service/api/resources"
    long = {
        where: lines
        for p in views
        for where, lines in handlers(p).items()
        if lines > MOST_HANDLER_LINES
    }
    assert set(long) <= LONG_HANDLERS, f"over {MOST_HANDLER_LINES} lines: {long}"
    assert not LONG_HANDLERS - set(long), f"short now: drop {LONG_HANDLERS - set(long)}"


def test_the_measures_see_what_they_measure(tmp_path: Path) -> None:
    """A branchy function counts over 20, and a view's method counts its own lines."""
    branchy = "def f(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(25))
    assert max(b.complexity for b in cc_visit(branchy)) == 26
    root = tmp_path / "service"
    view = root / "api" / "resources" / "things" / "routes.py"
    view.parent.mkdir(parents=True)
    body = "".join(f"        x{i} = {i}\n" for i in range(MOST_HANDLER_LINES))
    view.write_text(f"@blp.route('/x')\nclass V(MethodView):\n    def get(self):\n{body}")
    assert handlers(view, root) == {"service/api/resources/things/routes.py:V.get": 26}
