"""Settings, read from the environment (with defaults for a developer's machine) into one
frozen, typed :class:`Settings`: one attribute a setting (``settings.game_ttl_seconds``,
an ``int``).

Each setting is declared once, as a field of its section's dataclass (service/settings/,
a module a section of docs/configuration.md): its attribute (the variable's name in
lower case) and its type; in :func:`~service.settings.declaring.setting`, its default
and its range or choices; and, in its section's docstring, what it means. From that one
declaration:

- :func:`load` parses the environment (every setting, by its variable's name) into a
  :class:`Settings`, and refuses a bad value with a :class:`ConfigError` whose one-line
  message names the variable and what it takes. Each process calls it once and passes
  the object down: gunicorn.conf.py in gunicorn's master, ``create_app`` in each worker
  (which keeps it in ``app.extensions``: :func:`service.api.settings.settings`), and the
  background worker (``python -m service.worker``);
- :meth:`Settings.app_config` is what the app also keeps in ``app.config``, by key
  (Flask reads ``MAX_CONTENT_LENGTH`` there);
- :func:`markdown` writes ``docs/configuration.md`` (``make docs``; a test fails when
  the checked-in file differs).

An empty value is the same as no value: the default. Parsing and validation are
marshmallow's (fields and validators); this module and service/settings/ import nothing
of the service but, when a value is checked, the one reading of it in service.play (a
Redis URL's, a webhook retry schedule's, webhook hosts').

Why a dataclass of our own, not environs or pydantic-settings: the declarations already
were marshmallow fields and validators, and the guide is drawn from them. environs (on
marshmallow) would replace only the loop that reads variables by name (a dozen lines),
adds python-dotenv, and has no typed object and no place for a setting's meaning,
section or documented default: the declarations would stay ours, beside it.
pydantic-settings would give a typed, frozen ``BaseSettings``, but would replace
marshmallow's fields and validators with pydantic's (a second validation library beside
the API's marshmallow), adds pydantic, pydantic-core, typing-inspection and
python-dotenv to every process (gunicorn's master imports this module), and its
refusals would be rewritten from pydantic's errors to keep their one line. A frozen
dataclass whose fields carry the declarations gives the same typed attributes (mypy
checks them) with no new dependency.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import marshmallow as ma

from .settings.bots import Bots
from .settings.clients import MIN_SECRET_LENGTH, Clients
from .settings.declaring import Setting, declared, title
from .settings.limits import Limits
from .settings.listening import Listening
from .settings.operations import Operations
from .settings.storage import Storage
from .settings.streams import Streams
from .settings.webhooks import Webhooks


class ConfigError(RuntimeError):
    """A setting with a value the service cannot run with; the message, one line, names
    the variable and what it takes."""


#: The sections, in the guide's order.
SECTIONS = (Listening, Storage, Clients, Limits, Bots, Streams, Webhooks, Operations)


@dataclass(frozen=True)
class Settings(Operations, Webhooks, Streams, Bots, Limits, Clients, Storage, Listening):
    """Every setting, one typed attribute each (made by :func:`load`)."""

    def app_config(self) -> dict[str, Any]:
        """The settings the app also keeps in ``app.config``, by their keys there."""
        return {
            setting.config_key: getattr(self, setting.attribute)
            for setting in SETTINGS
            if setting.config_key is not None
        }

    def overridden(self, config: Mapping[str, Any]) -> Settings:
        """These settings with the values ``config`` gives by ``app.config`` key (the
        config ``create_app`` is given: tests'), taken as given."""
        changes = {
            setting.attribute: config[setting.config_key]
            for setting in SETTINGS
            if setting.config_key is not None and setting.config_key in config
        }
        return dataclasses.replace(self, **changes)


GROUPS: tuple[str, ...] = tuple(title(section) for section in SECTIONS)
SETTINGS: tuple[Setting, ...] = tuple(
    setting for section in SECTIONS for setting in declared(section)
)
_SCHEMA = ma.Schema.from_dict(
    {setting.name: setting.field() for setting in SETTINGS}, name="Settings"
)


def load(environ: Mapping[str, str] | None = None) -> Settings:
    """Every setting, from ``environ`` (default: the process's environment); ConfigError
    (one line naming each bad variable and what it takes) if a value is not one it
    takes."""
    env = os.environ if environ is None else environ
    given = {s.name: env[s.name] for s in SETTINGS if env.get(s.name, "") != ""}
    as_read = {
        s.name: given[s.name].upper() if s.any_case else given[s.name]
        for s in SETTINGS
        if s.name in given
    }
    try:
        loaded = _SCHEMA(unknown=ma.EXCLUDE).load(as_read)
    except ma.ValidationError as error:
        raise ConfigError(_refusal(error.messages_dict, given)) from None
    values = {s.name: loaded.get(s.name, s.default) for s in SETTINGS}
    for setting in SETTINGS:  # the defaults that depend on other values, once all are read
        if setting.follows is not None and setting.name not in loaded:
            values[setting.name] = setting.follows(values)
    return Settings(**{s.attribute: values[s.name] for s in SETTINGS})


def _refusal(messages: Mapping[str, Any], given: Mapping[str, str]) -> str:
    problems = []
    for setting in SETTINGS:
        if setting.name not in messages:
            continue
        value = "" if setting.secret else f"={given[setting.name]!r}"
        if setting.check is None:  # a type, a range or a choice: what it takes says it
            problems.append(f"{setting.name}{value} is refused: it takes {setting.accepts()}")
        else:  # the check's own message (a Redis URL's says which forms there are)
            said = messages[setting.name]
            reason = " ".join(said) if isinstance(said, list) else str(said)
            problems.append(f"{setting.name}{value} is refused: {reason}")
    return "bad setting: " + "; ".join(problems)


def check(settings: Settings) -> None:
    """What the app's settings must be together to serve (ConfigError if not): a
    server secret, a wait for replicas that fits in a Redis call, and a GRIP proxy's key
    with its publish endpoints."""
    if len(settings.server_secret) < MIN_SECRET_LENGTH:
        raise ConfigError(
            f"SERVER_SECRET must be set to a random string of at least {MIN_SECRET_LENGTH} "
            "characters, the same on every instance: make one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    if (
        settings.redis_min_replicas
        and settings.redis_replica_timeout_seconds >= settings.redis_timeout_seconds
    ):
        raise ConfigError(
            "REDIS_REPLICA_TIMEOUT_SECONDS must be shorter than REDIS_TIMEOUT_SECONDS: the "
            "wait for replicas is a Redis call, which gives up after REDIS_TIMEOUT_SECONDS"
        )
    if bool(settings.grip_key) != bool(settings.grip_publish_urls):
        raise ConfigError(
            "GRIP_KEY and GRIP_PUBLISH_URLS go together: a GRIP proxy holds streams only if "
            "the service knows both the key it signs with and where to publish to it"
        )


def markdown() -> str:
    """docs/configuration.md: every setting, by topic (``make docs`` writes it)."""
    lines = [
        "# Configuration",
        "",
        "<!-- Generated from service/config.py by `make docs`: edit that, not this. -->",
        "",
        "The service is configured by environment variables only, the same for gunicorn",
        "(`make run`, the image), the app and the background workers",
        "(`python -m service.worker`). An empty variable is the same as an unset one.",
        "A value the service cannot take (`PORT=abc`, a negative limit, a `REDIS_URL` of",
        "no known form) stops it at start with one line naming the variable and what it",
        "takes.",
    ]
    for group in GROUPS:
        lines += ["", f"## {group}"]
        for setting in SETTINGS:
            if setting.group != group:
                continue
            meaning = setting.meaning[0].upper() + setting.meaning[1:]
            plain_text = setting.kind is str and not setting.choices
            takes = "" if plain_text else f" Takes {setting.accepts()}."
            lines += [
                "",
                f"### `{setting.name}`",
                "",
                f"{meaning}.{takes}",
                "",
                f"Default: {setting.documented_default()}.",
            ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    # `python -m service.config docs/configuration.md` (`make docs`) writes the guide; with
    # no argument, it prints it.
    import sys
    from pathlib import Path

    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(markdown())
    else:
        print(markdown(), end="")
