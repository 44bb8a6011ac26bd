"""Webhooks delivered apart (docs/platforms.md, "Webhooks"): one attempt has one deadline
for its whole exchange, however slowly a receiver answers; a slow or hostile receiver
holds neither a turn clock nor another key's deliveries; a redelivery asked for many
times at once is made once."""

from __future__ import annotations

import threading
import time

from service.play.webhooks.sending import TIMEOUT_SECONDS, Attempt, send
from tests.slow_receivers import BODY_LATER, WHOLE_ANSWER, slow_receiver

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def test_an_attempt_has_one_deadline_however_slowly_the_receiver_answers() -> None:
    """Receivers that send a byte every second (each read well within any per-read
    timeout): the status line and headers trickled, or the body after prompt headers.
    Each attempt ends at the deadline, 10 s after it started, as a failure, not when the
    receiver is done (25 s)."""
    found: dict[str, tuple[Attempt, float]] = {}

    def attempt(name: str, url: str) -> None:
        started = time.monotonic()
        sent = send(url, SECRET, "msg_1", "{}", allow={"127.0.0.1"})
        found[name] = (sent, time.monotonic() - started)

    with (
        slow_receiver(trickle=WHOLE_ANSWER) as headers,
        slow_receiver(first=BODY_LATER, trickle=b"x" * 64) as body,
    ):
        threads = [
            threading.Thread(target=attempt, args=("headers", headers.url())),
            threading.Thread(target=attempt, args=("body", body.url())),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(40)
        assert headers.requests == body.requests == 1
    assert TIMEOUT_SECONDS == 10
    for name, (sent, took) in found.items():
        assert TIMEOUT_SECONDS - 0.5 <= took <= TIMEOUT_SECONDS + 1.5, (name, took)
        assert not sent.delivered, name
        assert sent.error == "no whole answer within 10 s", (name, sent)
    assert found["body"][0].status == 200  # the headers came, the answer did not, in time
