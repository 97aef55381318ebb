"""A job's materials: each generation of its tailored resume and cover letter, its PDF,
and the person's decision on it.

A generation is a draft until decided. Approving one supersedes the approved generation
of the same kind; rejecting leaves that one the accepted generation.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, select, update

from jobctrl.domain.clock import Clock
from jobctrl.domain.errors import NO_DRAFT, NotFoundError
from jobctrl.domain.events import MaterialDecided, MaterialGenerated, MaterialsRendered
from jobctrl.domain.materials import MaterialKind, MaterialState
from jobctrl.store import schema, tenancy
from jobctrl.store.store import Store, WriteTx

M = schema.materials


def latest(store: Store, job_id: str, kind: str) -> dict[str, Any] | None:
    """The newest generation of ``kind`` (any state), or None."""
    with store.read() as conn:
        row = (
            conn.execute(
                select(M)
                .where(tenancy.scoped(M, conn), M.c.job_id == job_id, M.c.kind == kind)
                .order_by(M.c.generation.desc())
                .limit(1)
            )
            .mappings()
            .first()
        )
    return dict(row) if row else None


def list_materials(store: Store, job_id: str) -> list[dict[str, Any]]:
    """Every generation of the job's materials, by kind then generation."""
    with store.read() as conn:
        rows = conn.execute(
            select(M)
            .where(tenancy.scoped(M, conn), M.c.job_id == job_id)
            .order_by(M.c.kind, M.c.generation)
        ).mappings()
        return [dict(r) for r in rows]


def next_generation(conn: Connection, job_id: str, kind: str) -> int:
    """The number the job's next generation of ``kind`` gets."""
    newest = conn.execute(
        select(func.coalesce(func.max(M.c.generation), 0)).where(
            tenancy.scoped(M, conn), M.c.job_id == job_id, M.c.kind == kind
        )
    ).scalar_one()
    return int(newest) + 1


def add_generation(
    tx: WriteTx,
    job_id: str,
    kind: str,
    *,
    content: dict[str, Any],
    provider: str,
    model: str,
    profile_version: int | None,
    run_id: str,
) -> int:
    """Save a new draft generation of ``kind`` (the next number) with its event."""
    generation = next_generation(tx.conn, job_id, kind)
    tx.conn.execute(
        M.insert().values(
            tenant_id=tx.tenant,
            job_id=job_id,
            kind=kind,
            generation=generation,
            state=MaterialState.DRAFT.value,
            content=content,
            provider=provider,
            model=model,
            profile_version=profile_version,
            owner_run_id=run_id,
            created_at=tx.now,
        )
    )
    tx.append(
        MaterialGenerated(
            job_id=job_id, kind=kind, generation=generation, provider=provider, model=model
        ),
        key=f"material:{job_id}:{kind}:{generation}",
    )
    return generation


def attach_pdfs(
    tx: WriteTx,
    job_id: str,
    *,
    resume_id: int,
    resume_pdf: str,
    letter_id: int | None,
    letter_pdf: str | None,
    key: str,
) -> None:
    """Point the rendered generations at their PDF artifacts, with one event."""
    mine = M.c.tenant_id == tx.tenant
    tx.conn.execute(update(M).where(mine, M.c.id == resume_id).values(pdf_artifact=resume_pdf))
    if letter_id is not None and letter_pdf is not None:
        tx.conn.execute(update(M).where(mine, M.c.id == letter_id).values(pdf_artifact=letter_pdf))
    tx.append(
        MaterialsRendered(job_id=job_id, resume_pdf=resume_pdf, cover_pdf=letter_pdf), key=key
    )


def supersede_drafts(tx: WriteTx, job_id: str, kind: str, below: int) -> None:
    """Older drafts of ``kind`` than generation ``below`` are superseded (a person's edit
    replaces the draft it was made from: one draft of a kind waits for a decision)."""
    tx.conn.execute(
        update(M)
        .where(
            M.c.tenant_id == tx.tenant,
            M.c.job_id == job_id,
            M.c.kind == kind,
            M.c.state == MaterialState.DRAFT.value,
            M.c.generation < below,
        )
        .values(state=MaterialState.SUPERSEDED.value, decided_at=tx.now)
    )


def attach_pdf(tx: WriteTx, job_id: str, kind: str, generation: int, pdf: str, key: str) -> None:
    """Point one generation at its PDF artifact (a person's edit: one kind at a time)."""
    tx.conn.execute(
        update(M)
        .where(
            M.c.tenant_id == tx.tenant,
            M.c.job_id == job_id,
            M.c.kind == kind,
            M.c.generation == generation,
        )
        .values(pdf_artifact=pdf)
    )
    pdfs = {"resume_pdf": pdf} if kind == MaterialKind.RESUME else {"cover_pdf": pdf}
    tx.append(MaterialsRendered(job_id=job_id, **pdfs), key=key)


def decide(
    store: Store, job_id: str, state: MaterialState, *, clock: Clock | None = None
) -> list[dict[str, Any]]:
    """Approve or reject the newest draft of each kind; what was decided. Approving one
    supersedes the approved generation and the older drafts of its kind."""
    decided = []
    with store.write(clock=clock) as tx:
        mine = M.c.tenant_id == tx.tenant
        for kind in MaterialKind:
            draft = tx.conn.execute(
                select(M.c.id, M.c.generation)
                .where(
                    mine,
                    M.c.job_id == job_id,
                    M.c.kind == kind.value,
                    M.c.state == MaterialState.DRAFT.value,
                )
                .order_by(M.c.generation.desc())
            ).first()
            if draft is None:
                continue
            if state == MaterialState.APPROVED:  # the approved one and older drafts go
                tx.conn.execute(
                    update(M)
                    .where(
                        mine,
                        M.c.job_id == job_id,
                        M.c.kind == kind.value,
                        M.c.state.in_([MaterialState.APPROVED.value, MaterialState.DRAFT.value]),
                        M.c.id != draft.id,
                    )
                    .values(state=MaterialState.SUPERSEDED.value, decided_at=tx.now)
                )
            tx.conn.execute(
                update(M)
                .where(mine, M.c.id == draft.id)
                .values(state=state.value, decided_at=tx.now)
            )
            tx.append(
                MaterialDecided(
                    job_id=job_id, kind=kind.value, generation=draft.generation, state=state.value
                ),
                key=f"material-decided:{job_id}:{kind.value}:{draft.generation}:{state.value}",
            )
            decided.append(
                {"kind": kind.value, "generation": draft.generation, "state": state.value}
            )
    if not decided:
        raise NotFoundError(f"job {job_id} has no materials waiting for a decision", code=NO_DRAFT)
    return decided


def pdf_owner(store: Store, artifact_id: str) -> tuple[str, str, int] | None:
    """(job id, kind, generation) of the material whose PDF is ``artifact_id``."""
    with store.read() as conn:
        row = conn.execute(
            select(M.c.job_id, M.c.kind, M.c.generation).where(
                tenancy.scoped(M, conn), M.c.pdf_artifact == artifact_id
            )
        ).first()
    return None if row is None else (str(row.job_id), str(row.kind), int(row.generation))
