"""Resume documents (issue 28): real PDFs, a Word file and a PDF made here from a known
profile, Markdown and text, each parsed back and compared field by field; refusals of a
scan, an encrypted file and an oversize one; nothing unplaced is dropped."""

from __future__ import annotations

import re
from pathlib import Path

import docx
import pypdf
import pytest
import typst
from PIL import Image

from jobctrl.domain.materials import Cited, TailoredEducation, TailoredExperience, TailoredResume
from jobctrl.domain.profile import Profile
from jobctrl.profile_import import (
    MAX_DOCUMENT_BYTES,
    ProfileImportError,
    load_profile_file,
    read_profile_file,
)
from jobctrl.render.pdf import render_resume

RESUMES = Path(__file__).resolve().parents[1] / "fixtures" / "resumes"
THEMES = ["classic", "engineeringresumes", "harvard", "moderncv", "sb2nov"]

KNOWN = Profile.model_validate(
    {
        "name": "Maria Schneider",
        "contact": {
            "email": "maria.schneider@example.org",
            "phone": "+49 30 1234 5678",
            "location": "Berlin, Germany",
            "links": ["https://github.com/mschneider", "https://linkedin.com/in/maria-schneider"],
        },
        "summary": "Backend engineer with eight years of Python and Go.",
        "skills": ["Python", "Go", "PostgreSQL", "Kubernetes", "Kafka"],
        "experience": [
            {
                "title": "Senior Backend Engineer",
                "company": "Lumen Logistics GmbH",
                "start": "2021-03",
                "end": "present",
                "location": "Berlin, Germany",
                "bullets": [
                    "Built the carrier API in Go, serving 2,000 requests per second.",
                    "Moved 40 services to Kubernetes without downtime.",
                ],
            },
            {
                "title": "Software Engineer",
                "company": "Brightwell Analytics Ltd",
                "start": "2017-09",
                "end": "2021-02",
                "location": "London, UK",
                "bullets": ["Wrote Airflow pipelines loading 2 TB a day into PostgreSQL."],
            },
        ],
        "education": [
            {
                "institution": "Technische Universität Berlin",
                "degree": "MSc",
                "field": "Computer Science",
                "start": "2015-10",
                "end": "2017-09",
            }
        ],
        "languages": [{"language": "German", "fluency": "native"},
                      {"language": "English", "fluency": "C1"}],
        "certifications": [
            {"name": "Certified Kubernetes Administrator", "issuer": "The Linux Foundation",
             "date": "2022-05"}
        ],
    }
)  # fmt: skip


def _norm(text: str) -> str:
    return " ".join(text.replace("’", "'").split()).casefold()


def _url(url: str) -> str:
    return re.sub(r"^(?:https?://)?(?:www\.)?", "", url.lower()).rstrip("/")


def _roles(profile: Profile) -> list[tuple[str, ...]]:
    return [(_norm(r.company), _norm(r.title), r.start, r.end, _norm(r.location))
            for r in profile.experience]  # fmt: skip


def _schools(profile: Profile) -> list[tuple[str, ...]]:
    return [(_norm(e.institution), _norm(e.degree), _norm(e.field), e.start, e.end)
            for e in profile.education]  # fmt: skip


# -- real resumes: RenderCV's rendered examples and the YAML they came from -------------


@pytest.mark.parametrize("theme", THEMES)
def test_a_real_resume_pdf_reads_back_as_its_source_says(theme):
    truth = load_profile_file(RESUMES / f"rendercv_{theme}.yaml")
    parsed = read_profile_file(RESUMES / f"rendercv_{theme}.pdf")
    got = parsed.profile

    assert parsed.format == "pdf"
    assert got.name == truth.name
    assert got.contact.email == truth.contact.email
    assert got.contact.location == truth.contact.location
    assert {_url(u) for u in got.contact.links} == {_url(u) for u in truth.contact.links}
    assert _roles(got) == _roles(truth)
    for mine, theirs in zip(got.experience, truth.experience, strict=True):
        # Nested highlights are one YAML string; the PDF sets them as bullets of their own.
        assert [_norm(b) for b in mine.bullets][: len(theirs.bullets) - 1] == [
            _norm(b) for b in theirs.bullets
        ][: len(theirs.bullets) - 1]
    assert _schools(got) == _schools(truth)
    # RenderCV prints a project's year "2021" as "Jan 2021": the year is what it states.
    assert [(p.name, p.start[:4], p.end) for p in got.projects] == [
        (p.name, p.start[:4], p.end) for p in truth.projects
    ]
    assert [_norm(p.description) for p in got.projects] == [
        _norm(p.description) for p in truth.projects
    ]
    assert [_norm(s) for s in got.skills] == [_norm(s) for s in truth.skills]
    assert [(_norm(a.title), a.date) for a in got.awards] == [
        (_norm(a.title), a.date) for a in truth.awards
    ]
    assert got.answers.linkedin == "https://linkedin.com/in/rendercv"
    assert got.answers.github == "https://github.com/rendercv"
    # Sections the profile has no place for are listed, not dropped.
    unplaced = " ".join(parsed.unplaced)
    assert "Each section title is arbitrary." in unplaced
    assert "US Patent 11,234,567" in unplaced
    assert "GPA: 3.97/4.00, Valedictorian" in unplaced


def test_a_date_column_and_hyphenation_across_lines_are_read_as_set():
    # Classic sets dates in a right-hand column on the line of a role's first bullet and
    # hyphenates "submis-/sions" across lines.
    got = load_profile_file(RESUMES / "rendercv_classic.pdf")
    nvidia = got.experience[1]
    assert (nvidia.start, nvidia.end) == ("2022-05", "2022-08")
    assert "top 5% of submissions)" in nvidia.bullets[1]
    assert not any("4 months" in b or "2 years" in b for r in got.experience for b in r.bullets)


def test_page_footers_and_the_page_number_are_dropped():
    parsed = read_profile_file(RESUMES / "rendercv_classic.pdf")
    assert not any(re.search(r"\d/2$", u) for u in parsed.unplaced)
    assert "John Doe – 2/2" not in parsed.text.splitlines()


# -- documents made here from a known profile ----------------------------------------------


def _word_resume(path: Path, p: Profile) -> None:
    d = docx.Document()
    d.add_paragraph(p.name, style="Title")
    d.add_paragraph(" | ".join([p.contact.email, p.contact.phone, p.contact.location]))
    d.add_paragraph(" | ".join(p.contact.links))
    d.add_heading("Summary", level=1)
    d.add_paragraph(p.summary)
    d.add_heading("Work Experience", level=1)
    for r in p.experience:
        d.add_paragraph(f"{r.title}, {r.company}\t{r.start} – {r.end}")
        d.add_paragraph(r.location)
        for b in r.bullets:
            d.add_paragraph(b, style="List Bullet")
    d.add_heading("Education", level=1)
    table = d.add_table(rows=1, cols=2)
    e = p.education[0]
    table.rows[0].cells[0].text = f"{e.institution}, {e.degree} in {e.field}"
    table.rows[0].cells[1].text = f"{e.start} – {e.end}"
    d.add_heading("Skills", level=1)
    d.add_paragraph(", ".join(p.skills))
    d.add_heading("Languages", level=1)
    d.add_paragraph(", ".join(f"{x.language} ({x.fluency})" for x in p.languages))
    d.add_heading("Certifications", level=1)
    c = p.certifications[0]
    d.add_paragraph(f"{c.name}, {c.issuer}, {c.date}", style="List Bullet")
    d.add_heading("Interests", level=1)
    d.add_paragraph("Bouldering and sourdough")
    d.save(str(path))


def _same_as_known(got: Profile, *, location_of_roles: bool = True) -> None:
    assert got.name == KNOWN.name
    assert (got.contact.email, got.contact.phone, got.contact.location) == (
        KNOWN.contact.email, KNOWN.contact.phone, KNOWN.contact.location,
    )  # fmt: skip
    assert {_url(u) for u in got.contact.links} == {_url(u) for u in KNOWN.contact.links}
    roles = _roles(got) if location_of_roles else [r[:4] for r in _roles(got)]
    known = _roles(KNOWN) if location_of_roles else [r[:4] for r in _roles(KNOWN)]
    assert roles == known
    assert [r.bullets for r in got.experience] == [r.bullets for r in KNOWN.experience]
    assert _schools(got) == _schools(KNOWN)
    assert got.skills == KNOWN.skills
    assert got.summary == KNOWN.summary


def test_a_word_resume_made_from_a_known_profile_reads_back_field_by_field(tmp_path):
    path = tmp_path / "resume.docx"
    _word_resume(path, KNOWN)

    parsed = read_profile_file(path)

    assert parsed.format == "docx"
    _same_as_known(parsed.profile)
    assert parsed.profile.languages == KNOWN.languages
    assert parsed.profile.certifications == KNOWN.certifications
    assert parsed.profile.answers.github == "https://github.com/mschneider"
    assert parsed.unplaced == ["Bouldering and sourdough"]


def test_a_pdf_rendered_by_jobctrl_from_a_known_profile_reads_back_field_by_field(tmp_path):
    resume = TailoredResume(
        name=KNOWN.name,
        contact=KNOWN.contact,
        summary=[Cited(text=KNOWN.summary, facts=[])],
        skills=KNOWN.skills,
        experience=[TailoredExperience(fact="", **r.model_dump()) for r in KNOWN.experience],
        education=[TailoredEducation(fact="", **e.model_dump()) for e in KNOWN.education],
    )
    path = tmp_path / "resume.pdf"
    path.write_bytes(render_resume(resume))

    parsed = read_profile_file(path)

    _same_as_known(parsed.profile)


TWO_COLUMNS = r"""
#set page(width: 595pt, height: 842pt, margin: 40pt,
  footer: context align(center)[Page #counter(page).display() of 2])
#set text(size: 10pt)
#text(size: 24pt)[*Maria Schneider*] \
maria.schneider\@example.org | +49 30 1234 5678 | Berlin, Germany
#v(12pt)
#grid(columns: (150pt, 1fr), column-gutter: 30pt,
[
  #text(size: 14pt)[*Skills*] \
  Python, Go, PostgreSQL \
  Kubernetes, Kafka
  #v(8pt)
  #text(size: 14pt)[*Languages*] \
  German (native) \
  English (C1)
],
[
  #text(size: 14pt)[*Experience*] \
  *Senior Backend Engineer, Lumen Logistics GmbH* #h(1fr) 2021-03 – present \
  - Built the carrier API in Go, serving 2,000 requests per second.
    Every request is authen-\ ticated.
  #v(6pt)
  *Software Engineer, Brightwell Analytics Ltd* #h(1fr) 2017-09 – 2021-02 \
  - Wrote Airflow pipelines loading 2 TB a day into PostgreSQL.
  #v(8pt)
  #text(size: 14pt)[*Education*] \
  Technische Universität Berlin, MSc in Computer Science #h(1fr) 2015-10 – 2017-09
])
#pagebreak()
#text(size: 14pt)[*Interests*] \
Bouldering
"""


def test_a_two_column_resume_reads_column_by_column_without_its_footer(tmp_path):
    path = tmp_path / "two-columns.pdf"
    path.write_bytes(typst.compile(TWO_COLUMNS.encode()))

    parsed = read_profile_file(path)
    got = parsed.profile

    assert got.name == "Maria Schneider"
    assert got.skills == ["Python", "Go", "PostgreSQL", "Kubernetes", "Kafka"]
    assert [(x.language, x.fluency) for x in got.languages] == [
        ("German", "native"),
        ("English", "C1"),
    ]
    assert [r[:4] for r in _roles(got)] == [r[:4] for r in _roles(KNOWN)]
    assert got.experience[0].bullets == [
        "Built the carrier API in Go, serving 2,000 requests per second. Every request is "
        "authenticated."
    ]
    assert _schools(got) == _schools(KNOWN)
    assert parsed.unplaced == ["Bouldering"]
    assert "Page 1 of 2" not in parsed.text


MARKDOWN = """# Maria Schneider

maria.schneider@example.org | +49 30 1234 5678 | Berlin, Germany
[GitHub](https://github.com/mschneider) | <https://linkedin.com/in/maria-schneider>

## Summary

Backend engineer with eight years of Python and Go.

## Experience

### Senior Backend Engineer, Lumen Logistics GmbH — Berlin, Germany
*2021-03 – present*

- Built the carrier API in Go, serving 2,000 requests per second.
- Moved 40 services to Kubernetes without downtime.

### Software Engineer, Brightwell Analytics Ltd — London, UK
*2017-09 – 2021-02*

- Wrote Airflow pipelines loading 2 TB a day into PostgreSQL.

## Education

**Technische Universität Berlin**, MSc in Computer Science, 2015-10 – 2017-09

## Skills

Python, Go, PostgreSQL, Kubernetes, Kafka
"""

TEXT = """MARIA SCHNEIDER
maria.schneider@example.org  |  +49 30 1234 5678  |  Berlin, Germany
github.com/mschneider  |  linkedin.com/in/maria-schneider

SUMMARY
Backend engineer with eight years of Python and Go.

WORK EXPERIENCE
Senior Backend Engineer at Lumen Logistics GmbH          Mar 2021 - Present
Berlin, Germany
  * Built the carrier API in Go, serving 2,000 requests
    per second.
  * Moved 40 services to Kubernetes without downtime.

Software Engineer at Brightwell Analytics Ltd            09/2017 - 02/2021
London, UK
  * Wrote Airflow pipelines loading 2 TB a day into PostgreSQL.

EDUCATION
Technische Universität Berlin, MSc in Computer Science   Oct 2015 – Sept 2017

SKILLS
Python; Go; PostgreSQL; Kubernetes; Kafka
"""


def test_markdown_and_text_resumes_read_back_field_by_field(tmp_path):
    md = tmp_path / "resume.md"
    md.write_text(MARKDOWN, encoding="utf-8")
    txt = tmp_path / "resume.txt"
    txt.write_text(TEXT, encoding="utf-8")

    from_md = read_profile_file(md)
    from_text = read_profile_file(txt)

    assert (from_md.format, from_text.format) == ("markdown", "text")
    _same_as_known(from_md.profile)
    _same_as_known(from_text.profile.model_copy(update={"name": "Maria Schneider"}))
    assert from_text.profile.name == "MARIA SCHNEIDER"


# -- refusals --------------------------------------------------------------------------------


def test_a_scanned_pdf_without_a_text_layer_is_refused_saying_so(tmp_path):
    path = tmp_path / "scan.pdf"
    Image.new("RGB", (595, 842), "white").save(path, "PDF")

    with pytest.raises(ProfileImportError, match=r"no text layer.*scan.*no OCR"):
        read_profile_file(path)


def test_a_password_protected_pdf_is_refused_saying_so(tmp_path):
    writer = pypdf.PdfWriter(clone_from=RESUMES / "rendercv_classic.pdf")
    writer.encrypt("secret")
    path = tmp_path / "locked.pdf"
    with path.open("wb") as f:
        writer.write(f)

    with pytest.raises(ProfileImportError, match="password-protected"):
        read_profile_file(path)


def test_an_oversize_document_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.pdf"
    with path.open("wb") as f:
        f.truncate(MAX_DOCUMENT_BYTES + 1)

    with pytest.raises(ProfileImportError, match="larger than 10 MB"):
        read_profile_file(path)


def test_a_pdf_past_the_page_limit_is_refused(tmp_path):
    writer = pypdf.PdfWriter()
    for _ in range(11):
        writer.add_blank_page(595, 842)
    path = tmp_path / "long.pdf"
    with path.open("wb") as f:
        writer.write(f)

    with pytest.raises(ProfileImportError, match="11 pages; a resume of at most 10"):
        read_profile_file(path)


def _word_file_with_body(path: Path, body: str) -> Path:
    """A real .docx whose body starts with ``body`` (raw WordprocessingML)."""
    import io
    import zipfile

    made = docx.Document()
    made.add_paragraph("Ada Example")
    buffer = io.BytesIO()
    made.save(buffer)
    with (
        zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as src,
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out,
    ):
        for name in src.namelist():
            data = src.read(name)
            if name == "word/document.xml":
                text = data.decode()
                at = text.index("<w:body>") + len("<w:body>")
                data = (text[:at] + body + text[at:]).encode()
            out.writestr(name, data)
    return path


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("<w:p/>" * 1_000_000, "too long to be a resume"),  # 45 KB, a million paragraphs
        ("<w:p><w:r><w:t>" + "a" * 60_000_000 + "</w:t></w:r></w:p>", "unpacks to"),
    ],
    ids=["a-million-empty-paragraphs", "a-60-MB-run"],
)
def test_a_small_word_file_that_unpacks_huge_is_refused_at_once(tmp_path, body, said):
    path = _word_file_with_body(tmp_path / "resume.docx", body)
    assert path.stat().st_size < 300_000
    with pytest.raises(ProfileImportError, match=said):
        load_profile_file(path)
