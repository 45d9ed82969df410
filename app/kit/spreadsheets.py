"""The one home of every CSV and XLSX export: cells a spreadsheet shows, never runs or follows.

Exported cells hold user text (names, emails, sections, titles). A spreadsheet that opens the
file may treat such text as something to act on:

* **Formulas** (CSV injection): a cell starting with ``=``, ``+``, ``-`` or ``@`` — or a TAB or CR
  before one — is a formula to Excel, LibreOffice and Sheets, including DDE
  (``=cmd|'/c calc'!A0``) and ``=HYPERLINK(...)``. Every such text cell gets a leading ``'``
  (:func:`safe_cell`), in CSV and XLSX alike, so it shows as the text it is.
* **Links**: xlsxwriter turns text that looks like a URL (``https://``, ``file:///\\\\host\\…``,
  ``mailto:``) into a clickable hyperlink unless told not to; the workbook here never does
  (``strings_to_urls`` off), and text is always written as a string, never as a formula or a
  number it happens to look like.
* **Cells split or merged**: a CSV field holding the delimiter — ``,`` or, where the reader's
  locale uses it, ``;`` or TAB — a quote or a line break is quoted per RFC 4180 (quotes doubled),
  so one cell stays one cell in every reader (:func:`csv_field`).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from typing import Any

import xlsxwriter

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NEEDS_QUOTES = frozenset(',;"\r\n\t')
CSV_MEDIA_TYPE = "text/csv; charset=utf-8"
XLSX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def safe_cell(value: Any) -> Any:
    """The value as a spreadsheet may hold it: text that would start a formula gets a leading ``'``.

    Numbers (``int``/``float``, not ``bool``) and ``None`` pass unchanged; anything else is text.
    """
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_field(value: Any) -> str:
    """One CSV field (RFC 4180): neutralised, then quoted when it holds a delimiter, quote or line break."""
    cell = safe_cell(value)
    text = "" if cell is None else str(cell)
    if _NEEDS_QUOTES.intersection(text) or text != text.strip(" "):
        return '"' + text.replace('"', '""') + '"'
    return text


def to_csv(rows: Iterable[Sequence[Any]]) -> bytes:
    """UTF-8 with a BOM (spreadsheets then read accents right), CRLF line ends (RFC 4180)."""
    lines = (",".join(csv_field(value) for value in row) + "\r\n" for row in rows)
    return "\ufeff".encode() + "".join(lines).encode("utf-8")


def to_xlsx(rows: Iterable[Sequence[Any]], sheet_name: str) -> bytes:
    """One worksheet; the first row bold. Text is written as text: no formula, no link, no number."""
    out = io.BytesIO()
    workbook = xlsxwriter.Workbook(
        out,
        {
            "in_memory": True,
            "strings_to_formulas": False,
            "strings_to_urls": False,
            "strings_to_numbers": False,
        },
    )
    sheet = workbook.add_worksheet(sheet_name)
    bold = workbook.add_format({"bold": True})
    for r, row in enumerate(rows):
        style = bold if r == 0 else None
        for c, value in enumerate(row):
            cell = safe_cell(value)
            if cell is None:
                sheet.write_blank(r, c, None, style)
            elif isinstance(cell, str):
                sheet.write_string(r, c, cell, style)
            else:
                sheet.write_number(r, c, cell, style)
    workbook.close()
    return out.getvalue()
