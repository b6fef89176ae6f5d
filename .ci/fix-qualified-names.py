#!/usr/bin/env python3
"""Replaces fully-qualified type names in Java code by imports (the Checkstyle rule of decision 40).

Usage: .ci/fix-qualified-names.py [--dry-run] PATH...   (files or directories; module-info.java is skipped)

For each `a.b.Type` written in code (not in comments, string literals, `import` or `package` lines) it adds
`import a.b.Type;` in the file's import groups (others first, then java.* and javax.*, each sorted) and writes
`Type`. A nested type `a.b.Outer.Inner` imports `a.b.Outer` and becomes `Outer.Inner`. A type of the file's own
package or of java.lang needs no import.

It leaves a name qualified, and says so, where an import would change what a name means: the simple name is
declared in the file, is imported from elsewhere, names a class of the same package, or is written unqualified
in the file without a matching import (a java.lang type, a nested class); or two qualified names share it.
Mark such a line with `// qualified: why` (the rule accepts that on the line or the one above; this script then
leaves it alone). Compile after running it.
"""
import os
import re
import sys

ROOTS = "java|javax|jdk|sun|com|org|io|net|dev|jakarta"
FQN = re.compile(r"(?<![\w.])((?:" + ROOTS + r")\.(?:[a-z_][a-z0-9_]*\.)*)([A-Z]\w*)((?:\.[A-Z]\w*)*)")
IMPORT = re.compile(r"^import\s+(static\s+)?([\w.]+)(\.\*)?\s*;", re.M)
PACKAGE = re.compile(r"^package\s+([\w.]+)\s*;", re.M)
QUALIFIED = re.compile(r"//\s*qualified:\s*\S")  # the rule's own exception, on the line or the one above
DECLARED = re.compile(r"\b(?:class|interface|enum|record|@interface)\s+([A-Z]\w*)")


def code_mask(text):
    """A copy of text with comments, string, text-block and char literals blanked (same length and lines)."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            while j > 0 and text[j - 1] == "\\":
                j = text.find('"""', j + 1)
            j = n if j < 0 else j + 3
            blank(i, j)
            i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            blank(i, j + 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def java_lang_names():
    return {"Object", "String", "Class", "System", "Thread", "Runnable", "Exception", "RuntimeException", "Error",
            "Integer", "Long", "Boolean", "Character", "Byte", "Short", "Double", "Float", "Number", "Math",
            "Iterable", "Record", "Enum", "Process", "ProcessBuilder", "ProcessHandle", "Module", "ModuleLayer",
            "Override", "Deprecated", "SuppressWarnings", "FunctionalInterface", "SafeVarargs", "Void",
            "StringBuilder", "Comparable", "AutoCloseable", "CharSequence", "ClassLoader", "Runtime",
            "InterruptedException", "IllegalArgumentException", "IllegalStateException", "ThreadLocal",
            "StackWalker", "ScopedValue", "Package", "Appendable", "Readable", "StrictMath", "Compiler"}


def fix(path, dry_run=False):
    text = open(path, encoding="utf-8").read()
    mask = code_mask(text)
    pkg_match = PACKAGE.search(mask)
    package = pkg_match.group(1) if pkg_match else ""
    imports = {}  # simple name -> qualified name
    for m in IMPORT.finditer(mask):
        if not m.group(1) and not m.group(3):
            imports[m.group(2).rsplit(".", 1)[1]] = m.group(2)
    declared = set(DECLARED.findall(mask))
    here = os.path.dirname(os.path.abspath(path))
    same_package = {f[:-5] for f in os.listdir(here) if f.endswith(".java")}

    lines = mask.split("\n")
    originals = text.split("\n")
    hits = []  # (offset, end, package prefix, top-level name, rest)
    offset = 0
    for i, line in enumerate(lines):
        marked = any(QUALIFIED.search(originals[k]) for k in (i - 1, i) if k >= 0)
        if not marked and not re.match(r"\s*(import|package)\s", line):
            for m in FQN.finditer(line):
                hits.append((offset + m.start(), offset + m.end(), m.group(1)[:-1], m.group(2), m.group(3)))
        offset += len(line) + 1
    if not hits:
        return [], []

    by_name = {}
    for h in hits:
        by_name.setdefault(h[3], set()).add(h[2])
    # Unqualified uses of each simple name in code (outside the qualified hits themselves).
    unqualified = {}
    covered = [False] * len(mask)
    for h in hits:
        for k in range(h[0], h[1]):
            covered[k] = True
    for name in by_name:
        for m in re.finditer(r"(?<![\w.])" + re.escape(name) + r"\b", mask):
            if not covered[m.start()] and not re.match(r"\s*import\s", mask[mask.rfind("\n", 0, m.start()) + 1:]):
                unqualified[name] = True
                break

    lang = java_lang_names()
    to_import, kept, replace = set(), [], []
    for h in hits:
        start, end, pkg, name, rest = h
        qualified = pkg + "." + name
        why = None
        if len(by_name[name]) > 1:
            why = "two qualified types named " + name
        elif pkg == package or pkg == "java.lang":
            pass
        elif imports.get(name) == qualified:
            pass
        elif name in imports:
            why = name + " is imported from " + imports[name]
        elif name in declared:
            why = name + " is declared in this file"
        elif name in same_package:
            why = name + " is a class of package " + package
        elif unqualified.get(name) or name in lang:
            why = name + " is also written unqualified here (java.lang or a nested type)"
        else:
            to_import.add(qualified)
        if why:
            kept.append((text.count("\n", 0, start) + 1, qualified, why))
        else:
            replace.append((start, start + len(pkg) + 1))
    if not replace:
        return [], kept

    new = text
    for a, b in sorted(replace, reverse=True):
        new = new[:a] + new[b:]
    new = add_imports(new, to_import)
    if not dry_run:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return sorted(to_import), kept


def add_imports(text, names):
    if not names:
        return text
    lines = text.split("\n")
    existing = [i for i, l in enumerate(lines) if re.match(r"import\s+[\w.]+(\.\*)?\s*;", l)]
    java = lambda q: q.startswith("java.") or q.startswith("javax.")
    for q in sorted(names):
        stmt = "import " + q + ";"
        group = [i for i in existing if java(lines[i].split()[1]) == java(q)]
        if group:
            at = group[-1] + 1
            for i in group:
                if lines[i].split()[1].rstrip(";") > q:
                    at = i
                    break
            lines.insert(at, stmt)
        elif existing:
            if java(q):  # after the other group, a blank line between
                at = existing[-1] + 1
                lines[at:at] = ["", stmt]
            else:
                at = existing[0]
                lines[at:at] = [stmt, ""]
        else:
            pkg = next(i for i, l in enumerate(lines) if l.startswith("package "))
            lines[pkg + 1:pkg + 1] = ["", stmt]
        existing = [i for i, l in enumerate(lines) if re.match(r"import\s+[\w.]+(\.\*)?\s*;", l)]
    return "\n".join(lines)


def main(argv):
    dry = "--dry-run" in argv
    paths = [a for a in argv if a != "--dry-run"]
    if not paths:
        print(__doc__)
        return 2
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs[:] = [d for d in dirs if d != "target" and not d.startswith(".")]
                files += [os.path.join(root, n) for n in names if n.endswith(".java") and n != "module-info.java"]
        elif p.endswith(".java"):
            files.append(p)
    for f in sorted(files):
        added, kept = fix(f, dry)
        for q in added:
            print(f"{f}: import {q}")
        for line, q, why in kept:
            print(f"{f}:{line}: left {q} qualified: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
