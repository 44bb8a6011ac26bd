"""Webhooks: the events of a service key's games POSTed to its endpoints, signed
(Standard Webhooks), in order per game, retried, by the webhook workers
(``python -m service.worker --only-webhooks``).

- :mod:`.addresses`: where a webhook may go (https, public addresses: SSRF);
- :mod:`.events`: a game's log as webhook messages (no card in any);
- :mod:`.store`: the endpoints, deliveries and queues in Redis (the keys, one slot a key);
- :mod:`.sending`: one signed attempt;
- :mod:`.queueing`: the settings, and the job queued after a commit;
- :mod:`.recording`: a game's log recorded as deliveries, and a key's run woken;
- :mod:`.schedule`: each key's deliveries made one at a time, by its run;
- :mod:`.deletion`: a deleted game's deliveries finished, then swept;
- :mod:`.jobs`: the jobs that dispatch and deliver.
"""
