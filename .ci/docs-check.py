#!/usr/bin/env python3
"""Helpers of .ci/docs.

  docs-check.py links README.md MODULE...        README's size, every catalog's landing
                                                  page, and every relative link in README
                                                  and the catalogs pointing at a file or
                                                  folder that exists
  docs-check.py samples MODULE...                 every ```swift block of README and the
                                                  catalogs is the visible text of a sample
                                                  source (Snippets/, Examples/Notes, Tests/)
                                                  or on the allow-list (.ci/docs-unchecked-
                                                  samples.txt); `samples+manifests` also
                                                  builds each complete Package.swift shown
  docs-check.py samples --self-test              the sample check on a tiny fixture
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


# ---------------------------------------------------------------------------
# Code samples: every ```swift block of README and the catalogs is the text of
# code the build compiles (Snippets/, built by `swift build`) or of the worked
# example (Examples/Notes, built and tested by `cd Examples/Notes && swift test`),
# so a sample cannot drift from the API. Complete manifests are built instead.

SWIFT_FENCE = re.compile(r"^(\s*)```swift\s*$")
CLOSE_FENCE = re.compile(r"^\s*```\s*$")
MARKER = re.compile(r"^\s*// snippet\.(\S+)\s*$")     # DocC's snippet markers: hide, show, slice names, end
TEST_CODE = re.compile(r"@Test\b|@Suite\b|\bXCTestCase\b|#expect\(|#require\(|\bXCTAssert|\bXCTSkip|\bXCTFail")
MANIFEST = re.compile(r"^// swift-tools-version")
ALLOW_LIST = os.path.join(".ci", "docs-unchecked-samples.txt")
TEST_ROOTS = ("Tests" + os.sep, os.path.join("Examples", "Notes", "Tests") + os.sep)
FIX = ("  fix: copy the code into Snippets/<Module>/<Article>Sample.swift (top-level code that `swift build`\n"
       "       compiles; put setup the reader need not see between `// snippet.hide` and `// snippet.show`),\n"
       "       or show a contiguous region of an Examples/Notes file (a test's sample: of Examples/Notes/Tests,\n"
       "       run by `cd Examples/Notes && swift test`); a justified exception: .ci/docs-unchecked-samples.txt")


def swift_blocks(path):
    """(line of the fence, lines without the fence's indentation) of each ```swift block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        opening = SWIFT_FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, body, j = len(opening.group(1)), [], i + 1
        while j < len(lines) and not CLOSE_FENCE.match(lines[j]):
            line = lines[j].rstrip()
            cut = min(indent, len(line) - len(line.lstrip()))
            body.append(line[cut:])
            j += 1
        while body and not body[0].strip():
            body.pop(0)
        while body and not body[-1].strip():
            body.pop()
        yield i + 1, body
        i = j + 1


def sample_sources(root):
    """Every sample source under root: Snippets/, Examples/Notes, the package's tests,
    and the probes the tests run as targets (Sources/*Probe: compiled by `swift build`
    and run by the tests, so an article may quote the code a test exercises)."""
    found = []
    sources = os.path.join(root, "Sources")
    probes = sorted(os.path.join("Sources", d) for d in (os.listdir(sources) if os.path.isdir(sources) else [])
                    if d.endswith("Probe"))
    for top in ["Snippets", os.path.join("Examples", "Notes", "Sources"),
                os.path.join("Examples", "Notes", "Tests"), "Tests"] + probes:
        for folder, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d != ".build")
            found += sorted(os.path.join(folder, n) for n in names if n.endswith(".swift"))
    manifest = os.path.join(root, "Examples", "Notes", "Package.swift")
    if os.path.isfile(manifest):
        found.append(manifest)
    return found


def visible_lines(path):
    """(line number, text) of what a reader of the sample sees: hidden sections
    (`// snippet.hide` to `// snippet.show`) and every marker line left out."""
    shown, hidden = [], False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            marker = MARKER.match(line)
            if marker:
                hidden = {"hide": True, "show": False}.get(marker.group(1), hidden)
                continue
            if not hidden:
                shown.append((number, line.rstrip("\n").rstrip()))
    return shown


def agreement(block, shown, start):
    """How many lines of block agree with shown[start:], all at the indentation
    the first line is found at."""
    first = shown[start][1]
    if not first.endswith(block[0]) or first[:len(first) - len(block[0])].strip():
        return 0
    prefix = first[:len(first) - len(block[0])]
    count = 0
    for offset, wanted in enumerate(block):
        if start + offset >= len(shown):
            break
        have = shown[start + offset][1]
        if (have.strip() if not wanted.strip() else have) != (prefix + wanted if wanted.strip() else ""):
            break
        count += 1
    return count


def find_block(block, sources):
    """(source, line) where block appears whole, else (None, closest (count, source, index))."""
    closest = (0, None, 0)
    for path, shown in sources:
        for start in range(len(shown)):
            count = agreement(block, shown, start)
            if count == len(block):
                return (path, shown[start][0]), None
            if count > closest[0]:
                closest = (count, path, start)
    return None, closest


def read_allow_list(root):
    """{(article, first line): reason} from .ci/docs-unchecked-samples.txt: lines
    `article | first line of the block | reason`, # comments."""
    entries, problems = {}, []
    path = os.path.join(root, ALLOW_LIST)
    if not os.path.isfile(path):
        return entries, problems
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            article, _, rest = line.rstrip("\n").partition(" | ")
            first, _, reason = rest.rpartition(" | ")
            if not article or not first.strip() or not reason.strip():
                problems.append(f"{ALLOW_LIST}:{number}: expected 'article | first line of the block | reason'")
                continue
            entries[(article.strip(), first.strip())] = (number, reason.strip())
    return entries, problems


def check_samples(root, markdown, manifests_out=None, quiet=False):
    """The rule above, for the Markdown files given relative to root. Complete
    manifests are appended to manifests_out (checked by building a package)."""
    sources = [(os.path.relpath(p, root), visible_lines(p)) for p in sample_sources(root)]
    test_sources = [s for s in sources if s[0].startswith(TEST_ROOTS)]
    allowed, problems = read_allow_list(root)
    used, counts = set(), {"found": 0, "manifests": 0, "allowed": 0}
    for article in markdown:
        for number, block in swift_blocks(os.path.join(root, article)):
            if not block:
                problems.append(f"{article}:{number}: empty ```swift block")
                continue
            key = (article, block[0].strip())
            if key in allowed:
                used.add(key)
                counts["allowed"] += 1
                continue
            if MANIFEST.match(block[0]):
                counts["manifests"] += 1
                if manifests_out is not None:
                    manifests_out.append((article, number, "\n".join(block) + "\n"))
                continue
            is_test = bool(TEST_CODE.search("\n".join(block)))
            where, closest = find_block(block, test_sources if is_test else sources)
            if where:
                counts["found"] += 1
                continue
            kind = "a test's sample, not found in the tests of Examples/Notes or of the package" if is_test \
                else "not found in any sample source"
            message = f"{article}:{number}: ```swift block {kind}: `{block[0].strip()}`"
            count, path, start = closest
            if path:
                shown = dict(sources)[path]
                line, have = shown[start + count] if start + count < len(shown) else (shown[-1][0] + 1, "(end of file)")
                message += (f"\n  closest: {path}:{shown[start][0]} agrees for {count} of {len(block)} lines; "
                            f"block line {count + 1} reads\n    {block[count].strip()}\n  where {path}:{line} reads\n    {have.strip()}")
            problems.append(message + "\n" + FIX)
    for key, (number, _) in allowed.items():
        if key not in used:
            problems.append(f"{ALLOW_LIST}:{number}: no ```swift block of {key[0]} starts with `{key[1]}`: remove the entry")
    if not quiet:
        for problem in problems:
            print(problem, file=sys.stderr)
        print(f"samples: {counts['found']} blocks found in {len(sources)} sample sources, "
              f"{counts['manifests']} manifests to build, {counts['allowed']} allowed unchecked; {len(problems)} problem(s)")
    return problems


MANIFEST_DEPENDENCY = re.compile(r"\.package\([^()]*AppGroupContainer[^()]*\)")   # url: or name:, path:
WORKED_EXAMPLE = os.path.join("Examples", "Notes")
MANIFEST_TARGET = re.compile(r"\.(target|executableTarget|testTarget)\(\s*name:\s*\"([^\"]+)\"")


def check_manifests(root, manifests):
    """Builds each complete manifest as a package of its own, its AppGroupContainer
    dependency pointed at this checkout, with one stub file per target:
    the manifest compiles, every target's folder is found and every product it names exists."""
    import subprocess, tempfile
    problems = []
    for article, number, text in manifests:
        local = MANIFEST_DEPENDENCY.sub(f'.package(name: "AppGroupContainer", path: {json.dumps(root)})', text)
        if local == text:
            problems.append(f"{article}:{number}: manifest names no `.package(url: \"...AppGroupContainer...\", ...)` "
                            "or `.package(name: \"AppGroupContainer\", path: ...)` dependency to point at this checkout")
            continue
        with tempfile.TemporaryDirectory(prefix="docs-manifest.") as work:
            with open(os.path.join(work, "Package.swift"), "w", encoding="utf-8") as f:
                f.write(local)
            targets = list(MANIFEST_TARGET.finditer(text))
            for index, target in enumerate(targets):
                kind, name = target.groups()
                folder = os.path.join(work, "Tests" if kind == "testTarget" else "Sources", name)
                os.makedirs(folder, exist_ok=True)
                with open(os.path.join(folder, "main.swift" if kind == "executableTarget" else "Stub.swift"), "w") as f:
                    f.write("// generated by .ci/docs-check.py manifests\n")
                # The files the target excludes (entitlements, Info.plist), so that they exist.
                end = targets[index + 1].start() if index + 1 < len(targets) else len(text)
                excluded = re.search(r"exclude:\s*\[([^\]]*)\]", text[target.start():end])
                for excluded_name in re.findall(r'"([^"]+)"', excluded.group(1) if excluded else ""):
                    open(os.path.join(folder, excluded_name), "w").close()
            # describe compiles the manifest and checks the targets' folders;
            # show-dependencies loads the graph: every product named must exist.
            output, failed = "", False
            for command in (["describe"], ["show-dependencies"]):
                run = subprocess.run(["swift", "package", "--package-path", work] + command,
                                     capture_output=True, text=True)
                output += (run.stdout + run.stderr).replace(work, "<generated package>")
                failed = failed or run.returncode != 0 or "error:" in output
            if not failed:
                difference = setup_difference(work, os.path.join(root, WORKED_EXAMPLE))
                if difference:
                    problems.append(f"{article}:{number}: the manifest is not the worked example's setup "
                                    f"({WORKED_EXAMPLE}/Package.swift, which CI builds and tests): {difference}.\n"
                                    "  fix: make the two declare the same targets, dependencies and conditions")
            if failed:
                errors = [l for l in output.splitlines() if "error:" in l] or output.strip().splitlines()[-5:]
                problems.append(f"{article}:{number}: the manifest does not build as a package "
                                f"(its dependency pointed at this checkout):\n  " + "\n  ".join(errors))
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"manifests: {len(manifests)} built; {len(problems)} problem(s)")
    return not problems


def setup_difference(package, example):
    """What differs between two packages' setups, as `swift package dump-package` reads
    them on this platform: the platforms, the language modes, and each target's
    name, kind and dependencies with their conditions (not comments, paths or excludes)."""
    import subprocess

    def setup(path):
        run = subprocess.run(["swift", "package", "--package-path", path, "dump-package"], capture_output=True, text=True)
        if run.returncode != 0:
            return None
        manifest = json.loads(run.stdout)
        return {"platforms": manifest.get("platforms"), "swiftLanguageVersions": manifest.get("swiftLanguageVersions"),
                "targets": {t["name"]: {"type": t["type"], "dependencies": t["dependencies"]} for t in manifest["targets"]}}
    shown, worked = setup(package), setup(example)
    if shown is None or worked is None:
        return "swift package dump-package failed"
    for key in ("platforms", "swiftLanguageVersions"):
        if shown[key] != worked[key]:
            return f"{key} {json.dumps(shown[key])} where the example has {json.dumps(worked[key])}"
    for name in sorted(set(shown["targets"]) | set(worked["targets"])):
        a, b = shown["targets"].get(name), worked["targets"].get(name)
        if a != b:
            return f"target {name}: {json.dumps(a)} where the example has {json.dumps(b)}"
    return None


def self_test():
    """The sample check on a tiny fixture: a block that matches passes, a drifted one fails."""
    import tempfile
    failures = []
    with tempfile.TemporaryDirectory(prefix="docs-samples-self-test.") as root:
        os.makedirs(os.path.join(root, "Snippets", "Demo"))
        os.makedirs(os.path.join(root, "Examples", "Notes", "Tests", "NotesTests"))
        os.makedirs(os.path.join(root, "Sources", "Demo", "Demo.docc"))
        with open(os.path.join(root, "Snippets", "Demo", "GuideSample.swift"), "w") as f:
            f.write("import Foundation\n// snippet.hide\nlet hidden = 1\n// snippet.show\n"
                    "func greet() -> String {\n    \"hello\"\n}\n// snippet.end\n\nlet answer = 42\n")
        with open(os.path.join(root, "Examples", "Notes", "Tests", "NotesTests", "T.swift"), "w") as f:
            f.write("import Testing\nstruct T {\n    @Test func works() {\n        #expect(1 == 1)\n    }\n}\n")
        guide = os.path.join("Sources", "Demo", "Demo.docc", "Guide.md")

        def run(article_text, allow=None):
            with open(os.path.join(root, guide), "w") as f:
                f.write(article_text)
            allow_path = os.path.join(root, ALLOW_LIST)
            if allow is not None:
                os.makedirs(os.path.dirname(allow_path), exist_ok=True)
                with open(allow_path, "w") as f:
                    f.write(allow)
            elif os.path.exists(allow_path):
                os.remove(allow_path)
            return check_samples(root, [guide], quiet=True)

        cases = [
            ("a block that is the visible text passes (hidden lines and markers skipped)",
             "# Guide\n\n- Item:\n\n  ```swift\n  import Foundation\n  func greet() -> String {\n      \"hello\"\n  }\n  ```\n", None, 0, None),
            ("a test's region at another indentation passes",
             "```swift\n@Test func works() {\n    #expect(1 == 1)\n}\n```\n", None, 0, None),
            ("a drifted block fails, naming the line and the closest source",
             "Text\n\n```swift\nfunc greet() -> String {\n    \"hi\"\n}\n```\n", None, 1, "Guide.md:3:"),
            ("a block across a hidden section fails only if the hidden text is shown",
             "```swift\nimport Foundation\nlet hidden = 1\n```\n", None, 1, "block line 2 reads"),
            ("a test's sample that is only in a snippet fails",
             "```swift\nlet answer = 42\n#expect(answer == 42)\n```\n", None, 1, "a test's sample"),
            ("an allow-listed block passes",
             "```swift\nlet invented = true\n```\n", f"{guide} | let invented = true | pseudo-code\n", 0, None),
            ("a stale allow-list entry fails",
             "```swift\nlet answer = 42\n```\n", f"{guide} | let gone = 1 | no longer there\n", 1, "remove the entry"),
        ]
        for name, text, allow, expected, needle in cases:
            problems = run(text, allow)
            if len(problems) != expected or (needle and not any(needle in p for p in problems)):
                failures.append(f"self-test: {name}: expected {expected} problem(s)"
                                f"{' mentioning ' + repr(needle) if needle else ''}, got {problems}")
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"samples self-test: {len(cases) - len(failures)} of {len(cases)} cases pass")
    return not failures


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "links":
        sys.exit(0 if check_links(sys.argv[2], sys.argv[3:]) else 1)
    if len(sys.argv) == 3 and sys.argv[1] == "samples" and sys.argv[2] == "--self-test":
        sys.exit(0 if self_test() else 1)
    if len(sys.argv) >= 3 and sys.argv[1] in ("samples", "samples+manifests"):
        files, found = markdown_files(sys.argv[2:])
        manifests = []
        ok = not check_samples(REPO, files, manifests) and not found
        if sys.argv[1] == "samples+manifests":
            ok = check_manifests(REPO, manifests) and ok
        sys.exit(0 if ok else 1)
    if len(sys.argv) == 4 and sys.argv[1] == "diagnostics":
        sys.exit(0 if check_diagnostics(sys.argv[2], sys.argv[3]) else 1)
    print(__doc__, file=sys.stderr)
    sys.exit(64)
