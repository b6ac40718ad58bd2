#!/usr/bin/env python3
"""file_state.py SRC_ROOT — isod's process-wide state stays what
docs/architecture.md says it is (issue 29).

Every mutable file-scope variable of src/daemon/*.c (a definition at the
start of a line that is not const and not a function) must be named in
docs/architecture.md's section "State with no owner but the process" as
`FILE.c`'s `NAME`, and carry a comment just above it saying why; each name
listed there must still exist. Anything else is state a struct should own.
"""
import os
import re
import sys

DECL = re.compile(r'^(?:static\s+)?(?!typedef\b|extern\b|return\b)'
                  r'(?:_Atomic\s+|volatile\s+)?'
                  r'(?:struct\s*\w*\s*\{|[A-Za-z_][\w\s\*]*?\b(\w+)\s*(?:\[[^\]]*\])*\s*(?:=|;))')


def file_state(path):
    """(name, line, has_comment) of each mutable file-scope variable"""
    out = []
    lines = open(path, encoding='utf-8').read().split('\n')
    depth = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if depth == 0 and not line.startswith(('#', ' ', '\t', '}', '/', '*')) and line.strip():
            words = line.split()
            if 'const' not in words[:3] and '(' not in line.split('=')[0]:
                m = DECL.match(line)
                if m:
                    name = m.group(1)
                    start = i
                    if name is None:  # struct [tag] { ... } name ...; or a type
                        tail = ''
                        level = 0
                        for j in range(i, len(lines)):
                            for c, ch in enumerate(lines[j]):
                                level += (ch == '{') - (ch == '}')
                                if ch == '}' and level == 0:
                                    tail = lines[j][c:]
                                    break
                            if tail:
                                break
                        end = re.match(r'\}\s*(\w+)', tail)
                        name = end.group(1) if end else None
                    if name is not None:
                        # the comment above it, past #define lines
                        k = start - 1
                        while k >= 0 and lines[k].startswith('#define'):
                            k -= 1
                        out.append((name, start + 1, k >= 0 and lines[k].strip().endswith('*/')))
        depth += line.count('{') - line.count('}')
        i += 1
    return out


def main():
    root = sys.argv[1]
    doc = open(os.path.join(root, 'docs/architecture.md'), encoding='utf-8').read()
    sec = doc.split('## State with no owner but the process', 1)
    if len(sec) < 2:
        print('docs/architecture.md has no section "State with no owner but the process"')
        return 1
    sec = sec[1].split('\n## ', 1)[0]
    listed = set(re.findall(r'`(\w+\.c)`\'s `(\w+)`', sec))
    found = set()
    bad = []
    ddir = os.path.join(root, 'src/daemon')
    for f in sorted(os.listdir(ddir)):
        if not f.endswith('.c'):
            continue
        for name, line, commented in file_state(os.path.join(ddir, f)):
            found.add((f, name))
            if (f, name) not in listed:
                bad.append(f'src/daemon/{f}:{line}: file-scope mutable `{name}` is not in '
                           'docs/architecture.md ("State with no owner but the process"): '
                           'give it an owner (struct isod, an instance) or list it there with its reason')
            elif not commented:
                bad.append(f'src/daemon/{f}:{line}: `{name}` has no comment above it saying why it is process-wide')
    for f, name in sorted(listed - found):
        bad.append(f'docs/architecture.md names `{f}`\'s `{name}`, which src/daemon no longer has')
    for b in bad:
        print(b)
    print(f'file_state: {len(found)} process-wide variables in src/daemon, {len(listed)} listed, '
          f'{len(bad)} problems')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
