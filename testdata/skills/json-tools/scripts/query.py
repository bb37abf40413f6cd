#!/usr/bin/env python3
"""Pretty-print a JSON file, or the part of it a dotted path selects.

Standard library only; output is deterministic for a given input.
"""

import argparse
import json
import os
import sys


class QueryError(Exception):
    pass


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="query.py",
        description="Print a JSON file, or the value at a dotted path in it.",
        epilog="Path examples: owner.team  items.0.name  items.-1  items.*.sku  limits[max.items]",
    )
    p.add_argument("file", metavar="FILE", help="the JSON file ('-' reads standard input)")
    p.add_argument("path", metavar="PATH", nargs="?", default="", help="dotted path to select (default: the whole document)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--raw", action="store_true", help="print strings and numbers without JSON quoting, one per line")
    mode.add_argument("--keys", action="store_true", help="print the keys of an object (or the indexes of a list), one per line")
    mode.add_argument("--compact", action="store_true", help="print JSON on one line")
    p.add_argument("--sort-keys", action="store_true", help="sort object keys in the output")
    p.add_argument("--out", metavar="FILE", help="write the output to FILE instead of standard output")
    return p.parse_args(argv)


def split_path(path):
    """Split "a.b[c.d].0" into ["a", "b", "c.d", "0"]; brackets quote a key holding dots."""
    parts, cur, i = [], "", 0
    while i < len(path):
        ch = path[i]
        if ch == ".":
            parts.append(cur)
            cur = ""
        elif ch == "[":
            end = path.find("]", i)
            if end < 0:
                raise QueryError(f"unclosed '[' in path {path!r}")
            if cur:
                parts.append(cur)
            parts.append(path[i + 1:end])
            i = end + 1
            if i < len(path) and path[i] == ".":
                i += 1
            cur = ""
            if i >= len(path):
                return parts
            continue
        else:
            cur += ch
        i += 1
    parts.append(cur)
    return parts


def step(values, key, where):
    out = []
    for v in values:
        if key == "*":
            if isinstance(v, dict):
                out.extend(v.values())
            elif isinstance(v, list):
                out.extend(v)
            else:
                raise QueryError(f"{where or '(top)'} is {kind(v)}; '*' needs an object or a list")
        elif isinstance(v, dict):
            if key not in v:
                raise QueryError(f"{where or '(top)'} has no key {key!r}; its keys are: {', '.join(v) or '(none)'}")
            out.append(v[key])
        elif isinstance(v, list):
            try:
                out.append(v[int(key)])
            except ValueError:
                raise QueryError(f"{where or '(top)'} is a list; {key!r} is not an index") from None
            except IndexError:
                raise QueryError(f"{where or '(top)'} has {len(v)} items; there is no index {key}") from None
        else:
            raise QueryError(f"{where or '(top)'} is {kind(v)}; it has no {key!r}")
    return out


def kind(v):
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(type(v), "a number")


def select(doc, path):
    if path == "":
        return doc, False
    values, where, wildcard = [doc], "", False
    for key in split_path(path):
        if key == "":
            raise QueryError(f"empty part in path {path!r}")
        values = step(values, key, where)
        wildcard = wildcard or key == "*"
        where = f"{where}.{key}" if where else key
    return (values if wildcard else values[0]), wildcard


def render(value, wildcard, args):
    if args.keys:
        if isinstance(value, dict):
            return list(value)
        if isinstance(value, list):
            return [str(i) for i in range(len(value))]
        raise QueryError(f"--keys needs an object or a list, not {kind(value)}")
    if args.raw:
        items = value if wildcard or isinstance(value, list) else [value]
        return [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=args.sort_keys) for v in items]
    if args.compact:
        return [json.dumps(value, ensure_ascii=False, sort_keys=args.sort_keys, separators=(",", ":"))]
    return [json.dumps(value, ensure_ascii=False, sort_keys=args.sort_keys, indent=2)]


def load(name):
    try:
        if name == "-":
            return json.load(sys.stdin)
        with open(name, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise QueryError(f"cannot read {name}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise QueryError(f"{name}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from e
    except UnicodeDecodeError as e:
        raise QueryError(f"{name}: not UTF-8 text: {e.reason}") from e


def main(argv):
    args = parse_args(argv)
    try:
        value, wildcard = select(load(args.file), args.path)
        text = "\n".join(render(value, wildcard, args)) + "\n"
    except QueryError as e:
        print(f"query.py: {e}", file=sys.stderr)
        return 1
    if not args.out:
        sys.stdout.write(text)
        return 0
    try:
        with open(os.path.expanduser(args.out), "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        print(f"query.py: cannot write {args.out}: {e.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
