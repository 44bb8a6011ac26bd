"""One source for configuration: every setting declared once (service/settings/), one
typed attribute of service/config.py's Settings each, the guide docs/configuration.md
generated from the declarations, and a bad value refused at start with one line naming it
(in the app, gunicorn's master and the background worker)."""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from flask.views import MethodView

from service import config
from service.api import settings as app_settings
from service.app import check_plain, create_app
from service.settings import declaring
from service.settings.storage import DEFAULT_REDIS_URL
from tests.live import APP, DEFAULT_ENV, GUNICORN, ROOT, free_port
from tests.test_deploy import deployments, dockerfile_stages, k8s_documents

GUIDE = ROOT / "docs" / "configuration.md"

#: Values no setting can take, the setting each names, and words its refusal must say.
BAD_VALUES = [
    ("PORT", "abc", "whole number from 1 to 65535"),
    ("PORT", "70000", "whole number from 1 to 65535"),
    ("RATE_LIMIT_PER_ADDRESS", "-1", "whole number, 0 or more"),
    ("GAME_TTL_SECONDS", "1.5", "whole number, 1 or more"),  # a float where an int is
    ("WEB_CONCURRENCY", "0", "whole number, 1 or more"),
    ("REDIS_TIMEOUT_SECONDS", "0", "number above 0"),
    ("EXPERT_BUDGET_MS", "nan", "number above 0"),
    ("STREAM_MAX_SECONDS", "inf", "number above 0"),
    ("ADDRESS_PREFIX_V6", "129", "whole number from 0 to 128"),
    ("LOG_LEVEL", "loud", "one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
    ("SCOPA_ENGINE", "fast", "one of compiled, python"),
    ("REDIS_URL", "http://cache:6379", "scheme 'http'"),
    ("QUEUE_REDIS_URL", "redis+cluster://node", "is not host:port"),
    ("WEBHOOK_RETRY_SCHEDULE", "5,soon", "comma-separated whole seconds"),
    ("WEBHOOK_ALLOW_HOSTS", "a b", "is not a host or host:port"),
    ("SERVICE_KEYS", "platform", "must be written name=secret"),
]


def test_the_checked_in_guide_is_what_make_docs_writes() -> None:
    assert GUIDE.read_text() == config.markdown(), (
        "docs/configuration.md differs from the settings of service/config.py: run `make docs`"
    )


def test_the_guide_lists_every_setting_once_with_its_default() -> None:
    rows = re.findall(
        r"^### `([A-Z0-9_]+)`\n\n.+\n\nDefault: (.+)\.$", GUIDE.read_text(), re.MULTILINE
    )
    assert [name for name, _ in rows] == [s.name for s in config.SETTINGS]
    defaults = dict(rows)
    assert defaults["PORT"] == "`8000`"
    assert defaults["REDIS_TIMEOUT_SECONDS"] == "`0.5`"
    assert defaults["COST_BUDGET_SECONDS_PER_ADDRESS"] == "`7`"
    assert "GUNICORN_THREADS" in defaults["REDIS_MAX_CONNECTIONS"]


def test_every_variable_the_service_reads_is_declared() -> None:
    """A variable read anywhere but through service/config.py would be missing from the
    guide: the service and gunicorn's settings read none by themselves, but PYTHONPATH
    (the interpreter's) and PROMETHEUS_MULTIPROC_DIR (which gunicorn.conf.py sets for
    the workers when it is not given)."""
    read = re.compile(r"""os\.environ(?:\.get\(|\[)\s*["']([A-Z][A-Z0-9_]*)["']""")
    # (service/config.py reads every declared variable, by its name.)
    sources = [*sorted((ROOT / "service").rglob("*.py")), ROOT / "deploy" / "gunicorn.conf.py"]
    names = {
        (path.relative_to(ROOT).as_posix(), name)
        for path in sources
        if path.name != "config.py"
        for name in read.findall(path.read_text())
    }
    declared = {setting.name for setting in config.SETTINGS}
    assert {name for _, name in names} - declared == {"PYTHONPATH"}, sorted(names)
    assert {"HOST", "PORT", "WEB_CONCURRENCY", "LOG_LEVEL", "SCOPA_ENGINE"} <= declared


def test_every_setting_is_documented_in_one_group() -> None:
    for setting in config.SETTINGS:
        assert setting.group in config.GROUPS, setting.name
        assert setting.meaning, setting.name
    names = [setting.name for setting in config.SETTINGS]
    assert len(names) == len(set(names))


def test_a_setting_means_what_its_sections_docstring_says_under_attributes() -> None:
    """A setting's meaning is its entry in its section's docstring (its lines joined), the
    section's title that docstring's first line; an entry missing, or one for no
    setting, stops the declarations at import."""

    @dataclasses.dataclass(frozen=True)
    class Section(declaring.Section):
        """A title

        Attributes:
            first: what the first means,
                on two lines: `A: B`
            second: the second
        """

        first: int = declaring.nonnegative(1)
        second: float = declaring.positive(2.0)

    first, second = declaring.declared(Section)
    assert (first.group, first.meaning) == ("A title", "what the first means, on two lines: `A: B`")
    assert (second.name, second.kind, second.meaning) == ("SECOND", float, "the second")
    assert (first.minimum, first.above_minimum, second.above_minimum) == (0, False, True)

    @dataclasses.dataclass(frozen=True)
    class Forgotten(declaring.Section):
        """A title

        Attributes:
            first: what the first means
            third: no such setting
        """

        first: int = declaring.nonnegative(1)
        second: int = declaring.nonnegative(2)

    with pytest.raises(TypeError, match=r"Forgotten's docstring .* \['second', 'third'\]"):
        declaring.declared(Forgotten)


def test_the_secrets_length_in_the_guide_is_the_one_required() -> None:
    """The docstring cannot be formatted: it writes MIN_SECRET_LENGTH's value itself."""
    for setting in config.SETTINGS:
        if setting.name in ("SERVER_SECRET", "SERVICE_KEYS"):
            assert f"{config.MIN_SECRET_LENGTH}+ random characters" in setting.meaning


def test_each_setting_is_one_typed_attribute_of_the_frozen_settings() -> None:
    settings = config.load({"GAME_TTL_SECONDS": "100", "EXPERT_BUDGET_MS": "20"})
    fields = dataclasses.fields(config.Settings)
    assert [field.name for field in fields] == [s.attribute for s in config.SETTINGS]
    assert [s.name for s in config.SETTINGS] == [s.attribute.upper() for s in config.SETTINGS]
    assert {s.attribute: s.kind for s in config.SETTINGS} == {
        name: type(getattr(settings, name)) for name in (field.name for field in fields)
    }
    assert settings.game_ttl_seconds == 100 and settings.expert_budget_ms == 20.0
    assert isinstance(settings.expert_budget_ms, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.game_ttl_seconds = 5  # type: ignore[misc]


def test_the_app_reads_the_same_keys_with_the_same_defaults() -> None:
    values = config.load({}).app_config()
    assert values["MAX_CONTENT_LENGTH"] == 64 * 1024  # MAX_BODY_BYTES, as Flask calls it
    assert "MAX_BODY_BYTES" not in values
    assert "PORT" not in values and "HOST" not in values  # gunicorn's, not the app's
    assert values["REDIS_URL"] == DEFAULT_REDIS_URL
    assert values["COST_BUDGET_SECONDS_PER_ADDRESS"] == 7.0
    assert isinstance(values["STREAM_KEEPALIVE_SECONDS"], float)
    assert isinstance(values["STREAM_LIMIT_PER_ADDRESS"], int)
    assert values["REDIS_MAX_CONNECTIONS"] == 4 + 200 + 16


def test_create_app_keeps_the_settings_it_was_given_with_its_overrides() -> None:
    """The app's settings are typed and in ``app.extensions``; the config create_app is
    given (tests') overrides them by their ``app.config`` keys, and stays in app.config."""
    given = config.load({"SERVER_SECRET": "s" * 40, "CORS_ORIGINS": "https://a.example"})
    app = create_app({"MAX_CONTENT_LENGTH": 100, "GAME_TTL_SECONDS": 60}, settings=given)
    settings = app_settings.of(app)
    assert settings.max_body_bytes == 100 and settings.game_ttl_seconds == 60
    assert settings.cors_origins == "https://a.example"
    assert app.config["MAX_CONTENT_LENGTH"] == 100 and app.config["GAME_TTL_SECONDS"] == 60
    assert settings == given.overridden({"MAX_CONTENT_LENGTH": 100, "GAME_TTL_SECONDS": 60})
    app.extensions["scopa_store"].close()


def test_an_async_view_or_hook_is_refused_when_the_app_is_built() -> None:
    """The app runs its views and hooks as plain functions (service/app.py's ``App``
    skips Flask's per-call coroutine check): the check made once instead finds an
    ``async def`` hook, view or view method, and the app as built has none."""
    app = create_app({"SERVER_SECRET": "s" * 40})
    check_plain(app)  # as create_app did

    async def hook() -> None:
        return None

    app.before_request(hook)
    with pytest.raises(RuntimeError, match="hook"):
        check_plain(app)
    app.before_request_funcs[None].remove(hook)

    class Later(MethodView):
        async def get(self) -> str:
            return ""

    app.add_url_rule("/later", view_func=Later.as_view("later"))
    with pytest.raises(RuntimeError, match="Later.get"):
        check_plain(app)
    app.extensions["scopa_store"].close()


def test_a_default_can_follow_other_settings_and_an_empty_value_is_the_default() -> None:
    settings = config.load({"GUNICORN_THREADS": "2", "STREAMS_PER_WORKER": "10"})
    assert settings.redis_max_connections == 2 + 10 + 16
    assert config.load({"REDIS_MAX_CONNECTIONS": "7"}).redis_max_connections == 7
    assert config.load({"METRICS_PORT": "", "CORS_ORIGINS": ""}) == config.load({})
    assert config.load({"LOG_LEVEL": "debug"}).log_level == "DEBUG"


@pytest.mark.parametrize(("name", "value", "says"), BAD_VALUES)
def test_a_bad_value_is_refused_in_one_line_naming_it(name: str, value: str, says: str) -> None:
    with pytest.raises(config.ConfigError) as refused:
        config.load({name: value})
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"bad setting: {name}")
    assert says in message


def test_every_bad_setting_is_named_at_once_and_no_credential_is_repeated() -> None:
    with pytest.raises(config.ConfigError) as refused:
        config.load(
            {
                "PORT": "abc",
                "BOT_LIMIT_PER_TOKEN": "-3",
                "REDIS_URL": "redis://:hunter2@cache:port/0",
                "SERVER_SECRET": "x" * 40,
            }
        )
    message = str(refused.value)
    assert "PORT='abc'" in message
    assert "BOT_LIMIT_PER_TOKEN='-3'" in message
    assert "REDIS_URL is refused" in message
    assert "hunter2" not in message


def test_create_app_refuses_a_bad_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STREAM_LIMIT_PER_SEAT", "four")
    with pytest.raises(config.ConfigError, match="STREAM_LIMIT_PER_SEAT='four'"):
        create_app({"SERVER_SECRET": "s" * 40})


def _stderr_lines(completed: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in completed.stderr.splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("name", "value"), [("PORT", "abc"), ("RATE_LIMIT_PER_ADDRESS", "-1"), ("LOG_LEVEL", "x")]
)
def test_gunicorn_stops_before_forking_with_one_line(name: str, value: str) -> None:
    """`make run` and the image: the master reads every setting before it forks, and a bad
    one ends it at once (else each worker would fail to boot with a traceback, or, for a
    limit, it would serve with a meaningless one)."""
    env = {
        **os.environ,
        **DEFAULT_ENV,
        "PORT": str(free_port()),
        "REDIS_URL": "redis://127.0.0.1:1/0",
        name: value,
    }
    completed = subprocess.run(
        [GUNICORN, "-c", "deploy/gunicorn.conf.py", APP],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode != 0
    lines = _stderr_lines(completed)
    assert len(lines) == 1, completed.stderr
    assert lines[0].startswith(f"scopa: bad setting: {name}='{value}' is refused: it takes")
    assert "Traceback" not in completed.stderr + completed.stdout


def test_the_background_worker_stops_with_one_line() -> None:
    env = {**os.environ, "EXPERT_BUDGET_MS": "-5", "REDIS_URL": "redis://127.0.0.1:1/0"}
    completed = subprocess.run(
        [sys.executable, "-m", "service.worker", "--burst"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 2
    assert _stderr_lines(completed) == [
        "python -m service.worker: bad setting: EXPERT_BUDGET_MS='-5' is refused: "
        "it takes a number above 0"
    ]


def test_the_settings_module_imports_nothing_of_the_service() -> None:
    """gunicorn.conf.py imports it in the master, before anything else of the service:
    nothing but the settings' declarations."""
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, service.config; "
            "print(sorted(m for m in sys.modules if m.startswith('service')))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    imported = ast.literal_eval(completed.stdout)
    assert "service.config" in imported
    assert set(imported) - {"service", "service.config", "service.settings"} == {
        f"service.settings.{path.stem}"
        for path in (ROOT / "service" / "settings").glob("*.py")
        if path.stem != "__init__"
    }


def test_the_guide_is_where_the_makefile_writes_it() -> None:
    assert "-m service.config docs/configuration.md" in (ROOT / "Makefile").read_text()
    assert Path(GUIDE).is_file()


def test_every_variable_the_deployments_set_is_declared_and_accepted() -> None:
    """The image, compose and the Kubernetes manifests set only declared settings (the
    guide lists each), with values the service takes."""
    image = dockerfile_stages()[-1]
    image_env = dict(
        re.findall(r"(\w+)=(\S+)", " ".join(args for word, args in image if word == "ENV"))
    )
    (config_map,) = [d for d in k8s_documents() if d["kind"] == "ConfigMap"]
    pod_env = {
        item["name"]: item.get("value")
        for deployment in deployments().values()
        for container in deployment["spec"]["template"]["spec"]["containers"]
        for item in container.get("env", [])
    }
    compose = yaml.safe_load((ROOT / "deploy" / "docker-compose.yml").read_text())
    compose_env = {
        name: value
        for service in ("api", "worker")
        for name, value in compose["services"][service].get("environment", {}).items()
    }
    sources = {"image": image_env, "ConfigMap": config_map["data"], "pods": pod_env}
    sources["compose"] = compose_env
    interpreter = {"PATH", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED"}
    declared = {setting.name for setting in config.SETTINGS}
    checked = set()
    for where, env in sources.items():
        assert set(env) - interpreter - declared == set(), where
        literal = {
            name: str(value)
            for name, value in env.items()
            if name in declared and value is not None and "$" not in str(value)
        }
        config.load(literal)  # raises ConfigError if one is refused
        checked |= set(literal)
    assert {"HOST", "PORT", "METRICS_PORT", "WEB_CONCURRENCY", "LOG_LEVEL"} <= checked
