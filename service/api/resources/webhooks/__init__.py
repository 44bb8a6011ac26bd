"""/v1/webhooks: a service key's webhook endpoints and their deliveries."""

from .routes import blp

__all__ = ["blp"]
