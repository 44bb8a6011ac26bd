"""Computer players. Each decides from a seat's :class:`~service.engine.knowledge.Knowledge`
alone, never from the hidden state: see :func:`service.engine.views.knowledge_of`."""

from __future__ import annotations

from .base import BOT_LEVELS, Bot, make_bot
from .expert import DEFAULT_BUDGET_MS

__all__ = ["BOT_LEVELS", "DEFAULT_BUDGET_MS", "Bot", "make_bot"]
