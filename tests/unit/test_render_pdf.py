"""Resumes and cover letters render to ATS-readable PDFs; user text is never markup."""

from __future__ import annotations

import io

import pypdf
import pytest

from jobctrl.domain.materials import (
    Cited,
    CoverLetter,
    Paragraph,
    TailoredEducation,
    TailoredExperience,
    TailoredResume,
)
from jobctrl.domain.profile import Contact
from jobctrl.render import pdf as render
from jobctrl.render.pdf import (
    RenderError,
    pdf_pages,
    pdf_text,
    render_cover_letter,
    render_resume,
)

SPECIAL_BULLET = r"Shipped #set text(red) and *bold* claims with $x$ math ] and a \ backslash"

ROLES = [
    ("Staff Backend Engineer", "Northwind Logistics", "2021-03", "present"),
    ("Senior Software Engineer", "Globex Payments", "2017-06", "2021-02"),
    ("Software Engineer", "Initech", "2014-09", "2017-05"),
]


def _bullets(company: str) -> list[Cited]:
    return [
        Cited(text=text, facts=[f"hl-{n}"])
        for n, text in enumerate(
            [
                f"Led the {company} billing migration to event sourcing, cutting "
                "reconciliation time 40%",
                f"Designed {company} ingestion pipelines in Python and Kafka handling 2M "
                "events per day",
                f"Mentored four engineers at {company} and ran the weekly architecture review",
            ]
        )
    ]


def _resume(roles: int = 3, bullets_per_role: int = 3) -> TailoredResume:
    experience = [
        TailoredExperience(
            fact=f"exp-{i}",
            title=ROLES[i % 3][0],
            company=f"{ROLES[i % 3][1]}" if i < 3 else f"{ROLES[i % 3][1]} {i}",
            start=ROLES[i % 3][2],
            end=ROLES[i % 3][3],
            location="Berlin, Germany",
            bullets=(_bullets(ROLES[i % 3][1]) * 4)[:bullets_per_role],
        )
        for i in range(roles)
    ]
    return TailoredResume(
        name="Ada Lovelace",
        headline=Cited(text="Senior Backend Engineer", facts=["exp-0"]),
        contact=Contact(
            email="ada@example.com",
            phone="+44 20 7946 0000",
            location="London, UK",
            links=["https://github.com/ada-l", "linkedin.com/in/ada-l"],
        ),
        summary=[
            Cited(text="Backend engineer with ten years of building", facts=["sum-1"]),
            Cited(text="reliable distributed systems.", facts=["sum-1"]),
        ],
        skills=["Python", "Go", "PostgreSQL", "Kafka", "Temporal", "Kubernetes"],
        experience=experience,
        education=[
            TailoredEducation(
                fact="edu-1",
                institution="University of London",
                degree="BSc",
                field="Mathematics",
                start="2006",
                end="2009",
            )
        ],
        extras=[Cited(text="Languages: English, Italian (fluent)", facts=[])],
    )


def _letter(paragraphs: list[str] | None = None) -> CoverLetter:
    texts = paragraphs or [
        "I am writing to apply for the Staff Engineer role on your platform team. " * 3,
        "At Northwind Logistics I led the move of our billing system to event sourcing. " * 3,
        "Thank you for considering my application; I would welcome a conversation. " * 2,
    ]
    return CoverLetter(
        company="Acme Robotics",
        role="Staff Engineer",
        greeting="Dear Hiring Team at Acme Robotics,",
        paragraphs=[Paragraph(sentences=[Cited(text=t, facts=[])]) for t in texts],
        signature="Ada Lovelace",
    )


def _squash(text: str) -> str:
    # A text extractor breaks long lines wherever the PDF wraps them.
    return " ".join(text.split())


def test_resume_text_reads_back_with_name_headings_companies_and_every_bullet() -> None:
    resume = _resume()
    pdf = render_resume(resume)

    assert pdf.startswith(b"%PDF-")
    assert 1 <= pdf_pages(pdf) <= 2
    text = _squash(pdf_text(pdf))
    for expected in ["Ada Lovelace", "Senior Backend Engineer", "ada@example.com"]:
        assert expected in text
    for heading in ["Summary", "Skills", "Experience", "Education", "Additional"]:
        assert heading in text
    assert "Backend engineer with ten years of building reliable distributed systems." in text
    assert "Languages: English, Italian (fluent)" in text
    for job in resume.experience:
        assert job.company in text
        for bullet in job.bullets:
            assert bullet.text in text
    assert "Python, Go, PostgreSQL" in text
    assert "Mar 2021 – Present" in text
    assert "BSc, Mathematics — University of London" in text


def test_typical_profile_of_five_roles_with_four_bullets_fits_two_pages() -> None:
    assert pdf_pages(render_resume(_resume(roles=5, bullets_per_role=4))) <= 2


def test_typst_special_characters_in_a_bullet_print_literally() -> None:
    resume = _resume()
    resume.experience[0].bullets.append(Cited(text=SPECIAL_BULLET, facts=[]))
    resume.name = "Ada #Lovelace] *"

    text = _squash(pdf_text(render_resume(resume)))

    assert SPECIAL_BULLET in text
    assert "Ada #Lovelace] *" in text


def test_empty_sections_are_left_out() -> None:
    text = pdf_text(render_resume(TailoredResume(name="Ada Lovelace")))

    assert "Ada Lovelace" in text
    assert "Experience" not in text
    assert "Summary" not in text


def test_a_very_long_resume_renders_on_more_pages() -> None:
    pdf = render_resume(_resume(roles=30, bullets_per_role=8))

    assert pdf_pages(pdf) > 2
    assert "Initech 29" in _squash(pdf_text(pdf))


def test_rendering_is_deterministic() -> None:
    assert render_resume(_resume()) == render_resume(_resume())
    letter = _letter()
    assert render_cover_letter(letter, date="1 March 2026") == render_cover_letter(
        letter, date="1 March 2026"
    )


def test_cover_letter_is_one_page_with_greeting_paragraphs_and_signature() -> None:
    letter = _letter()
    pdf = render_cover_letter(letter, sender=_resume(), date="1 March 2026", paper="us-letter")

    assert pdf_pages(pdf) == 1
    text = _squash(pdf_text(pdf))
    for expected in [letter.greeting, "Kind regards,", "Ada Lovelace", "1 March 2026"]:
        assert expected in text
    for paragraph in letter.paragraph_texts():
        assert " ".join(paragraph.split()[:8]) in text
    assert "ada@example.com" in text
    assert "Re: Staff Engineer" in text


def _body_sizes(pdf: bytes) -> set[float]:
    """The font sizes the PDF's text is set in, in points."""
    sizes: set[float] = set()

    def visit(text: str, _cm: object, tm: list[float], _font: object, size: float) -> None:
        if text.strip():
            sizes.add(round(size * tm[0], 2))

    pypdf.PdfReader(io.BytesIO(pdf)).pages[0].extract_text(visitor_text=visit)
    return sizes


def test_a_long_letter_is_set_smaller_to_stay_on_one_page() -> None:
    short = render_cover_letter(_letter(["I built reliable systems."]), date="")
    paragraphs = ["I built reliable systems for payments and logistics teams. " * 14] * 5
    long = render_cover_letter(_letter(paragraphs), date="")

    assert pdf_pages(long) == 1
    assert max(_body_sizes(long)) < min(_body_sizes(short)), "the long letter is set smaller"


def test_a_letter_that_cannot_fit_one_page_is_refused() -> None:
    paragraphs = ["I built reliable systems for payments and logistics teams. " * 20] * 8
    with pytest.raises(ValueError) as info:
        render_cover_letter(_letter(paragraphs))
    assert isinstance(info.value, RenderError)
    assert info.value.code == "render_letter_too_long"


def test_oversized_and_invalid_input_raise_value_error() -> None:
    resume = _resume()
    resume.experience[0].bullets.append(Cited(text="x" * (render.MAX_FIELD_CHARS + 1), facts=[]))
    with pytest.raises(ValueError, match="too long") as info:
        render_resume(resume)
    assert info.value.code == "render_too_large"  # type: ignore[attr-defined]

    with pytest.raises(ValueError, match="no name"):
        render_resume(TailoredResume(name="  "))
    with pytest.raises(ValueError, match="paper"):
        render_resume(_resume(), paper="a3")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a readable PDF"):
        pdf_text(b"not a pdf")


def test_a_letter_paragraph_prints_its_sentences_joined() -> None:
    letter = _letter()
    letter.paragraphs[1] = Paragraph(
        sentences=[
            Cited(text="At Northwind Logistics I led the billing move.", facts=["hl-0"]),
            Cited(text="It cut reconciliation time 40%.", facts=["hl-0"]),
        ]
    )
    text = _squash(pdf_text(render_cover_letter(letter, date="")))
    assert "I led the billing move. It cut reconciliation time 40%." in text


def test_an_old_generation_of_plain_strings_still_renders() -> None:
    resume = TailoredResume.model_validate(
        {
            "name": "Ada Lovelace",
            "headline": "Senior Backend Engineer",
            "summary": "Backend engineer.",
            "experience": [{"title": "Engineer", "company": "Initech", "bullets": ["Built X."]}],
            "education": [{"institution": "University of London"}],
        }
    )
    letter = CoverLetter.model_validate(
        {
            "company": "Acme",
            "role": "Engineer",
            "greeting": "Dear Hiring Team,",
            "paragraphs": ["First paragraph.", "Second paragraph."],
            "signature": "Ada Lovelace",
        }
    )
    resume_text = _squash(pdf_text(render_resume(resume)))
    assert "Senior Backend Engineer" in resume_text and "Built X." in resume_text
    letter_text = _squash(pdf_text(render_cover_letter(letter, date="")))
    assert "First paragraph." in letter_text and "Second paragraph." in letter_text


def test_a_template_failure_is_a_value_error_without_typst_markup() -> None:
    with pytest.raises(ValueError) as info:
        render_resume(_resume(), templates=lambda kind: b"#let broken = (")

    assert info.value.code == "render_failed"  # type: ignore[attr-defined]
    assert "#let" not in str(info.value)
    assert info.value.__cause__ is None


def test_a_reused_compiler_renders_the_same_bytes_from_many_threads() -> None:
    """Each thread keeps its own Typst compiler (fonts loaded once): a PDF is the bytes a
    fresh compile makes, whatever thread renders which document."""
    import json
    from concurrent.futures import ThreadPoolExecutor

    import typst

    data = {"paper": "a4", "size": 11.0, "sender": "Ada", "contact": [], "date": "1 May 2026"}
    data |= {"company": "Acme", "role": "Engineer", "greeting": "Dear team,"}
    data |= {"paragraphs": ["I write to apply."], "closing": "Regards,", "signature": "Ada"}
    fresh = typst.compile(
        render.packaged_template("letter"),
        format="pdf",
        ignore_system_fonts=True,
        sys_inputs={"data": json.dumps(data, ensure_ascii=False)},
    )
    assert render._compile(render.packaged_template, "letter", data) == fresh
    documents = [_resume(roles=1 + i % 3) for i in range(6)]
    alone = [render_resume(resume) for resume in documents]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(render_resume, documents * 3)) == alone * 3
