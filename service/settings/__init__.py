"""The settings' declarations, one module a section of docs/configuration.md: each a
frozen dataclass of :func:`~service.settings.declaring.setting` fields, one line a
setting, whose docstring says what they mean; :class:`service.config.Settings` puts them
together."""
