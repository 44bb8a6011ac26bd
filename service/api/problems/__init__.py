"""RFC 9457 problem details: every 4xx and 5xx the service sends, and their documentation.

The catalogue (:mod:`.catalogue`) has one row per problem type (:mod:`.problem_type`):
its status, title, when it happens, the members and headers it adds, and the errors of
the engine, the play layer and the store that are it. Views raise :class:`Problem`, or
let such an error through (:func:`problem_of` finds its row); flask-smorest's public hook
``handle_http_exception`` answers HTTP errors (routing, sizes, bad bodies) the same way
(:class:`ProblemApi`). The spec (:mod:`.spec`) and docs/api.md's table of problem types
(:mod:`.docs`, ``make docs``) are written from the rows. No answer ever holds a stack
trace or a hidden card.
"""

from .api import ProblemApi
from .catalogue import CATALOGUE, ROWS, etag, row
from .problem import PROBLEM_JSON, Problem, problem_of, problem_of_http_error, rate_limited
from .problem_type import ProblemRow, ProblemType, Said
from .spec import PROBLEM_TYPE, STORE_ERRORS, ProblemSchema, error_responses

__all__ = [
    "CATALOGUE",
    "PROBLEM_JSON",
    "PROBLEM_TYPE",
    "ROWS",
    "STORE_ERRORS",
    "Problem",
    "ProblemApi",
    "ProblemRow",
    "ProblemSchema",
    "ProblemType",
    "Said",
    "error_responses",
    "etag",
    "problem_of",
    "problem_of_http_error",
    "rate_limited",
    "row",
]
