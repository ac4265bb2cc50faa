"""Reads what Nsight Compute prints with `ncu --csv --page raw --print-units base`: one header line
of column names, one line of units, then one line per profiled kernel launch. Each launch becomes
a dict from column name to value; a metric's value is a float where it reads as a number (ncu may
group digits with commas: "1,048,576"), the text otherwise. Lines ncu writes around the table
(`==PROF==` notes, the program's own output) are skipped. Standard library only.
"""

import csv
import io


# Columns that hold text even when it reads as a number.
TEXT_COLUMNS = ("Kernel Name", "Device", "Host Name", "Process Name",
                "device__attribute_display_name")


class NcuCsvError(Exception):
    """The text holds no table of launches; the message says why."""


def _number(text):
    """@p text as a float, or None when it is not a number."""
    cleaned = text.replace(",", "").strip()
    if not cleaned or cleaned.lower() in ("n/a", "nan"):
        return None
    try:
        return float(cleaned)
    except ValueError:
        return None


def parse(text):
    """The launches in @p text (ncu's raw CSV page), oldest first, each a dict."""
    return parse_with_units(text)[0]


def parse_with_units(text):
    """(launches, units): the launches in @p text as dicts, and the unit of each column."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    if not lines:
        raise NcuCsvError("no CSV table in ncu's output (was the program profiled at all? "
                          "ncu prints one only when a kernel ran)")
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header = rows[0]
    if "Kernel Name" not in header:
        raise NcuCsvError("ncu's table has no 'Kernel Name' column: not a --page raw table")
    units = dict(zip(header, rows[1])) if len(rows) > 1 else {}
    launches = []
    for row in rows[2:]:
        if len(row) != len(header):
            raise NcuCsvError(f"a line of ncu's table has {len(row)} fields, the header "
                              f"{len(header)}")
        launch = {}
        for name, value in zip(header, row):
            number = None if name in TEXT_COLUMNS else _number(value)
            launch[name] = value if number is None else number
        launches.append(launch)
    if not launches:
        raise NcuCsvError("ncu's table lists no kernel launch")
    return launches, units
