"""The settings' declarations, one module a section of docs/configuration.md: each a
frozen dataclass of :func:`~service.settings.declaring.setting` fields, which
:class:`service.config.Settings` puts together."""
