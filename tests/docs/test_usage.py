# SPDX-License-Identifier: MIT
"""tests/docs/test_usage.py: docs/usage.md names every configuration
statement, console command and application the sources register.

The sources are read, not run, so the check follows code that moves
between folders: every .c and .h file in kernel/, drivers/, apps/ and lib/
at any depth. A name is registered by
  - a call with a string literal first argument to a function whose name
    ends in cli_register or app_command (a command), config_register or
    app_statement (a statement), app_register (an application), or
    config_apply_only's keyword (a statement read before the others);
  - a designated initializer `.words = "..."` (a command) or
    `.keyword = "..."` (a statement), as in a driver's table;
  - a row `{"name", ...}` of an array of a struct type whose name holds
    cmd or command, stmt or statement, or app (an application).
A name counts as documented when some `code span` of docs/usage.md starts
with it as whole words: `show tcp` by `show tcp [summary] [json]`, the
application `http` by `app http port N`.
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE_DIRS = ("kernel", "drivers", "apps", "lib")

CALL = re.compile(r'\b(\w*(?:cli_register|app_command|config_register|app_statement|app_register))\s*\(\s*"([^"]+)"')
EARLY_STATEMENT = re.compile(r'\bconfig_apply_only\s*\([^;"]*?"([^"]+)"')
DESIGNATED = re.compile(r'\.(words|keyword)\s*=\s*"([^"]+)"')
TABLE = re.compile(r'\bstruct\s+(\w+)\s+(?:const\s+)?\w+\s*\[\w*\]\s*=\s*\{(.*?)\};', re.S)
ROW = re.compile(r'\{\s*"([^"]+)"')
CODE_SPAN = re.compile(r"`([^`\n]+)`")


def call_kind(fn):
    if fn.endswith("app_register"):
        return "app"
    if fn.endswith(("cli_register", "app_command")):
        return "command"
    return "statement"


def table_kind(struct_name):
    n = struct_name.lower()
    if "cmd" in n or "command" in n:
        return "command"
    if "stmt" in n or "statement" in n:
        return "statement"
    if "app" in n:
        return "app"
    return None


def source_files(root):
    for top in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.join(dirpath, f)


def registrations(root=ROOT):
    """(kind, name, where) for every registration in the sources."""
    found = []
    for path in source_files(root):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        where = os.path.relpath(path, root)
        for m in CALL.finditer(text):
            found.append((call_kind(m.group(1)), m.group(2), where))
        for m in EARLY_STATEMENT.finditer(text):
            found.append(("statement", m.group(1), where))
        for m in DESIGNATED.finditer(text):
            found.append(("command" if m.group(1) == "words" else "statement", m.group(2), where))
        for m in TABLE.finditer(text):
            kind = table_kind(m.group(1))
            if kind:
                found += [(kind, r, where) for r in ROW.findall(m.group(2))]
    return found


def documented_spans(root=ROOT):
    with open(os.path.join(root, "docs", "usage.md"), encoding="utf-8") as f:
        return [" ".join(s.split()) for s in CODE_SPAN.findall(f.read())]


def mentioned(phrase, spans):
    """Some span starts with phrase as whole words."""
    n = len(phrase)
    return any(s.startswith(phrase) and (len(s) == n or not (s[n].isalnum() or s[n] in "-_")) for s in spans)


def missing(root=ROOT):
    spans = documented_spans(root)
    out = set()
    for kind, name, where in registrations(root):
        phrase = "app " + name if kind == "app" else name
        if not mentioned(phrase, spans):
            out.add(f"{kind} '{phrase}' ({where})")
    return sorted(out)


def test_sources_register_something():
    kinds = {k for k, _, _ in registrations()}
    assert {"command", "statement", "app"} <= kinds, \
        f"found only {sorted(kinds)}: has the way statements, commands or apps register changed?"


def test_every_statement_command_and_app_is_in_usage_md():
    gaps = missing()
    assert not gaps, "docs/usage.md does not mention:\n  " + "\n  ".join(gaps)
