"""Read one job-posting page into an ``ExtractedPosting``.

schema.org ``JobPosting`` JSON-LD comes first (via extruct, json-ld only); when a page has
none, or it is malformed, the main text is read with trafilatura. Either way the plain-text
description keeps the structure the offline scorer relies on: headings on their own lines
and list items as lines starting with ``"- "``.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterator
from datetime import date, datetime
from typing import Any
from urllib.parse import urljoin

import extruct
import lxml.html
import trafilatura
from extruct.jsonld import JsonLdExtractor
from lxml import etree

from jobctrl.domain.posting import ExtractedPosting, SalaryRange

__all__ = [
    "extract_posting",
    "html_fragment_to_text",
    "job_posting_nodes",
    "normalise_text",
    "parse_html",
    "site_name",
]

_CHARSET_RE = re.compile(rb"""<meta[^>]+charset=["']?\s*([A-Za-z0-9_\-]+)""", re.IGNORECASE)
_ESCAPED_TAG_RE = re.compile(r"&lt;\s*/?\s*[a-zA-Z][a-zA-Z0-9]*[\s/&]", re.IGNORECASE)
_TAG_RE = re.compile(r"<\s*/?\s*[a-zA-Z][a-zA-Z0-9]*(\s[^<>]*)?/?\s*>")
_BULLET_RE = re.compile(r"^\s*(?:[-*+•·▪‣◦–—]|\d{1,2}[.)])\s+")
_MD_HEADING_RE = re.compile(r"^\s*#{1,6}\s+")
_MD_EMPHASIS_RE = re.compile(r"\*\*(.+?)\*\*|(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])")
_LOCATION_LABEL_RE = re.compile(
    r"^(?:job\s+)?(?:location|locations|office|based in|where)\s*[:\-–|]\s*(.{2,100})$",
    re.IGNORECASE,
)
_APPLY_TEXT_RE = re.compile(r"\bapply\b", re.IGNORECASE)
_JOB_POSTING_TYPES = frozenset(
    {
        "jobposting",
        "schema:jobposting",
        "http://schema.org/jobposting",
        "https://schema.org/jobposting",
    }
)

_BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "footer", "form", "header", "hr", "main", "nav", "ol", "p",
    "pre", "section", "table", "tbody", "thead", "tfoot", "tr", "ul",
}  # fmt: skip
_HEADING_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_SKIP_TAGS = {"script", "style", "noscript", "template", "head", "svg"}


# -- public entry point ---------------------------------------------------------------------


def extract_posting(html: bytes | str, url: str) -> ExtractedPosting:
    """Extract title, company, location, salary, description, ... from one posting page."""
    tree = parse_html(html)
    if tree is None:
        return ExtractedPosting()
    posting = _find_job_posting(tree, url)
    if posting is not None:
        result = _from_json_ld(posting, tree, url)
        if not result.description:
            text, _ = _main_text(tree, url, want_title=False)
            result = result.model_copy(update={"description": text})
        return result
    return _from_main_text(tree, url)


# -- parsing ---------------------------------------------------------------------------------


def parse_html(html: bytes | str) -> lxml.html.HtmlElement | None:
    """The page as an lxml tree (its <meta charset> honoured), or None if it is empty or
    not HTML."""
    data = html.encode("utf-8") if isinstance(html, str) else html
    if not data.strip():
        return None
    # A str is already decoded (we re-encode it as UTF-8); bytes follow their <meta charset>.
    match = None if isinstance(html, str) else _CHARSET_RE.search(data[:4096])
    encoding = match.group(1).decode("ascii").lower() if match else "utf-8"
    try:
        "".encode(encoding)
    except LookupError:
        encoding = "utf-8"
    parser = lxml.html.HTMLParser(encoding=encoding)
    try:
        return lxml.html.document_fromstring(data, parser=parser)
    except (etree.ParserError, ValueError):
        return None


# -- JSON-LD ---------------------------------------------------------------------------------


def _json_ld_items(tree: lxml.html.HtmlElement, url: str) -> list[Any]:
    try:
        data = extruct.extract(tree, base_url=url, syntaxes=["json-ld"], errors="strict")
        return list(data.get("json-ld", []))
    except Exception:
        # One malformed block makes extruct drop the whole page; salvage the good blocks.
        items: list[Any] = []
        extractor = JsonLdExtractor()
        for node in tree.xpath('//script[@type="application/ld+json"]'):
            try:
                items.extend(extractor.extract_items(node))
            except Exception:
                continue
        return items


def _walk(node: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    if depth > 6:
        return
    if isinstance(node, list):
        for item in node:
            yield from _walk(item, depth + 1)
    elif isinstance(node, dict):
        yield node
        for key, value in node.items():
            if key in ("@graph", "mainEntity", "mainEntityOfPage", "itemListElement", "item"):
                yield from _walk(value, depth + 1)


def _types(node: dict[str, Any]) -> set[str]:
    raw = node.get("@type", [])
    values = raw if isinstance(raw, list) else [raw]
    return {str(v).strip().lower() for v in values}


def job_posting_nodes(tree: lxml.html.HtmlElement, url: str) -> list[dict[str, Any]]:
    """Every schema.org ``JobPosting`` object in the page's JSON-LD (a careers page may
    hold several), with ``{"@id": ...}`` references (common inside @graph) resolved one
    level deep."""
    nodes = list(_walk(_json_ld_items(tree, url)))
    by_id = {n["@id"]: n for n in nodes if isinstance(n.get("@id"), str)}
    return [
        {k: _resolve(v, by_id) for k, v in node.items()}
        for node in nodes
        if _types(node) & _JOB_POSTING_TYPES
    ]


def _find_job_posting(tree: lxml.html.HtmlElement, url: str) -> dict[str, Any] | None:
    found = job_posting_nodes(tree, url)
    return found[0] if found else None


def _resolve(value: Any, by_id: dict[str, dict[str, Any]]) -> Any:
    if isinstance(value, dict) and set(value) == {"@id"} and value["@id"] in by_id:
        return by_id[value["@id"]]
    if isinstance(value, list):
        return [_resolve(v, by_id) for v in value]
    return value


def _text(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("name") or value.get("@value")
    if value is None or isinstance(value, (dict, list)):
        return None
    text = " ".join(html_lib.unescape(str(value)).split())
    return text or None


def _name(value: Any) -> str | None:
    """A name (title, company): text with a letter in it, as a string or an object's
    ``name``; a number, a boolean or an empty value is not one (malformed JSON-LD)."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("name")
    if not isinstance(value, str):
        return None
    text = _text(value)
    return text if text and any(ch.isalpha() for ch in text) else None


def _date(value: Any) -> str | None:
    """An ISO 8601 date or date-time as the page gave it; anything else is dropped."""
    text = _text(value) if isinstance(value, str) else None
    if text is None:
        return None
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            date.fromisoformat(text[:10])
        except ValueError:
            return None
    return text


def _page_title(tree: lxml.html.HtmlElement) -> str | None:
    """The page's own heading, else its <title>: the fallback when JSON-LD names none."""
    for xpath in ("//h1", "//title"):
        found = tree.xpath(xpath)
        if found and (text := _name(found[0].text_content())):
            return text
    return None


def _from_json_ld(node: dict[str, Any], tree: lxml.html.HtmlElement, url: str) -> ExtractedPosting:
    location = _location(node.get("jobLocation"))
    remote = _is_remote(node, location)
    if location is None and remote:
        names = _place_names(node.get("applicantLocationRequirements"))
        location = f"Remote ({', '.join(names)})" if names else "Remote"
    elif location is None:
        location = _labelled_location(tree)  # e.g. "Location: Berlin" on the page itself
    description = node.get("description")
    if isinstance(description, list):
        description = "\n".join(d for d in description if isinstance(d, str))
    return ExtractedPosting(
        title=_name(node.get("title")) or _name(node.get("name")) or _page_title(tree),
        company=_name(node.get("hiringOrganization")) or site_name(tree),
        location=location,
        remote=remote,
        salary=_salary(node.get("baseSalary")) or _salary(node.get("estimatedSalary")),
        description=html_fragment_to_text(description) if isinstance(description, str) else "",
        apply_url=_json_ld_apply_url(node, tree, url),
        date_posted=_date(node.get("datePosted")),
        valid_through=_date(node.get("validThrough")),
        method="json-ld",
    )


def _address_text(address: Any) -> str | None:
    if isinstance(address, list):
        address = address[0] if address else None
    if isinstance(address, str):
        return _text(address)
    if not isinstance(address, dict):
        return None
    parts: list[str] = []
    for key in ("addressLocality", "addressRegion", "addressCountry"):
        part = _text(address.get(key))
        if part and part not in parts:
            parts.append(part)
    return ", ".join(parts) or None


def _location(value: Any) -> str | None:
    places = value if isinstance(value, list) else [value]
    texts: list[str] = []
    for place in places:
        if isinstance(place, str):
            text = _text(place)
        elif isinstance(place, dict):
            text = _address_text(place.get("address")) or _text(place.get("name"))
            if text is None and place.get("@type") == "PostalAddress":
                text = _address_text(place)
        else:
            text = None
        if text and text not in texts:
            texts.append(text)
    return "; ".join(texts) or None


def _place_names(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [name for v in values if (name := _text(v))]


def _is_remote(node: dict[str, Any], location: str | None) -> bool | None:
    kinds = node.get("jobLocationType")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if any(isinstance(k, str) and k.strip().upper() == "TELECOMMUTE" for k in kinds):
        return True
    if node.get("applicantLocationRequirements"):
        return True
    if location is None:
        return None  # no place and no remote marker: unknown
    # A place without a TELECOMMUTE marker: on-site or hybrid, unless the place says remote.
    return "remote" in location.lower()


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        cleaned = re.sub(r"[^\d.]", "", value.replace(",", ""))
        try:
            return float(cleaned) if cleaned else None
        except ValueError:
            return None
    return None


def _salary(value: Any) -> SalaryRange | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if value is None:
        return None
    currency: str | None = None
    amount: Any = value
    if isinstance(value, dict):
        currency = _text(value.get("currency")) or _text(value.get("salaryCurrency"))
        amount = value.get("value", value)
    period = None
    if isinstance(amount, dict):
        lo = _number(amount.get("minValue"))
        hi = _number(amount.get("maxValue"))
        single = _number(amount.get("value"))
        lo = lo if lo is not None else single
        hi = hi if hi is not None else single
        period = _text(amount.get("unitText"))
    else:
        lo = hi = _number(amount)
    if isinstance(value, dict) and period is None:
        period = _text(value.get("unitText"))
    if lo is None and hi is None:
        return None
    return SalaryRange(min=lo, max=hi, currency=currency, period=period.upper() if period else None)


def _json_ld_apply_url(node: dict[str, Any], tree: lxml.html.HtmlElement, url: str) -> str | None:
    actions = node.get("potentialAction")
    for action in actions if isinstance(actions, list) else [actions]:
        if isinstance(action, dict) and "apply" in str(action.get("@type", "")).lower():
            target = action.get("target")
            if isinstance(target, dict):
                target = target.get("urlTemplate") or target.get("url")
            if isinstance(target, str) and target.strip():
                return urljoin(url, target.strip())
    for key in ("applicationUrl", "url"):
        link = node.get(key)
        if isinstance(link, str) and link.strip():
            return urljoin(url, link.strip())
    link = _apply_link(tree, url)
    if link:
        return link
    return url if node.get("directApply") in (True, "true", "True") else None


# -- page metadata and main text ------------------------------------------------------------


def site_name(tree: lxml.html.HtmlElement) -> str | None:
    for xpath in (
        '//meta[@property="og:site_name"]/@content',
        '//meta[@name="og:site_name"]/@content',
    ):
        values = tree.xpath(xpath)
        if values and str(values[0]).strip():
            return _text(values[0])
    return None


def _apply_link(tree: lxml.html.HtmlElement, url: str) -> str | None:
    for anchor in tree.iter("a"):
        href = (anchor.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "mailto:")):
            continue
        if _APPLY_TEXT_RE.search(anchor.text_content() or "") or "/apply" in href.lower():
            return urljoin(url, href)
    return None


def _labelled_location(tree: lxml.html.HtmlElement) -> str | None:
    for element in tree.iter("p", "li", "span", "div", "dd", "dt", "strong"):
        if element.tag == "dt" and (element.text_content() or "").strip().lower() == "location":
            sibling = element.getnext()
            if sibling is not None and sibling.tag == "dd":
                return _text(sibling.text_content())
        text = " ".join((element.text_content() or "").split())
        if len(text) > 120:
            continue
        match = _LOCATION_LABEL_RE.match(text)
        if match:
            # "Berlin, Germany · Full-time" -> keep the place only.
            return re.split(r"\s+[·|•]\s+", match.group(1))[0].strip() or None
    return None


def _main_text(
    tree: lxml.html.HtmlElement, url: str, *, want_title: bool = True
) -> tuple[str, str | None]:
    """Main text (markdown-ish, normalised) and title from trafilatura, or ("", None).
    Without ``want_title`` (the page has its own heading) the title is not looked for:
    trafilatura's metadata pass (title, dates, authors) is most of its time."""
    options: dict[str, Any] = {
        "url": url,
        "include_formatting": True,
        "with_metadata": want_title,
    }
    doc = trafilatura.bare_extraction(tree, fast=True, **options)
    if doc is None or len(getattr(doc, "text", "") or "") < 200:
        # The quick pass found little; the fallback extractors cost ~3x but catch more.
        fallback = trafilatura.bare_extraction(tree, favor_recall=True, **options)
        if fallback is not None and len(getattr(fallback, "text", "") or "") > len(
            getattr(doc, "text", "") or ""
        ):
            doc = fallback
    if doc is None:
        return "", None
    return normalise_text(getattr(doc, "text", "") or ""), _text(getattr(doc, "title", None))


def _from_main_text(tree: lxml.html.HtmlElement, url: str) -> ExtractedPosting:
    # Read everything we need from the tree first: trafilatura cleans it in place.
    company = site_name(tree)
    location = _labelled_location(tree)
    apply_url = _apply_link(tree, url)
    h1 = tree.xpath("//h1")
    heading = _text(h1[0].text_content()) if h1 else None
    description, title = _main_text(tree, url, want_title=heading is None)
    title = heading or title
    if not description and not title:
        return ExtractedPosting(company=company, location=location, apply_url=apply_url)
    lines = description.splitlines()
    if title and lines and lines[0].strip() == title:
        description = "\n".join(lines[1:]).strip()
    remote = True if location and "remote" in location.lower() else None
    return ExtractedPosting(
        title=title,
        company=company,
        location=location,
        remote=remote,
        description=description,
        apply_url=apply_url,
        method="main-text",
    )


# -- HTML fragment -> structured plain text --------------------------------------------------
# trafilatura decides what is "main content" on a whole page and would discard or reflow
# parts of a short description fragment, so JSON-LD descriptions get this small converter
# that keeps every heading and list item.


class _TextBuilder:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.current: list[str] = []
        self.bullet_pending = False  # the next non-empty line is a list item

    def start_item(self) -> None:
        self.flush()
        self.bullet_pending = True

    def add(self, text: str | None) -> None:
        if text:
            self.current.append(text)

    def flush(self, blank: bool = False) -> None:
        line = " ".join("".join(self.current).split())
        self.current = []
        if line and self.bullet_pending:
            line = f"- {line}"
            self.bullet_pending = False
        if line:
            self.lines.append(line)
        if blank and self.lines and self.lines[-1] != "":
            self.lines.append("")


def _render(element: etree._Element, out: _TextBuilder) -> None:
    tag = element.tag if isinstance(element.tag, str) else ""
    tag = tag.lower()
    if tag in _SKIP_TAGS or not tag:
        out.add(element.tail)
        return
    if tag == "br":
        out.flush()
    elif tag == "li":
        out.start_item()
    elif tag in _HEADING_TAGS:
        out.flush(blank=True)
    elif tag in _BLOCK_TAGS or tag == "td":
        out.flush(blank=tag in {"p", "ul", "ol", "table", "section", "blockquote"})
    if tag == "td":
        out.add(" ")
    out.add(element.text)
    for child in element:
        _render(child, out)
    if tag in _HEADING_TAGS or tag in {"p", "ul", "ol", "table", "section", "blockquote"}:
        out.flush(blank=True)
    elif tag in _BLOCK_TAGS or tag == "li":
        out.flush()
        out.bullet_pending = False
    out.add(element.tail)


def html_fragment_to_text(fragment: str) -> str:
    """Turn a description (HTML, HTML-escaped HTML, or plain text) into structured text."""
    text = fragment
    for _ in range(2):  # descriptions are sometimes escaped once, rarely twice
        if _ESCAPED_TAG_RE.search(text) and not _TAG_RE.search(text):
            text = html_lib.unescape(text)
    if not _TAG_RE.search(text):
        return normalise_text(html_lib.unescape(text))
    try:
        root = lxml.html.fragment_fromstring(text, create_parent="div")
    except (etree.ParserError, ValueError):
        return normalise_text(html_lib.unescape(_TAG_RE.sub(" ", text)))
    out = _TextBuilder()
    _render(root, out)
    out.flush()
    return normalise_text("\n".join(out.lines))


def normalise_text(text: str) -> str:
    """Strip markdown markers, turn any bullet style into "- ", and collapse blank lines."""
    lines: list[str] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = _MD_HEADING_RE.sub("", raw)
        line = _MD_EMPHASIS_RE.sub(lambda m: m.group(1) or m.group(2) or "", line)
        line = " ".join(line.replace("\u00a0", " ").split())
        if _BULLET_RE.match(line):
            line = "- " + _BULLET_RE.sub("", line, count=1)
            if line == "- ":
                continue
        if line.startswith("- ") and len(lines) >= 2 and not lines[-1] and lines[-2][:2] == "- ":
            lines.pop()  # keep a list together: no blank line between its items
        if line or (lines and lines[-1]):
            lines.append(line)
    return "\n".join(lines).strip()
