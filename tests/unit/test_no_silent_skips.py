"""Under CI a skip that is not allow-listed fails the run (tests/conftest.py); elsewhere a skip
stays a skip."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = (Path(__file__).resolve().parents[1] / "conftest.py").read_text(encoding="utf-8")
TESTS = """
import pytest

def test_skips_in_its_body():
    pytest.skip("no tool here")

@pytest.mark.skip(reason="by marker")
def test_skips_by_marker():
    pass

def test_passes():
    pass
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_demo=TESTS)
    return pytester


def test_under_ci_every_skip_fails_the_run(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    result = suite.runpytest_inprocess("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1, errors=1)
    result.stdout.fnmatch_lines(["*test_skips_in_its_body skipped under CI (Skipped: no tool here)*"])


def test_an_allow_listed_skip_stays_a_skip_under_ci(suite: pytest.Pytester,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    suite.makeconftest(CONFTEST.replace(
        "CI_SKIP_ALLOW_LIST: dict[str, str] = {}",
        'CI_SKIP_ALLOW_LIST: dict[str, str] = {"test_demo.py::test_skips": "a documented reason"}'))
    result = suite.runpytest_inprocess("-p", "no:randomly")
    result.assert_outcomes(passed=1, skipped=2)


def test_outside_ci_a_skip_is_a_skip(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    result = suite.runpytest_inprocess("-p", "no:randomly")
    result.assert_outcomes(passed=1, skipped=2)
