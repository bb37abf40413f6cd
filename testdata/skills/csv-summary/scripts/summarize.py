#!/usr/bin/env python3
"""Summarize a CSV file: per-column statistics, optional grouping, Markdown report.

Standard library only; output is deterministic for a given input.
"""

import argparse
import csv
import os
import re
import sys
from collections import Counter

NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="summarize.py",
        description="Summarize a CSV file with a header row.",
    )
    p.add_argument("csv", metavar="CSV", help="the CSV file to summarize")
    p.add_argument("--columns", help="comma-separated column names to summarize (default: all)")
    p.add_argument("--group-by", metavar="COLUMN", help="also total numeric columns per value of COLUMN")
    p.add_argument("--delimiter", default=",", help="field separator (default ',')")
    p.add_argument("--out", metavar="FILE", help="also write the summary as Markdown to FILE")
    args = p.parse_args(argv)
    if args.delimiter == "\\t":
        args.delimiter = "\t"
    if len(args.delimiter) != 1:
        p.error("--delimiter must be a single character")
    return args


def read_rows(path, delimiter):
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f, delimiter=delimiter)
            header = next(reader, None)
            if not header:
                raise ValueError(f"{path}: the file is empty; it needs a header row")
            rows = []
            for row in reader:
                if not any(cell.strip() for cell in row):
                    continue
                if len(row) > len(header):
                    raise ValueError(
                        f"{path}:{reader.line_num}: {len(row)} cells but the header has "
                        f"{len(header)}; is --delimiter right?"
                    )
                rows.append(row + [""] * (len(header) - len(row)))
            return [h.strip() for h in header], rows
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from e
    except (UnicodeDecodeError, csv.Error) as e:
        raise ValueError(f"cannot parse {path}: {e}") from e


def pick_columns(header, wanted, group_by):
    names = [c.strip() for c in wanted.split(",")] if wanted else list(header)
    for name in names + ([group_by] if group_by else []):
        if name not in header:
            raise ValueError(f"no column {name!r}; the columns are: {', '.join(header)}")
    return names


def fmt(x):
    return f"{x:.2f}"


def column_stats(name, cells):
    values = [c.strip() for c in cells if c.strip()]
    stats = {"column": name, "count": len(values), "empty": len(cells) - len(values)}
    if not values:
        stats["type"] = "empty"
        return stats
    if all(NUMBER.match(v) for v in values):
        nums = [float(v) for v in values]
        stats.update(type="numeric", min=fmt(min(nums)), max=fmt(max(nums)),
                     mean=fmt(sum(nums) / len(nums)), sum=fmt(sum(nums)))
        return stats
    counts = Counter(values)
    top, n = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    stats.update(type="text", min=min(values), max=max(values),
                 distinct=str(len(counts)), top=f"{top} ({n})")
    return stats


STAT_COLUMNS = ["column", "type", "count", "empty", "min", "max", "mean", "sum", "distinct", "top"]


def summary_table(header, rows, names):
    table = []
    for name in names:
        i = header.index(name)
        s = column_stats(name, [r[i] for r in rows])
        table.append([str(s.get(k, "")) for k in STAT_COLUMNS])
    return STAT_COLUMNS, table


def group_table(header, rows, group_by, stats):
    numeric = [r[0] for r in stats if r[1] == "numeric" and r[0] != group_by]
    gi = header.index(group_by)
    groups = {}
    for row in rows:
        groups.setdefault(row[gi].strip() or "(empty)", []).append(row)
    table = []
    for key in sorted(groups):
        line = [key, str(len(groups[key]))]
        for name in numeric:
            i = header.index(name)
            line.append(fmt(sum(float(r[i]) for r in groups[key] if r[i].strip())))
        table.append(line)
    return [group_by, "rows"] + [f"sum {n}" for n in numeric], table


def text_table(head, body):
    widths = [max(len(row[i]) for row in [head] + body) for i in range(len(head))]
    lines = []
    for row in [head, ["-" * w for w in widths]] + body:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return "\n".join(lines)


def markdown_table(head, body):
    def esc(cell):
        return cell.replace("|", "\\|")
    lines = ["| " + " | ".join(esc(c) for c in head) + " |",
             "|" + "|".join(" --- " for _ in head) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


def main(argv):
    args = parse_args(argv)
    try:
        header, rows = read_rows(args.csv, args.delimiter)
        names = pick_columns(header, args.columns, args.group_by)
    except ValueError as e:
        print(f"summarize.py: {e}", file=sys.stderr)
        return 1
    tables = [("Columns", summary_table(header, rows, names))]
    if args.group_by:
        all_stats = summary_table(header, rows, header)[1]
        tables.append((f"By {args.group_by}", group_table(header, rows, args.group_by, all_stats)))
    title = f"{os.path.basename(args.csv)}: {len(rows)} rows, {len(header)} columns"
    print(title)
    for heading, (head, body) in tables:
        print()
        print(heading)
        print(text_table(head, body))
    if args.out:
        return write_report(args.out, title, tables)
    return 0


def write_report(out, title, tables):
    path = os.path.expanduser(out)
    parts = [f"# {title}"]
    for heading, (head, body) in tables:
        parts.append(f"## {heading}\n\n{markdown_table(head, body)}")
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n\n".join(parts) + "\n")
    except OSError as e:
        print(f"summarize.py: cannot write {out}: {e.strerror}", file=sys.stderr)
        return 1
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
