"""The command path: every change to a game (and to a key's webhooks) is a command, run
by one function, :func:`.runner.run`, under the policy its operation declares
(:mod:`.catalogue`). The HTTP layer turns requests into commands
(service/api/commands.py); the background workers run theirs the same way
(service/play/background.py)."""

from .catalogue import COMMANDS, JOBS, POLICIES
from .context import Caller, Context, Gate, Outcome, Reply, WebhookRules
from .policy import COMPUTER_SEATS_RESERVE, Keeping, Policy, Scope, Who
from .runner import Command, run, spend

__all__ = [
    "COMMANDS",
    "COMPUTER_SEATS_RESERVE",
    "JOBS",
    "POLICIES",
    "Caller",
    "Command",
    "Context",
    "Gate",
    "Keeping",
    "Outcome",
    "Policy",
    "Reply",
    "Scope",
    "WebhookRules",
    "Who",
    "run",
    "spend",
]
