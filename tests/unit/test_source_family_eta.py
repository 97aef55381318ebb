"""The source-family ETA's rule (domain/eta.py): each remaining family's p10/p90 from its
recent runs less what it has run, withheld while one has fewer than 3 runs."""

from __future__ import annotations

from jobctrl.domain.eta import source_family_estimate


def test_three_runs_of_each_family_left_give_a_range_less_what_runs_now():
    """Low is a family's fast runs (p10), not its median: bench/source_eta.py found p50
    missing the days a source answers faster."""
    history = {"greenhouse": [10.0, 20.0, 30.0], "lever": [5.0, 5.0, 6.0, 100.0]}
    eta = source_family_estimate([("greenhouse", 12.0), ("lever", 0.0)], history, "fresh")
    assert eta["state"] == "available" and eta["reason"] is None
    # greenhouse: p10 10 (already past), p90 30, 12 s run already; lever: p10 5, p90 100
    assert (eta["low"], eta["high"]) == (0.0 + 5.0, 18.0 + 100.0)
    assert eta["families"]["greenhouse"] == {
        "runs": 3, "elapsed": 12.0, "p10": 10.0, "p50": 20.0, "p90": 30.0,
    }  # fmt: skip


def test_a_family_without_three_recent_runs_withholds_the_number():
    eta = source_family_estimate([("ashby", 0.0)], {"ashby": [3.0, 4.0]}, "fresh")
    assert (eta["state"], eta["reason"], eta["low"], eta["high"]) == (
        "calibrating", "calibrating", None, None,
    )  # fmt: skip
    assert eta["detail"] == "ashby has 2 of 3 recent runs"


def test_no_fresh_worker_report_no_number_and_a_family_past_its_p90_adds_nothing():
    history = {"greenhouse": [10.0, 10.0, 10.0]}
    assert source_family_estimate([("greenhouse", 0.0)], history, "stale")["reason"] == (
        "runtime_stale"
    )
    late = source_family_estimate([("greenhouse", 50.0)], history, "fresh")
    assert (late["low"], late["high"]) == (0.0, 0.0)


def test_the_families_left_say_how_many_jobs_they_should_still_bring():
    history = {"greenhouse": [10.0, 10.0, 10.0], "lever": [5.0, 5.0, 5.0]}
    yields = {"greenhouse": [4, 6, 5], "lever": [2, 2, 9]}
    eta = source_family_estimate([("greenhouse", 1.0), ("lever", 0.0)], history, "fresh", yields)
    assert eta["members"] == 5 + 2  # each family's median
    assert eta["families"]["lever"]["members"] == 2
    assert source_family_estimate([("lever", 0.0)], {}, "fresh", yields)["members"] is None
