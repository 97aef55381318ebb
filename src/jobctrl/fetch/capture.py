"""A posting the person's browser sent (issue 32), made safe to keep and read.

``capture_snapshot`` turns what the extension sent into the page Enrich reads instead of
fetching: the page's HTML cleaned by ``lxml_html_clean`` (no script, style, form, frame,
event handler or ``javascript:`` link survives), and its schema.org ``JobPosting``
JSON-LD (from the page or sent apart) written back as data only. ``capture_posting``
reads that snapshot exactly as Enrich reads a fetched page (``extract_posting``): the
JSON-LD first; without it, the fields the extension's per-site extractor read (title,
company, location, description: text, never markup); then the page's main text.
"""

from __future__ import annotations

import json
from typing import Any

import lxml.html
from lxml import etree
from lxml_html_clean import Cleaner

from jobctrl.domain.posting import ExtractedPosting
from jobctrl.fetch.extract import extract_posting, html_fragment_to_text, job_posting_nodes

__all__ = ["CaptureFields", "capture_posting", "capture_snapshot", "plain_field"]

CaptureFields = dict[str, str | None]  # title, company, location, description (text)

FIELD_LIMIT = 500  # a title, company or location (characters)

_CLEANER = Cleaner(
    scripts=True,
    javascript=True,
    comments=True,
    style=True,
    inline_style=True,
    links=True,
    meta=True,
    page_structure=False,
    processing_instructions=True,
    embedded=True,
    frames=True,
    forms=True,
    annoying_tags=True,
    remove_unknown_tags=True,
    safe_attrs_only=True,
)


def plain_field(value: str | None, limit: int = FIELD_LIMIT) -> str | None:
    """A short field as one line of text (markup is kept as the characters it is: shown
    escaped, never run), or None when empty."""
    if value is None:
        return None
    text = " ".join("".join(ch for ch in value if ch.isprintable() or ch.isspace()).split())
    return text[:limit] or None


def _json_ld(value: Any) -> str:
    # "<" written as \u003c: a "</script>" inside a string cannot end the element.
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")


def capture_snapshot(url: str, html: str | None, jsonld: Any) -> bytes:
    """The sanitised page: the cleaned HTML body and every JobPosting node (those of the
    page and ``jsonld``, an object, a list or JSON text) as JSON-LD data blocks."""
    nodes: list[Any] = []
    body = ""
    if html and html.strip():
        try:
            tree = lxml.html.document_fromstring(html)
        except (etree.ParserError, ValueError):
            tree = None
        if tree is not None:
            nodes.extend(job_posting_nodes(tree, url))
            cleaned = _CLEANER.clean_html(tree)
            found = cleaned.find(".//body")
            part = found if found is not None else cleaned
            body = lxml.html.tostring(part, encoding="unicode")
    if isinstance(jsonld, str) and jsonld.strip():
        try:
            jsonld = json.loads(jsonld)
        except ValueError:
            jsonld = None
    if isinstance(jsonld, dict | list):
        wrapped = f'<script type="application/ld+json">{_json_ld(jsonld)}</script>'
        nodes.extend(job_posting_nodes(lxml.html.document_fromstring(wrapped), url))
    scripts = "".join(f'<script type="application/ld+json">{_json_ld(n)}</script>' for n in nodes)
    page = f'<!doctype html><html><head><meta charset="utf-8">{scripts}</head>{body}</html>'
    return page.encode("utf-8")


def capture_posting(snapshot: bytes, url: str, fields: CaptureFields) -> ExtractedPosting:
    """The posting in a capture, read as Enrich reads a page (see the module's text)."""
    posting = extract_posting(snapshot, url)
    given = {k: plain_field(fields.get(k)) for k in ("title", "company", "location")}
    description = html_fragment_to_text(fields.get("description") or "")
    if posting.method == "json-ld":
        update = {k: v for k, v in given.items() if v and not getattr(posting, k)}
        if description and not posting.description:
            update["description"] = description
    else:
        update = {k: v for k, v in given.items() if v}
        if description:
            update["description"] = description
    return posting.model_copy(update=update) if update else posting
