"""Text out of a resume PDF, laid out as the reader sees it (pdfplumber).

Why pdfplumber (over pypdf's text extraction, which the project also ships): a resume's
meaning is in its layout — dates in a right-hand column on the line of a role, a left
date column, a sidebar beside the main column — and pdfplumber gives every word with its
box, size and font, so lines, columns and the short texts set apart on a line are found
from positions rather than guessed from the order a PDF happens to draw its text in. It
is pure Python over pdfminer.six, maintained, MIT-licensed.

What it does:
- words are grouped into lines by their vertical middle; a line is split where the gap
  between two words is wider than a few spaces: the longest part is the line's text, the
  others its ``aside`` (a date column, a place, a degree column);
- a page whose words split cleanly at a vertical gutter into two columns, each holding a
  good share of the words and the narrower one a heading of its own (a sidebar), is read
  column by column (a right-hand date column is too sparse to count and stays ``aside``);
- type larger than the body's marks a heading; icon-font glyphs are dropped; link
  annotations give the document's URLs;
- running headers and footers (the same line at the top or bottom of two pages, digits
  aside) and page numbers ("2", "Page 2 of 3", "Jane Doe – 2/2") are dropped.

Bounds: at most ``MAX_PAGES`` pages; an encrypted file that will not open without a
password, and a file without a text layer (a scan: there is no OCR), are refused with a
message that says so.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise
from pathlib import Path
from statistics import median
from typing import Any

import pdfplumber
from pdfminer.pdfdocument import PDFPasswordIncorrect
from pdfplumber.utils.exceptions import PdfminerException

from jobctrl.profile_import.dates import find_range, is_duration, strip_range
from jobctrl.profile_import.errors import ProfileImportError
from jobctrl.profile_import.lines import Extracted, Line, split_bullet

__all__ = ["MAX_PAGES", "extract_pdf"]

MAX_PAGES = 10  # a long academic CV is 5–8
_MIN_TEXT = 40  # characters: fewer in a file with pages is a scan (or blank)
_ICONS = re.compile(r"[\ue000-\uf8ff\U000f0000-\U000fffff]")
_PAGE_NUMBER = re.compile(
    r"^(?:.{0,60}?[\s–—-])?(?:page\s*)?\d{1,2}\s*(?:/|of|von)\s*\d{1,2}$|^(?:page\s*)?[-–—]?\s*\d{1,2}\s*[-–—]?$",
    re.IGNORECASE,
)


# "Page 2 of 3" wherever a column layout puts it.
_PAGE_OF = re.compile(r"^(?:page|seite)\s*\d{1,2}\s*(?:/|of|von)\s*\d{1,2}$", re.IGNORECASE)


def extract_pdf(path: Path) -> Extracted:
    try:
        pdf = pdfplumber.open(path)
    except PdfminerException as exc:
        if isinstance(exc.args[0] if exc.args else None, PDFPasswordIncorrect):
            raise ProfileImportError(
                f"{path}: the PDF is password-protected; save a copy without a password "
                "(or export it again) and import that"
            ) from None
        raise ProfileImportError(f"{path}: not a readable PDF") from None
    except Exception:  # pdfminer raises many kinds on a damaged file
        raise ProfileImportError(f"{path}: not a readable PDF") from None
    with pdf:
        if len(pdf.pages) > MAX_PAGES:
            raise ProfileImportError(
                f"{path}: {len(pdf.pages)} pages; a resume of at most {MAX_PAGES} pages "
                "can be imported"
            )
        pages = [_page_words(page) for page in pdf.pages]
        chars = sum(len(w["text"]) for words in pages for w in words)
        if chars < _MIN_TEXT:
            images = any(page.images for page in pdf.pages)
            raise ProfileImportError(
                f"{path}: the PDF has no text layer"
                + (" (it looks like a scan or a photo)" if images else "")
                + "; jobctrl reads text, not images (there is no OCR): export the resume "
                "from the program that made it, or import a Word, text or JSON Resume file"
            )
        links = [str(h["uri"]) for page in pdf.pages for h in page.hyperlinks if h.get("uri")]
        count = len(pdf.pages)
    body = _body_size(pages)
    per_page = [_page_lines(words, body) for words in pages]
    lines = [line for page in _without_running_lines(per_page) for line in page]
    return Extracted(lines=lines, links=list(dict.fromkeys(links)), pages=count)


def _page_words(page: Any) -> list[dict[str, Any]]:
    words = page.extract_words(extra_attrs=["size", "fontname"], x_tolerance=2, y_tolerance=2)
    out = []
    for w in words:
        text = _ICONS.sub("", w["text"]).strip()
        if text:
            out.append({**w, "text": text})
    return out


def _body_size(pages: list[list[dict[str, Any]]]) -> float:
    sizes: Counter[float] = Counter()
    for words in pages:
        for w in words:
            sizes[round(float(w["size"]), 1)] += len(w["text"])
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _rows(words: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Words grouped into visual lines (by vertical middle), each sorted left to right."""
    rows: list[list[dict[str, Any]]] = []
    for w in sorted(words, key=lambda w: (w["top"] + w["bottom"]) / 2):
        middle = (w["top"] + w["bottom"]) / 2
        if rows:
            last = rows[-1]
            mid = median((x["top"] + x["bottom"]) / 2 for x in last)
            if abs(middle - mid) <= 0.45 * max(float(w["size"]), float(last[0]["size"])):
                last.append(w)
                continue
        rows.append([w])
    return [sorted(row, key=lambda w: w["x0"]) for row in rows]


def _segments(row: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    parts: list[list[dict[str, Any]]] = [[row[0]]]
    for prev, w in pairwise(row):
        gap = w["x0"] - prev["x1"]
        if gap > max(7.0, 0.75 * float(w["size"])):
            parts.append([w])
        else:
            parts[-1].append(w)
    return parts


def _text(words: list[dict[str, Any]]) -> str:
    """The words of a segment; a word drawn touching the one before it (a bold name, then
    its comma) is joined without a space."""
    out = words[0]["text"]
    for prev, w in pairwise(words):
        out += ("" if w["x0"] - prev["x1"] < 0.6 else " ") + w["text"]
    return out


def _gutter(words: list[dict[str, Any]], width: float, body: float) -> float | None:
    """The x of a vertical gap splitting the page into two real columns, or None."""
    if len(words) < 20:
        return None
    # Words crossing the gap are allowed on a few lines (a header, a footer across both).
    covered = [0] * int(width + 2)
    for w in words:
        for x in range(max(0, int(w["x0"]) - 1), min(len(covered), int(w["x1"]) + 2)):
            covered[x] += 1
    allowed = max(2, len(_rows(words)) // 15)
    best: tuple[int, int] | None = None
    run_start = None
    for x in range(int(width * 0.2), int(width * 0.8)):
        if covered[x] <= allowed:
            run_start = x if run_start is None else run_start
            if best is None or x - run_start > best[1] - best[0]:
                best = (run_start, x)
        else:
            run_start = None
    if best is None or best[1] - best[0] < 6:
        return None
    cut = (best[0] + best[1]) / 2
    left = [w for w in words if w["x1"] <= cut]
    right = [w for w in words if w["x0"] >= cut]
    if len(words) - len(left) - len(right) > allowed * 4:
        return None
    share = min(len(left), len(right)) / len(words)
    if share < 0.15:
        return None
    narrow = left if len(left) < len(right) else right
    # A sidebar has headings of its own; a date column has none.
    if not any(float(w["size"]) >= body * 1.15 for w in narrow):
        return None
    return cut


def _page_lines(words: list[dict[str, Any]], body: float) -> list[Line]:
    if not words:
        return []
    width = max(w["x1"] for w in words) + 1
    cut = _gutter(words, width, body)
    if cut is None:
        return _lines(_rows(words), body)
    # A line with a word across the gutter is full width (the name, a footer): the full
    # lines above the columns come first, then the left column, the right, the rest.
    rows = _rows(words)
    full = [r for r in rows if any(w["x0"] < cut < w["x1"] for w in r)]
    split = [w for r in rows if not any(w["x0"] < cut < w["x1"] for w in r) for w in r]
    top = min((w["top"] for w in split), default=0)
    above = [r for r in full if max(w["bottom"] for w in r) <= top]
    below = [w for r in full if max(w["bottom"] for w in r) > top for w in r]
    out = _lines(above, body)
    for column in ([w for w in split if w["x1"] <= cut], [w for w in split if w["x1"] > cut]):
        out += _lines(_rows(column), body)
    return out + _lines(_rows(below), body)


def _lines(rows: list[list[dict[str, Any]]], body: float) -> list[Line]:
    if not rows:
        return []
    margin = min(row[0]["x0"] for row in rows)
    lines: list[Line] = []
    prev_bottom: float | None = None
    for row in rows:
        parts = [_text(p) for p in _segments(row)]
        if len(parts) > 1 and split_bullet(parts[0] + " x")[1] == "x":  # a lone bullet mark
            parts = [f"{parts[0]} {parts[1]}", *parts[2:]]
        # The line's text is its longest part that is not a date or a duration.
        segments = _segments(row)
        main = max(range(len(parts)), key=lambda i: (not _dated(parts[i]), len(parts[i])))
        x0 = segments[main][0]["x0"] if len(segments) == len(parts) else row[0]["x0"]
        size = median(float(w["size"]) for w in row)
        bullet, text = split_bullet(parts[main])
        top = min(w["top"] for w in row)
        gap = prev_bottom is not None and top - prev_bottom > 0.75 * size
        prev_bottom = max(w["bottom"] for w in row)
        lines.append(
            Line(
                text=text,
                aside=[p for i, p in enumerate(parts) if i != main],
                indent=round(float(x0) - margin, 1),
                heading=size >= body * 1.15,
                bullet=bullet,
                gap_before=gap,
                size=size,
            )
        )
    return lines


def _dated(text: str) -> bool:
    found = find_range(text)
    return is_duration(text) or (found is not None and not strip_range(text, found))


def _key(line: Line) -> str:
    return re.sub(r"\d+", "#", " ".join([line.text, *line.aside]).casefold())


def _without_running_lines(pages: list[list[Line]]) -> list[list[Line]]:
    """Pages without page numbers and the header or footer lines repeated on them."""
    edges: Counter[str] = Counter()
    for lines in pages:
        keys = {_key(line) for line in (*lines[:2], *lines[-2:])} if len(lines) > 4 else set()
        edges.update(keys)
    running = {k for k, n in edges.items() if n >= 2 and len(pages) >= 2}
    out = []
    for lines in pages:
        kept = []
        for i, line in enumerate(lines):
            edge = i < 2 or i >= len(lines) - 2
            whole = " ".join([line.text, *line.aside]).strip()
            if (edge and (_key(line) in running or _PAGE_NUMBER.match(whole))) or (
                _PAGE_OF.match(whole)
            ):
                continue
            kept.append(line)
        out.append(kept)
    return out
