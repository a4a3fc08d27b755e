"""tests/docs/test_usage.py: docs/usage.md names every configuration
statement and console command the sources register.

The sources are read, not run: every call of a registration function whose
name ends in `cli_register`, `config_register` or `app_register` (with any
prefix, so a subsystem's own wrapper counts too) with a string literal
first argument, in kernel/, drivers/, apps/ and lib/ at any depth, so the
check follows code that moves between folders. A name counts as documented
when some `code span` of docs/usage.md starts with it: `show tcp` by
`show tcp [summary] [json]`, the app `http` by `app http port N`.
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE_DIRS = ("kernel", "drivers", "apps", "lib")
USAGE = os.path.join(ROOT, "docs", "usage.md")

# name(  "first argument"   -- also across a line break after the paren
REGISTRATION = re.compile(r'\b(\w*(?:cli|config|app)_register)\s*\(\s*"([^"]+)"')
# config_apply_only(text, len, "sriov", ...): a statement read before the rest
EARLY_STATEMENT = re.compile(r'\bconfig_apply_only\s*\([^;"]*?"([^"]+)"')
CODE_SPAN = re.compile(r"`([^`\n]+)`")


def registrations():
    """(kind, name, where) for every registration in the sources."""
    found = []
    for top in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if not f.endswith(".c"):
                    continue
                path = os.path.join(dirpath, f)
                text = open(path, encoding="utf-8").read()
                where = os.path.relpath(path, ROOT)
                for m in REGISTRATION.finditer(text):
                    fn, name = m.groups()
                    kind = "app" if fn.endswith("app_register") else \
                        "command" if fn.endswith("cli_register") else "statement"
                    found.append((kind, name, where))
                for m in EARLY_STATEMENT.finditer(text):
                    found.append(("statement", m.group(1), where))
    return found


def documented_spans():
    with open(USAGE, encoding="utf-8") as f:
        return [" ".join(s.split()) for s in CODE_SPAN.findall(f.read())]


def mentioned(phrase, spans):
    """Some span starts with phrase as whole words."""
    return any(s == phrase or (s.startswith(phrase) and not s[len(phrase)].isalnum() and s[len(phrase)] not in "-_")
               for s in spans)


def test_sources_register_something():
    kinds = {k for k, _, _ in registrations()}
    assert {"command", "statement"} <= kinds, "no registrations found: has the registration call changed its name?"


def test_every_statement_and_command_is_in_usage_md():
    spans = documented_spans()
    missing = []
    for kind, name, where in registrations():
        phrase = "app " + name if kind == "app" else name
        if not mentioned(phrase, spans):
            missing.append(f"{kind} '{phrase}' ({where})")
    assert not missing, "docs/usage.md does not mention:\n  " + "\n  ".join(sorted(set(missing)))


def test_app_names_of_the_app_table():
    """Apps named in a table (today's {"name", start, ...} rows beside the
    `app` statement) are documented as `app NAME` too, until they register
    through app_register."""
    spans = documented_spans()
    missing = []
    row = re.compile(r'\{\s*"([a-z0-9-]+)"\s*,\s*(\w+_start)\b')
    for top in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith(".c"):
                    for m in row.finditer(open(os.path.join(dirpath, f), encoding="utf-8").read()):
                        if not mentioned("app " + m.group(1), spans):
                            missing.append(m.group(1))
    assert not missing, "docs/usage.md does not mention apps: " + ", ".join(sorted(set(missing)))
