"""Titles and names from outside enter as one clean line (issue 30): no NUL, no control
character, no bidirectional override, from a fetched page or from a board."""

from jobctrl.domain.shown_text import one_line, without_controls
from jobctrl.fetch.extract import extract_posting
from jobctrl.sources.base import DiscoveredPosting

HOSTILE = "Senior\x00 Engineer \u202egnp.exe\u202c\n(Remote)\u2066"


def test_one_line_drops_controls_and_bidi_formatting():
    assert one_line(HOSTILE) == "Senior Engineer gnp.exe (Remote)"
    assert one_line("\u200f\x07  ") is None and one_line(None) is None
    assert one_line("Ingénieur · Zürich — 日本") == "Ingénieur · Zürich — 日本", "letters stay"


def test_without_controls_keeps_paragraphs():
    assert without_controls("a\u202eb\nc\td\x00") == "ab\nc\td"
    plain = "nothing to do"
    assert without_controls(plain) is plain


def test_a_fetched_title_is_stored_clean():
    body = f"<h1>{HOSTILE}</h1><p>{'Build things. ' * 30}</p>"
    page = f"<html><head><title>x</title></head><body>{body}</body></html>"
    posting = extract_posting(page, "https://jobs.example.com/1")
    assert posting.title == "Senior Engineer gnp.exe (Remote)"


def test_a_board_title_and_company_are_stored_clean():
    seen = DiscoveredPosting(
        source_kind="greenhouse",
        source_name="acme",
        url="https://jobs.example.com/2",
        title=HOSTILE,
        company="Acme\u202e Corp",
        location="\x00",
        external_id="42\x00",
        description="Line one\x00\nline two",
    )
    assert seen.title == "Senior Engineer gnp.exe (Remote)"
    assert seen.company == "Acme Corp" and seen.location is None
    assert (seen.external_id, seen.description) == ("42", "Line one\nline two")
