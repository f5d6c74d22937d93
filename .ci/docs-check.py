#!/usr/bin/env python3
"""Helpers of .ci/docs.

  docs-check.py links README.md MODULE...        README's size, every catalog's landing
                                                  page, and every relative link in README
                                                  and the catalogs pointing at a file or
                                                  folder that exists
  docs-check.py diagnostics MODULE FILE.json     docc's diagnostics for one catalog:
                                                  prints them all, fails on any but the
                                                  parameter-documentation notes
"""
import json, os, re, sys, urllib.parse

README_LIMIT = 12288          # bytes: README is a front door, the rest lives in the catalogs
REPO = os.path.realpath(os.getcwd())

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# Product documentation speaks of Apple's platform guides, never of "seeds".
FORBIDDEN_WORDS = re.compile(r"\bseeds\b", re.IGNORECASE)


def markdown_files(modules):
    problems, files = [], ["README.md"]
    for module in modules:
        catalog = os.path.join("Sources", module, module + ".docc")
        if not os.path.isdir(catalog):
            problems.append(f"{catalog}: missing catalog (every library product has one)")
            continue
        landing = os.path.join(catalog, module + ".md")
        if not os.path.isfile(landing):
            problems.append(f"{landing}: missing landing page (# ``{module}``)")
        else:
            with open(landing, encoding="utf-8") as f:
                first = f.readline().strip()
            if first != f"# ``{module}``":
                problems.append(f"{landing}:1: the landing page must start with '# ``{module}``', not '{first}'")
        for folder, _, names in os.walk(catalog):
            files += sorted(os.path.join(folder, n) for n in names if n.endswith(".md"))
    return files, problems


def link_targets(path):
    """(line number, target) of every Markdown link outside code."""
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            text = CODE_SPAN.sub("", line)
            for match in INLINE_LINK.finditer(text):
                yield number, match.group(1)
            match = REFERENCE_DEF.match(text)
            if match:
                yield number, match.group(1)


def in_catalog_resources(path, name):
    """DocC finds an image by its bare file name anywhere in the article's catalog
    (its Resources/ folder, by convention): `![...](trace.png)`."""
    if "/" in name or not name.lower().endswith((".png", ".jpg", ".jpeg", ".svg", ".gif")):
        return False
    folder = os.path.dirname(os.path.abspath(path))
    while folder != REPO and not folder.endswith(".docc"):
        folder = os.path.dirname(folder)
    if not folder.endswith(".docc"):
        return False
    return any(name in names for _, _, names in os.walk(folder))


def check_links(readme, modules):
    problems = []
    size = os.path.getsize(readme)
    if size > README_LIMIT:
        problems.append(f"{readme}: {size} bytes, over the front door's limit of {README_LIMIT}: "
                        "move detail into a catalog article and link to it")
    files, found = markdown_files(modules)
    problems += found
    checked = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if FORBIDDEN_WORDS.search(line):
                    problems.append(f"{path}:{number}: says 'seeds': call them Apple's platform guides")
        for number, target in link_targets(path):
            if SCHEME.match(target) or target.startswith("#"):
                continue            # web addresses, doc: links (docc checks those), anchors
            relative = urllib.parse.unquote(target.split("#", 1)[0].split("?", 1)[0])
            base = REPO if relative.startswith("/") else os.path.dirname(os.path.abspath(path))
            resolved = os.path.realpath(os.path.join(base, relative.lstrip("/")))
            checked += 1
            shown = os.path.relpath(resolved, REPO)
            if resolved != REPO and not resolved.startswith(REPO + os.sep):
                problems.append(f"{path}:{number}: link '{target}' leaves the repository ({resolved})")
            elif not os.path.exists(resolved) and not in_catalog_resources(path, relative):
                problems.append(f"{path}:{number}: broken link '{target}': {shown} does not exist")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"links: {checked} relative links in {len(files)} files checked, README {size} bytes; "
          f"{len(problems)} problem(s)")
    return not problems


# Notes that are not about links or articles: shown, never fatal.
ADVISORY = re.compile(r"^(Parameter '.*' is missing documentation|Return value is missing documentation"
                      r"|Parameter '.*' not found in .*signature)")


def check_diagnostics(module, path):
    with open(path, encoding="utf-8") as f:
        diagnostics = json.load(f).get("diagnostics", [])
    fatal = 0
    for d in diagnostics:
        source = urllib.parse.unquote(d.get("source", "").replace("file://", "")) or "(no file)"
        start = (d.get("range") or {}).get("start") or {}
        where = f"{os.path.relpath(source, REPO) if source.startswith('/') else source}:{start.get('line', 0)}:{start.get('column', 0)}"
        summary = d.get("summary", "")
        advisory = d.get("severity") != "error" and ADVISORY.match(summary)
        fatal += 0 if advisory else 1
        print(f"{where}: {d.get('severity')}: {summary}" + ("" if advisory else "  [fails the check]"),
              file=sys.stderr)
    print(f"{module}: {len(diagnostics)} diagnostic(s), {fatal} failing")
    return fatal == 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "links":
        sys.exit(0 if check_links(sys.argv[2], sys.argv[3:]) else 1)
    if len(sys.argv) == 4 and sys.argv[1] == "diagnostics":
        sys.exit(0 if check_diagnostics(sys.argv[2], sys.argv[3]) else 1)
    print(__doc__, file=sys.stderr)
    sys.exit(64)
