"""Liveness and readiness probes."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask.views import MethodView

from ...blueprint import Blueprint
from ...breaker import readiness
from ...responses import ResponseSchema

blp = Blueprint("health", __name__, description="Probes for load balancers and orchestrators.")


class HealthStatusSchema(ResponseSchema):
    status = ma.fields.String(metadata={"description": "`ok` or `ready`."})


@blp.route("/healthz")
class Health(MethodView):
    @blp.response(200, HealthStatusSchema)
    @blp.documents("getHealth", {}, limited=False)
    def get(self) -> Any:
        """The process is up

        Liveness: answers 200 while the process serves requests; it does not ask the
        game store (that is `/readyz`)."""
        return {"status": "ok"}


@blp.route("/readyz")
class Ready(MethodView):
    @blp.response(200, HealthStatusSchema)
    @blp.documents("getReadiness", {503: "The game store is unreachable."}, limited=False)
    def get(self) -> Any:
        """The service can reach its game store

        Readiness: 200 when the game store answers a ping in time, else 503 (and a load
        balancer should send no traffic here until it is ready again)."""
        # A PING on a client of its own, bounded by REDIS_READY_TIMEOUT_SECONDS and
        # never retried, so a hung Redis is told within a load balancer's probe; its
        # answer also closes or opens the worker's circuit breaker (see breaker.py).
        readiness().check()
        return {"status": "ready"}
