"""The parallel run's set-up (tests/conftest.py): each xdist worker's own database of a
TEST_REDIS_URL, the groups of the tests that must not share the machine, and the check
that stops a run that would mix a group or leave tests out."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.conftest import group_of, pytest_xdist_node_collection_finished, worker_database


def test_each_worker_has_a_database_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    assert worker_database("redis://cache:6380/2") == "redis://cache:6380/2"
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    assert worker_database("redis://:pw@cache:6380/2") == "redis://:pw@cache:6380/5"
    assert worker_database("rediss://cache") == "rediss://cache/3"
    with pytest.raises(pytest.UsageError, match="TEST_WORKERS=0"):
        worker_database("unix:///run/redis.sock?db=1")


def test_groups_by_module_or_by_test() -> None:
    assert group_of("tests/test_browser.py::test_a_whole_match_against_the_computer") == "browser"
    assert group_of("tests/test_faults.py::test_x[1-2]") == "timing"
    huge = "tests/test_api_move_analysis.py::TestAnalyse::"
    huge += "test_the_deadline_holds_on_a_huge_position"
    assert group_of(huge) == "timing"
    assert group_of("tests/test_api_move_analysis.py::TestAnalyse::test_other") is None
    assert group_of("tests/test_rules.py::test_a_rule") is None


def scheduler(dist: str) -> SimpleNamespace:
    return SimpleNamespace(config=SimpleNamespace(option=SimpleNamespace(dist=dist)))


def test_a_run_that_would_mix_a_group_or_drop_a_test_stops() -> None:
    grouped = "tests/test_hung_redis.py::test_a"
    fine = [f"{grouped}@timing", "tests/test_rules.py::test_b", "tests/test_fuzz.py::t[GET /x]"]
    assert pytest_xdist_node_collection_finished(scheduler("loadgroup"), fine) is None
    for ids in (
        [grouped, "tests/test_rules.py::test_b"],  # the group's suffix missing
        ["tests/test_fuzz.py::t", "tests/test_fuzz.py::t"],  # one id for two tests
    ):
        with pytest.raises(pytest.exit.Exception, match="would not run the suite as grouped"):
            pytest_xdist_node_collection_finished(scheduler("loadgroup"), ids)
    # Other schedulers give tests by index, not id, and know no groups.
    assert pytest_xdist_node_collection_finished(scheduler("load"), [grouped, grouped]) is None
