#!/usr/bin/env python3
"""Writes census/CENSUS.md from census/files.tsv and census/declared.tsv.

    python3 census/census.py          # table from files.tsv + declared.tsv
    python3 census/census.py --scan   # first regenerate declared.tsv from Sources/

files.tsv (from census/extract.py): repo, path, commit, kind, symbols.
declared.tsv: symbol, module, status, note. `--scan` (or a missing file)
rebuilds it by reading this repository's Sources/ for a declaration of each
symbol with Apple's name (and, for functions and initialisers, Apple's argument
labels). "declared" says a declaration exists, not that it behaves as on iOS:
only tests say that.

Stdlib only.
"""
import collections
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FILES = os.path.join(HERE, 'files.tsv')
DECLARED = os.path.join(HERE, 'declared.tsv')
PAGE = os.path.join(HERE, 'CENSUS.md')
SOURCES = os.path.join(ROOT, 'Sources')
THRESHOLD = 5  # "used by at least this many files"

# Symbols the package leaves out on purpose, with the reason (one line each).
VIEW = 'SwiftUI view or scene of a widget: drawn by Apple\'s platform, not emulated (Sources/WidgetKit/WidgetKit.swift)'
ABSENT = {
    'Widget': VIEW, 'WidgetBundle': VIEW, 'WidgetConfiguration': VIEW, 'StaticConfiguration': VIEW,
    'IntentConfiguration': VIEW, 'AppIntentConfiguration': VIEW, 'ActivityConfiguration': VIEW,
    'WidgetPreviewContext': VIEW, 'WidgetRenderingMode': VIEW, 'WidgetAccentable': VIEW,
    'WidgetConfiguration.supportedFamilies': VIEW, 'WidgetConfiguration.configurationDisplayName': VIEW,
    'WidgetConfiguration.contentMarginsDisabled': VIEW,
    'UNNotificationContentExtension': 'notification content extension: a UIKit view controller, UI is out of scope',
    'UNNotificationContentExtensionResponseOption': 'notification content extension UI, out of scope',
    'UNNotificationContentExtensionMediaPlayPauseButtonType': 'notification content extension UI, out of scope',
}

FRAMEWORK_ORDER = ['Foundation', 'UserDefaults', 'Security', 'LocalAuthentication', 'NSExtensionContext',
                   'UniformTypeIdentifiers', 'WidgetKit', 'UserNotifications', 'CFPreferences',
                   'Darwin notifications']


def framework_of(sym):
    head = sym.split('(')[0].split('.')[0]
    if head.startswith(('Sec', 'kSec', 'errSec')) or head == 'OSStatus':
        return 'Security'
    if head.startswith(('CFPreferences', 'kCFPreferences')):
        return 'CFPreferences'
    if head.startswith(('CFNotification', 'notify_', 'NOTIFY_')):
        return 'Darwin notifications'
    if head.startswith('UN'):
        return 'UserNotifications'
    if head.startswith(('UTType', 'kUT')):
        return 'UniformTypeIdentifiers'
    if head.startswith('LA'):
        return 'LocalAuthentication'
    if head.startswith(('NSExtension', 'NSItemProvider')):
        return 'NSExtensionContext'
    if head == 'UserDefaults':
        return 'UserDefaults'
    if head.startswith(('Widget', 'Timeline', 'IntentTimeline', 'AppIntentTimeline', 'StaticConfiguration',
                        'IntentConfiguration', 'AppIntentConfiguration', 'ActivityConfiguration')):
        return 'WidgetKit'
    return 'Foundation'


# --- reading Sources/ -------------------------------------------------------

def blank_strings_and_comments(text):
    """Same length, with comments and string literals turned into spaces."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append('"' + re.sub(r'[^\n]', ' ', text[i + 1:j - 1]) + '"'); i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append('"' + ' ' * (j - i - 2) + '"' if j - i >= 2 else text[i:j]); i = j
        else:
            out.append(text[i]); i += 1
    return ''.join(out)


def param_labels(text, i):
    """Labels of the parameter list opening at text[i] == '('."""
    depth, j, start, params = 0, i, i + 1, []
    while j < len(text):
        c = text[j]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                params.append(text[start:j]); break
        elif c == ',' and depth == 1:
            params.append(text[start:j]); start = j + 1
        j += 1
    out = []
    for p in params:
        m = re.match(r'\s*(?:@\w+\s+)*(\w+)', p)
        if m and p.strip():
            # a defaulted parameter is marked '=label': a call may leave it out
            defaulted = re.search(r'=(?!=)', re.sub(r'\([^()]*\)|->', '', p)) is not None
            out.append(('=' if defaulted else '') + m.group(1))
    return out


MODS = r'(?:(?:public|open|package|internal|private(?:\(set\))?|fileprivate(?:\(set\))?|public\(set\)|final|static|class|override|convenience|required|nonisolated(?:\(unsafe\))?|mutating|nonmutating|dynamic|lazy|weak|unowned|indirect|@\w+(?:\([^()]*\))?)\s+)*'
TOKEN = re.compile(r'(?P<brace>[{}])|(?P<mods>' + MODS + r')(?P<kw>class|struct|enum|protocol|actor|extension|typealias|func|init[?!]?|var|let|case)\b(?P<rest>[^\n{}]*)')


def scan_sources():
    """{(owner, name): [(module, labels or None, path)]}, owner '' at top level."""
    index = collections.defaultdict(list)
    for dirpath, _, names in os.walk(SOURCES):
        for fn in sorted(names):
            if not fn.endswith('.swift'):
                continue
            path = os.path.join(dirpath, fn)
            module = os.path.relpath(path, SOURCES).split(os.sep)[0]
            text = blank_strings_and_comments(open(path, encoding='utf-8', errors='replace').read())
            stack, depth, pending = [], 0, None  # stack: (name, kind, public, depth)
            for m in TOKEN.finditer(text):
                if m.group('brace') == '{':
                    depth += 1
                    if pending:
                        stack.append(pending + (depth,)); pending = None
                    continue
                if m.group('brace') == '}':
                    if stack and stack[-1][3] == depth:
                        stack.pop()
                    depth -= 1
                    continue
                mods, kw, rest = m.group('mods'), m.group('kw'), m.group('rest')
                # a declaration must start its line (after attributes/modifiers)
                line_start = text.rfind('\n', 0, m.start()) + 1
                if text[line_start:m.start()].strip():
                    continue
                public = bool(re.search(r'\b(public|open)\b', mods))
                parent = stack[-1] if stack else None
                at_type_level = (parent is None and depth == 0) or (parent is not None and depth == parent[3])
                if not at_type_level:
                    continue
                owner = '.'.join(s[0] for s in stack)
                visible = public or (parent is not None and parent[2] and parent[1] in ('protocol', 'extension'))
                if kw in ('class', 'struct', 'enum', 'protocol', 'actor', 'extension'):
                    name = re.match(r'\s*([\w.]+)', rest)
                    if not name:
                        continue
                    name = name.group(1)
                    if kw == 'extension':
                        pending = (name, kw, public)
                        # an extension re-opens the type: its members belong to `name`
                        stack_owner = name
                        pending = (stack_owner, kw, public)
                        continue
                    pending = (name, kw, public or (parent is not None and parent[2] and parent[1] == 'extension'))
                    if visible:
                        index[(owner, name)].append((module, None, path))
                elif kw == 'case':
                    if parent is None or parent[1] not in ('enum', 'extension') or not (parent[2] or public):
                        if parent is None or parent[1] != 'enum':
                            continue
                    for part in re.split(r',(?![^(]*\))', rest):
                        nm = re.match(r'\s*`?(\w+)', part)
                        if nm:
                            index[(owner, nm.group(1))].append((module, None, path))
                elif kw in ('var', 'let', 'typealias'):
                    nm = re.match(r'\s*`?(\w+)', rest)
                    if nm and visible:
                        index[(owner, nm.group(1))].append((module, None, path))
                elif kw == 'func':
                    nm = re.match(r'\s*`?(\w+)`?\s*(<[^>]*>)?\s*\(', rest)
                    if nm and visible:
                        labels = param_labels(text, m.start('rest') + nm.end() - 1)
                        index[(owner, nm.group(1))].append((module, labels, path))
                elif kw.startswith('init'):
                    nm = re.match(r'\s*[?!]?\s*(<[^>]*>)?\s*\(', rest)
                    if nm and visible:
                        labels = param_labels(text, m.start('rest') + nm.end() - 1)
                        index[(owner, 'init')].append((module, labels, path))
    return index


def split_symbol(sym):
    """'UserDefaults.set(_:forKey:)' -> ('UserDefaults', 'set', ['_', 'forKey'])
    'kSecClass' -> ('', 'kSecClass', None)"""
    call = None
    if sym.endswith(')') and '(' in sym:
        sym, args = sym.split('(', 1)
        call = [a for a in args[:-1].split(':') if a]
    owner, _, name = sym.rpartition('.')
    return owner, name, call


def lookup(index, sym):
    owner, name, call = split_symbol(sym)
    hits = index.get((owner, name), [])
    if not hits and owner and '.' not in owner:
        # a member declared on a type the package nests elsewhere: accept a
        # unique owner whose last component is `owner`
        hits = [h for (o, n), hs in index.items() if n == name and o.split('.')[-1] == owner for h in hs]
    if not hits:
        return None, ''
    if call is None:
        return hits[0][0], ''
    for module, labels, path in hits:
        if labels is None:
            return module, ''
        names = [l.lstrip('=') for l in labels]
        if names[:len(call)] == call and all(l.startswith('=') for l in labels[len(call):]):
            return module, ''
    other = sorted({'(' + ''.join(l.lstrip('=') + ':' for l in h[1]) + ')' for h in hits if h[1] is not None})
    return None, 'declared with other labels: ' + ' '.join(other)


def read_files():
    with open(FILES, newline='', encoding='utf-8') as f:
        rows = list(csv.DictReader(f, delimiter='\t'))
    for r in rows:
        r['symbols'] = r['symbols'].split()
    return rows


def scan(rows):
    index = scan_sources()
    syms = sorted({s for r in rows for s in r['symbols']})
    with open(DECLARED, 'w', newline='', encoding='utf-8') as f:
        f.write('symbol\tmodule\tstatus\tnote\n')
        for s in syms:
            if s in ABSENT:
                f.write(f'{s}\t\tdeliberately absent\t{ABSENT[s]}\n')
                continue
            module, note = lookup(index, s)
            status = 'declared' if module else 'not declared'
            f.write(f'{s}\t{module or ""}\t{status}\t{note}\n')


def read_declared():
    with open(DECLARED, newline='', encoding='utf-8') as f:
        return {r['symbol']: r for r in csv.DictReader(f, delimiter='\t')}


def write_page(rows, declared):
    files_by = collections.Counter()
    repos_by = collections.defaultdict(set)
    for r in rows:
        for s in r['symbols']:
            files_by[s] += 1
            repos_by[s].add(r['repo'])
    repos = sorted({r['repo'] for r in rows})
    kinds = collections.Counter(r['kind'] for r in rows)
    total_uses = sum(files_by.values())
    status = {s: declared.get(s, {}).get('status', 'not declared') for s in files_by}
    uses_declared = sum(n for s, n in files_by.items() if status[s] == 'declared')
    uses_absent = sum(n for s, n in files_by.items() if status[s] == 'deliberately absent')
    missing_hot = [s for s, n in files_by.items() if n >= THRESHOLD and status[s] == 'not declared']
    order = sorted(files_by, key=lambda s: (-files_by[s], s))
    commits = sorted({(r['repo'], r['commit']) for r in rows})

    def pct(a, b):
        return f'{100.0 * a / b:.1f}%' if b else 'n/a'

    out = []
    w = out.append
    w('# Apple\'s vocabulary in app-extension code: the census')
    w('')
    w('Generated by `python3 census/census.py` from `census/files.tsv` (which files use which')
    w('symbols, gathered by `census/extract.py`) and `census/declared.tsv` (whether this package')
    w('declares each symbol with Apple\'s name). Do not edit by hand; how it was gathered and its')
    w('limits are in [README.md](README.md). "Declared" means a declaration with Apple\'s name (and')
    w('argument labels) exists in `Sources/`; whether it behaves as on Apple\'s platform is for the')
    w('tests to say.')
    w('')
    w('## Figures')
    w('')
    w(f'- Files surveyed: {len(rows)}, from {len(repos)} repositories.')
    w('- Files by kind: ' + ', '.join(f'{k} {n}' for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))) + '.')
    w(f'- Distinct symbols: {len(files_by)}; symbol uses (one per file and symbol): {total_uses}.')
    w(f'- Uses of a symbol the package declares: {uses_declared} of {total_uses}, **{pct(uses_declared, total_uses)}**.')
    w(f'- Excluding the {uses_absent} uses of deliberately absent symbols (views, UI): '
      f'**{pct(uses_declared, total_uses - uses_absent)}**.')
    w(f'- Symbols used by at least {THRESHOLD} files: {sum(1 for s in files_by if files_by[s] >= THRESHOLD)}; '
      f'of them not declared: {len(missing_hot)}.')
    w('')
    w('By framework (uses declared / uses):')
    w('')
    w('| framework | symbols | uses | uses declared | share |')
    w('| --- | ---: | ---: | ---: | ---: |')
    for fw in FRAMEWORK_ORDER:
        ss = [s for s in files_by if framework_of(s) == fw]
        if not ss:
            continue
        u = sum(files_by[s] for s in ss)
        d = sum(files_by[s] for s in ss if status[s] == 'declared')
        w(f'| {fw} | {len(ss)} | {u} | {d} | {pct(d, u)} |')
    w('')
    w(f'## Used by at least {THRESHOLD} files and not declared')
    w('')
    if missing_hot:
        for s in sorted(missing_hot, key=lambda s: (-files_by[s], s)):
            note = declared.get(s, {}).get('note', '')
            w(f'- `{s}` ({framework_of(s)}): {files_by[s]} files, {len(repos_by[s])} repositories'
              + (f'; {note}' if note else ''))
    else:
        w('None.')
    w('')
    w('## The table')
    w('')
    w('Sorted by files using the symbol. "Declared by the package" names the module of `Sources/`')
    w('that declares it, "no", or "absent" (left out on purpose, reason in `declared.tsv`).')
    w('')
    w('| symbol | framework | files | repositories | declared by the package |')
    w('| --- | --- | ---: | ---: | --- |')
    for s in order:
        d = declared.get(s, {})
        st = d.get('status', 'not declared')
        cell = d.get('module') if st == 'declared' else ('absent' if st == 'deliberately absent' else 'no')
        w(f'| `{s}` | {framework_of(s)} | {files_by[s]} | {len(repos_by[s])} | {cell} |')
    w('')
    w('## Repositories and commits')
    w('')
    w('| repository | commit | files |')
    w('| --- | --- | ---: |')
    per_repo = collections.Counter(r['repo'] for r in rows)
    for repo, commit in commits:
        w(f'| {repo} | `{commit[:12]}` | {per_repo[repo]} |')
    w('')
    with open(PAGE, 'w', encoding='utf-8') as f:
        f.write('\n'.join(out))
    return dict(files=len(rows), repos=len(repos), symbols=len(files_by), uses=total_uses,
                declared=uses_declared, absent=uses_absent, missing_hot=missing_hot, files_by=files_by,
                repos_by=repos_by, status=status)


def main():
    rows = read_files()
    if '--scan' in sys.argv[1:] or not os.path.exists(DECLARED):
        scan(rows)
    fig = write_page(rows, read_declared())
    print(f"{fig['files']} files, {fig['repos']} repositories, {fig['symbols']} symbols, "
          f"{fig['uses']} uses; declared {fig['declared']} "
          f"({100.0 * fig['declared'] / fig['uses']:.1f}%), absent {fig['absent']}; "
          f"not declared with >= {THRESHOLD} files: {len(fig['missing_hot'])}")


if __name__ == '__main__':
    main()
