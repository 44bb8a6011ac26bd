"""A service key's tournaments as stored and moved on: what one is (:mod:`.model`), how
it moves from round to round (:mod:`.progress`, pure), and where it is kept
(:mod:`.store`). The pairing and the standings are :mod:`service.tournaments`'; the
commands that change a tournament, service/play/commands/tournaments.py."""
