"""The staleness rule (domain.staleness): derived from the versions a job's score and its
materials in use were made with, never a flag."""

from __future__ import annotations

from jobctrl.domain.staleness import (
    UNRECORDED,
    MaterialRow,
    MaterialsInUse,
    is_stale,
    materials_in_use,
    regenerates_materials,
)


def row(kind: str, generation: int, state: str, version: int | None) -> MaterialRow:
    return MaterialRow(kind, generation, state, version)


def test_a_score_made_with_another_version_is_stale_older_or_newer():
    assert is_stale(2, 1, None)
    assert is_stale(1, 2, None), "a profile changed back makes the in-between scores stale"
    assert not is_stale(2, 2, None)


def test_an_unknown_version_is_never_stale_and_an_unrecorded_profile_makes_every_one_stale():
    assert not is_stale(2, None, None), "scored before versions were recorded"
    assert not is_stale(None, 1, None), "config.yaml cannot be read: nothing is stale"
    assert is_stale(UNRECORDED, 3, None)


def test_the_materials_in_use_are_the_approved_generation_else_the_newest_draft():
    rows = [
        row("resume", 1, "approved", 1),
        row("resume", 2, "draft", 2),
        row("cover", 1, "superseded", 1),
        row("cover", 2, "draft", 3),
    ]
    assert materials_in_use(rows) == MaterialsInUse(version=1, approved=True)
    drafts = [row("resume", 1, "draft", 1), row("resume", 2, "draft", 2)]
    assert materials_in_use(drafts) == MaterialsInUse(version=2, approved=False)
    assert materials_in_use([row("resume", 1, "rejected", 1)]) is None
    assert materials_in_use([]) is None


def test_unapproved_materials_for_another_version_are_stale_and_written_again():
    drafts = materials_in_use([row("resume", 1, "draft", 1), row("cover", 1, "draft", 1)])
    assert is_stale(2, 2, drafts), "the score is current, the drafts are not"
    assert regenerates_materials(2, drafts)
    assert not regenerates_materials(1, drafts)


def test_approved_materials_never_make_a_job_stale_nor_are_written_again():
    approved = materials_in_use([row("resume", 1, "approved", 1), row("cover", 1, "draft", 1)])
    assert approved is not None and approved.approved
    assert not is_stale(2, 2, approved)
    assert not regenerates_materials(2, approved)


def test_a_job_its_score_skipped_keeps_its_old_drafts_without_being_stale():
    drafts = materials_in_use([row("resume", 1, "draft", 1)])
    assert not is_stale(2, 2, drafts, skipped=True)
    assert is_stale(2, 1, drafts, skipped=True), "its score is still another version's"
