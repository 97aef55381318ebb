"""Word (.docx) resumes → lines, with python-docx (maintained, MIT; reads the document's
XML: paragraph styles, list numbering, tables, hyperlinks — what the layout says).

Paragraphs and tables in document order. A "Heading"/"Title" style marks a heading (its
level as the size: a Title is the largest); a list style or numbering marks a bullet; a
tab sets the rest of a paragraph apart (a right-aligned date after a tab stop); a table
row's cells are one line, its longest cell the text and the others beside it (a date
column); an empty paragraph is a gap. A password-protected file (Word encrypts the whole
package) and an old binary .doc are refused with the reason.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

import docx
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from jobctrl.profile_import.errors import ProfileImportError
from jobctrl.profile_import.lines import Extracted, Line, split_bullet

__all__ = ["extract_docx"]

_OLE = b"\xd0\xcf\x11\xe0"  # an encrypted .docx and an old .doc are OLE files, not zips
_MAX_PARAGRAPHS = 5_000
_MAX_BLOCKS = 20_000  # paragraphs and tables, empty ones too
_MAX_UNPACKED_BYTES = 50 * 2**20  # every part of the package, unpacked (images included)


def extract_docx(path: Path) -> Extracted:
    with path.open("rb") as f:
        magic = f.read(4)
    if magic == _OLE:
        raise ProfileImportError(
            f"{path}: the Word file is password-protected (or an old .doc); save it as a "
            ".docx without a password and import that"
        )
    _bounded(path)
    try:
        document = docx.Document(str(path))
        too_long = len(document.element.body) > _MAX_BLOCKS
        blocks = [] if too_long else _blocks(document)
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, AttributeError,
            etree.LxmlError):  # fmt: skip
        raise ProfileImportError(f"{path}: not a readable Word (.docx) file") from None
    if too_long:
        raise ProfileImportError(f"{path}: too long to be a resume")
    lines: list[Line] = []
    gap = False
    for block in blocks:
        for line in _block_lines(block, gap):
            if not line.text and not line.aside:
                gap = True
                continue
            lines.append(line)
            gap = False
        if len(lines) > _MAX_PARAGRAPHS:
            raise ProfileImportError(f"{path}: too long to be a resume")
    links = [
        rel.target_ref
        for rel in document.part.rels.values()
        if rel.reltype == RELATIONSHIP_TYPE.HYPERLINK and rel.is_external
    ]
    return Extracted(lines=lines, links=list(dict.fromkeys(links)))


def _bounded(path: Path) -> None:
    """Refuse a package whose parts unpack to more than a resume's worth of XML before
    anything is parsed (a small zip can hold a huge, repetitive document)."""
    try:
        with zipfile.ZipFile(path) as package:
            unpacked = sum(info.file_size for info in package.infolist())
    except (zipfile.BadZipFile, OSError):
        raise ProfileImportError(f"{path}: not a readable Word (.docx) file") from None
    if unpacked > _MAX_UNPACKED_BYTES:
        raise ProfileImportError(
            f"{path}: the document unpacks to {unpacked // 2**20} MB; a resume is far smaller"
        )


def _blocks(document: Any) -> list[Paragraph | Table]:
    body = document.element.body
    out: list[Paragraph | Table] = []
    for child in body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            out.append(Paragraph(child, document))
        elif tag == "tbl":
            out.append(Table(child, document))
    return out


def _paragraph_line(p: Paragraph, gap: bool) -> Line:
    style = (p.style.name if p.style is not None else "") or ""
    parts = [x.strip() for x in re.split(r"\t+", p.text) if x.strip()]
    if not parts:
        return Line("", gap_before=gap)
    numbered = p._p.pPr is not None and p._p.pPr.numPr is not None
    bullet, first = split_bullet(parts[0])
    level = re.match(r"Heading (\d)", style)
    size = 30.0 if style == "Title" else (20.0 - float(level[1]) if level else 10.0)
    return Line(
        first,
        parts[1:],
        heading=style == "Title" or bool(level),
        bullet=bullet or numbered or "List" in style,
        gap_before=gap,
        size=size,
    )


def _block_lines(block: Paragraph | Table, gap: bool) -> list[Line]:
    if isinstance(block, Paragraph):
        return [_paragraph_line(block, gap)]
    out: list[Line] = []
    for row in block.rows:
        cells = [[_paragraph_line(p, False) for p in c.paragraphs] for c in _unique_cells(row)]
        cells = [[x for x in c if x.text] for c in cells]
        cells = [c for c in cells if c]
        if not cells:
            continue
        main = max(range(len(cells)), key=lambda i: sum(len(x.text) for x in cells[i]))
        first, *rest = cells[main]
        first.aside += [" ".join(x.text for x in c) for i, c in enumerate(cells) if i != main]
        first.gap_before = gap or bool(out)
        out += [first, *rest]
        gap = False
    return out


def _unique_cells(row: Any) -> list[Any]:
    seen: list[Any] = []
    for cell in row.cells:  # a merged cell is listed once per grid column it spans
        if all(cell._tc is not s._tc for s in seen):
            seen.append(cell)
    return seen
