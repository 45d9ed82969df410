"""Reading an XLSX back without a spreadsheet library: its cells, formulas and hyperlinks."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from html import unescape


@dataclass(frozen=True)
class Sheet:
    cells: list[tuple[str, str]]  # (type attribute, text) of each cell, in order
    formulas: int
    hyperlinks: int
    relationships: str

    def texts(self) -> list[str]:
        return [text for kind, text in self.cells if kind in ("s", "str", "inlineStr")]


def _unescape(text: str) -> str:
    """XML entities, then OOXML's ``_xHHHH_`` escapes of control characters."""
    return re.sub(r"_x([0-9A-Fa-f]{4})_", lambda m: chr(int(m.group(1), 16)), unescape(text))


def read_sheet(content: bytes) -> Sheet:
    archive = zipfile.ZipFile(io.BytesIO(content))
    names = archive.namelist()
    shared_xml = archive.read("xl/sharedStrings.xml").decode() if "xl/sharedStrings.xml" in names else ""
    shared = [_unescape(re.sub(r"<[^>]+>", "", si)) for si in re.findall(r"<si>(.*?)</si>", shared_xml, re.S)]
    sheet = archive.read("xl/worksheets/sheet1.xml").decode()
    cells: list[tuple[str, str]] = []
    for attributes, body in re.findall(r"<c ([^>]*?)(?:/>|>(.*?)</c>)", sheet, re.S):
        kind_match = re.search(r'\bt="([^"]+)"', attributes)
        kind = kind_match.group(1) if kind_match else "n"
        value_match = re.search(r"<v>(.*?)</v>", body or "", re.S)
        value = unescape(value_match.group(1)) if value_match else ""
        cells.append((kind, shared[int(value)] if kind == "s" else value))
    rels = [n for n in names if n.startswith("xl/worksheets/_rels/")]
    return Sheet(
        cells=cells,
        formulas=len(re.findall(r"<f[ >]", sheet)),
        hyperlinks=len(re.findall(r"<hyperlink ", sheet)),
        relationships="".join(archive.read(n).decode() for n in rels),
    )
