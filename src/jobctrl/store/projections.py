"""Read models folded from ``job_events`` only.

Each fold reads the events after the watermark in sequence order, applies them to the
projection tables and advances the watermark in the same transaction, so every event is
applied exactly once. ``rebuild`` truncates the projections and the watermark and folds
the whole log again; the result equals the incrementally folded rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from jobctrl.store import schema
from jobctrl.store.store import upsert

WATERMARK = "jobs"
PROJECTION_TABLES = (
    schema.job_list_projections,
    schema.job_detail_projections,
    schema.workflow_run_projections,
    schema.pipeline_step_projections,
)

Event = dict[str, Any]


def _watermark(conn: Connection) -> int:
    pos = conn.execute(
        select(schema.projection_watermarks.c.position).where(
            schema.projection_watermarks.c.name == WATERMARK
        )
    ).scalar()
    return int(pos or 0)


def fold_pending(
    conn: Connection, batch: int = 1000, *, appended: list[Event] | None = None
) -> int:
    """Fold every event after the watermark; returns how many were applied.

    ``appended`` are the events the current transaction wrote: when they are exactly the
    ones after the watermark (the usual case) they are folded without reading them back.
    """
    applied = 0
    position = _watermark(conn)
    fast = appended if appended and appended[0]["seq"] == position + 1 else None
    if fast and [e["seq"] for e in fast] != list(range(position + 1, position + 1 + len(fast))):
        fast = None
    if fast and conn.dialect.name == "sqlite":  # SQLite hands timestamps back without a zone
        fast = [{**e, "occurred_at": e["occurred_at"].replace(tzinfo=None)} for e in fast]
    while True:
        if fast is not None:
            events, fast = fast, []
        else:
            rows = conn.execute(
                select(schema.job_events)
                .where(schema.job_events.c.seq > position)
                .order_by(schema.job_events.c.seq)
                .limit(batch)
            ).mappings()
            events = [dict(r) for r in rows]
        if not events:
            break
        fold = _Fold(conn)
        for event in events:
            handler = HANDLERS.get(event["type"])
            if handler is not None:
                handler(fold, event, event["payload"])
        fold.flush()
        position = events[-1]["seq"]
        applied += len(events)
    if applied:
        upsert(
            conn,
            schema.projection_watermarks,
            {"name": WATERMARK, "position": position},
            keys=["name"],
            update=["position"],
        )
    return applied


def rebuild(conn: Connection) -> int:
    """Drop every projection row and the watermark, then fold the whole log again."""
    for table in PROJECTION_TABLES:
        conn.execute(delete(table))
    conn.execute(
        delete(schema.projection_watermarks).where(schema.projection_watermarks.c.name == WATERMARK)
    )
    return fold_pending(conn)


# -- job projections ---------------------------------------------------------------------


class _Fold:
    """One batch of events: job documents are read once, changed in memory, written once."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.docs: dict[str, dict[str, Any] | None] = {}
        self.dirty: dict[str, Event] = {}

    def doc(self, job_id: str) -> dict[str, Any] | None:
        if job_id not in self.docs:
            found = self.conn.execute(
                select(schema.job_detail_projections.c.doc).where(
                    schema.job_detail_projections.c.job_id == job_id
                )
            ).scalar()
            self.docs[job_id] = dict(found) if found is not None else None
        return self.docs[job_id]

    def touch(self, doc: dict[str, Any], event: Event) -> None:
        self.docs[doc["jobId"]] = doc
        doc["updatedAt"] = _iso(event)
        doc["lastEventSeq"] = event["seq"]
        self.dirty[doc["jobId"]] = event

    def flush(self) -> None:
        for job_id, event in self.dirty.items():
            doc = self.docs[job_id]
            assert doc is not None
            _save_job(self.conn, doc, event)
        self.dirty.clear()


def _status(stages: dict[str, dict[str, Any]]) -> tuple[str, str, str | None]:
    """(status, current stage, error code) of a job from its stage states."""
    order = ["enrich", "score", "tailor", "cover", "pdf", "apply"]
    known = [s for s in order if s in stages]
    for name in known:
        st = stages[name]
        if st["state"] == "failed":
            return "failed", name, st.get("errorCode")
        if st["state"] == "running":
            return "running", name, None
        if st["state"] == "pending":
            return "pending", name, None
        if st["state"] == "skipped":
            return "skipped", name, st.get("errorCode")
    if known and all(stages[s]["state"] == "succeeded" for s in known):
        return "prepared", known[-1], None
    return "pending", known[0] if known else "enrich", None


def _save_job(conn: Connection, doc: dict[str, Any], event: Event) -> None:
    seq = event["seq"]
    status, current, error_code = _status(doc["stages"])
    posting = doc.get("posting") or doc.get("listed") or {}
    score = doc.get("score") or {}
    values = {
        "job_id": doc["jobId"],
        "url": doc["url"],
        "title": posting.get("title"),
        "company": posting.get("company"),
        "location": posting.get("location"),
        "remote": posting.get("remote"),
        "score": score.get("score"),
        "verdict": score.get("verdict"),
        "status": status,
        "current_stage": current,
        "error_code": error_code,
        "created_at": _at(doc["createdAt"]),
        "updated_at": event["occurred_at"],
        "last_seq": seq,
    }
    upsert(
        conn,
        schema.job_list_projections,
        values,
        keys=["job_id"],
        update=[k for k in values if k not in ("job_id", "created_at")],
    )
    upsert(
        conn,
        schema.job_detail_projections,
        {"job_id": doc["jobId"], "doc": doc, "last_seq": seq},
        keys=["job_id"],
        update=["doc", "last_seq"],
    )


def _iso(event: Event) -> str:
    return event["occurred_at"].isoformat()


def _at(value: str):  # type: ignore[no-untyped-def]
    from datetime import datetime

    return datetime.fromisoformat(value)


def _on_job_created(fold: _Fold, e: Event, p: dict[str, Any]) -> None:
    if fold.doc(p["jobId"]) is not None:
        return
    doc = {
        "jobId": p["jobId"],
        "url": p["url"],
        "canonicalUrl": p["canonicalUrl"],
        "idempotencyKey": p["idempotencyKey"],
        "source": p["source"],
        "createdAt": _iso(e),
        "posting": None,
        "score": None,
        "stages": {"enrich": {"state": "pending", "attempts": 0}},
        "workflows": [],
    }
    fold.touch(doc, e)


def _job_event(mutate: Callable[[dict[str, Any], dict[str, Any]], None]):  # type: ignore[no-untyped-def]
    def handler(fold: _Fold, e: Event, p: dict[str, Any]) -> None:
        doc = fold.doc(p["jobId"])
        if doc is None:  # an event for a job whose creation was never recorded
            return
        mutate(doc, p)
        fold.touch(doc, e)

    return handler


def _stage(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return doc["stages"].setdefault(name, {"state": "pending", "attempts": 0})


def _stage_started(doc: dict[str, Any], p: dict[str, Any]) -> None:
    st = _stage(doc, p["stage"])
    st.update(state="running", attempts=p["attempt"], runId=p["runId"], errorCode=None)


def _stage_succeeded(doc: dict[str, Any], p: dict[str, Any]) -> None:
    st = _stage(doc, p["stage"])
    st.update(state="succeeded", attempts=p["attempt"], runId=p["runId"], errorCode=None)


def _stage_failed(doc: dict[str, Any], p: dict[str, Any]) -> None:
    st = _stage(doc, p["stage"])
    st.update(
        state="failed",
        attempts=p["attempt"] if p.get("attemptsUsed") is None else p["attemptsUsed"],
        runId=p["runId"],
        errorCode=p["errorCode"],
        retryable=p["retryable"],
    )


def _stage_reset(doc: dict[str, Any], p: dict[str, Any]) -> None:
    _stage(doc, p["stage"]).update(state="pending", errorCode=None)


def _stage_skipped(doc: dict[str, Any], p: dict[str, Any]) -> None:
    _stage(doc, p["stage"]).update(state="skipped", errorCode=p["reason"])


def _enriched(doc: dict[str, Any], p: dict[str, Any]) -> None:
    doc["posting"] = {
        "title": p.get("title"),
        "company": p.get("company"),
        "location": p.get("location"),
        "remote": p.get("remote"),
        "salary": {
            "min": p.get("salaryMin"),
            "max": p.get("salaryMax"),
            "currency": p.get("salaryCurrency"),
            "period": p.get("salaryPeriod"),
        },
        "applyUrl": p.get("applyUrl"),
        "datePosted": p.get("datePosted"),
        "validThrough": p.get("validThrough"),
        "method": p.get("method"),
        "rawArtifact": p.get("rawArtifact"),
        "textArtifact": p.get("textArtifact"),
    }
    _stage(doc, "score")


def _scored(doc: dict[str, Any], p: dict[str, Any]) -> None:
    doc["score"] = {
        k: p[k]
        for k in (
            "score",
            "verdict",
            "provider",
            "model",
            "requirementsTotal",
            "requirementsMatched",
            "reportArtifact",
        )
    }


def _discovered(doc: dict[str, Any], p: dict[str, Any]) -> None:
    sources = doc.setdefault("sources", [])
    key = {"kind": p["sourceKind"], "name": p["sourceName"]}
    if key not in sources:
        sources.append(key)
    if doc.get("listed") is None:  # what the board said, shown until Enrich reads the page
        doc["listed"] = {k: p.get(k) for k in ("title", "company", "location")}


def _report_written(doc: dict[str, Any], p: dict[str, Any]) -> None:
    doc["report"] = {"number": p["number"], "path": p["path"]}


def _workflow_ref(doc: dict[str, Any], p: dict[str, Any]) -> None:
    refs = doc.setdefault("workflows", [])
    if not any(r["runId"] == p["runId"] for r in refs):
        refs.append({"workflowId": p["workflowId"], "runId": p["runId"]})


def _availability_checked(doc: dict[str, Any], p: dict[str, Any]) -> None:
    doc["availability"] = {
        "state": p["availability"],
        "previous": p.get("previous"),
        "code": p.get("code"),
        "failures": p.get("failures", 0),
        "checkedAt": p.get("checkedAt"),
        "nextCheckAt": p.get("nextCheckAt"),
    }


# -- workflow run projection ---------------------------------------------------------------


def _on_workflow_started(fold: _Fold, e: Event, p: dict[str, Any]) -> None:
    upsert(
        fold.conn,
        schema.workflow_run_projections,
        {
            "workflow_id": p["workflowId"],
            "run_id": p["runId"],
            "workflow_type": p["workflowType"],
            "job_id": p.get("jobId"),
            "status": "running",
            "started_at": e["occurred_at"],
            "last_seq": e["seq"],
        },
        keys=["workflow_id", "run_id"],
    )
    if p.get("jobId"):
        _job_event(_workflow_ref)(fold, e, p)


def _close_workflow(status: str):  # type: ignore[no-untyped-def]
    def handler(fold: _Fold, e: Event, p: dict[str, Any]) -> None:
        wr = schema.workflow_run_projections
        fold.conn.execute(
            update(wr)
            .where(wr.c.workflow_id == p["workflowId"], wr.c.run_id == p["runId"])
            .where(wr.c.status == "running")
            .values(
                status=status,
                outcome=p.get("outcome"),
                error_code=p.get("errorCode"),
                closed_at=e["occurred_at"],
                last_seq=e["seq"],
            )
        )

    return handler


_STEP_TERMINAL = {"completed", "failed"}


def _pipeline_step(state: str):  # type: ignore[no-untyped-def]
    """Fold a PipelineStep* event: a higher attempt replaces an older one, a late lower
    attempt is ignored, and within one attempt the first terminal result wins."""

    def handler(fold: _Fold, e: Event, p: dict[str, Any]) -> None:
        ps = schema.pipeline_step_projections
        key = (
            ps.c.workflow_id == p["workflowId"],
            ps.c.run_id == p["runId"],
            ps.c.step_kind == p["stepKind"],
            ps.c.item_key == p["itemKey"],
        )
        row = fold.conn.execute(select(ps.c.attempt, ps.c.state).where(*key)).first()
        if row is not None and (
            p["attempt"] < row.attempt
            or (p["attempt"] == row.attempt and row.state in _STEP_TERMINAL)
        ):
            return
        at = e["occurred_at"]
        values: dict[str, Any] = {"attempt": p["attempt"], "state": state, "last_seq": e["seq"]}
        if state == "queued":
            values.update(queued_at=at)
        elif state == "running":
            values.update(started_at=at)
        else:
            values.update(finished_at=at, error_code=p.get("errorCode"), counts=p.get("counts"))
        if row is None:
            fold.conn.execute(
                insert(ps).values(
                    workflow_id=p["workflowId"],
                    run_id=p["runId"],
                    step_kind=p["stepKind"],
                    item_key=p["itemKey"],
                    **values,
                )
            )
        else:
            fold.conn.execute(update(ps).where(*key).values(**values))

    return handler


HANDLERS: dict[str, Callable[[_Fold, Event, dict[str, Any]], None]] = {
    "JobCreated": _on_job_created,
    "StageStarted": _job_event(_stage_started),
    "StageSucceeded": _job_event(_stage_succeeded),
    "StageFailed": _job_event(_stage_failed),
    "StageSkipped": _job_event(_stage_skipped),
    "StageReset": _job_event(_stage_reset),
    "JobEnriched": _job_event(_enriched),
    "JobScored": _job_event(_scored),
    "WorkflowStarted": _on_workflow_started,
    "WorkflowCompleted": _close_workflow("completed"),
    "WorkflowFailed": _close_workflow("failed"),
    "JobDiscovered": _job_event(_discovered),
    "ReportWritten": _job_event(_report_written),
    "PipelineStepQueued": _pipeline_step("queued"),
    "PipelineStepStarted": _pipeline_step("running"),
    "PipelineStepCompleted": _pipeline_step("completed"),
    "PipelineStepFailed": _pipeline_step("failed"),
    "JobAvailabilityChecked": _job_event(_availability_checked),
}
