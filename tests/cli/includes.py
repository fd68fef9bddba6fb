"""includes.py: the include graph of tuner/, runtime/, plan/, blas/ and
templates/ (every #include "..." resolved as the Makefile's -I paths do),
checked for the project's boundaries and for circles. Prints one line per
finding and "ok" when there is none; exit status 1 on a finding.
A module is a .c or .cu file with its .h of the same name in its folder:
a circle is a run of modules that include each other round."""
import os
import re
import sys

ROOTS = ['tuner', 'runtime', 'plan', 'blas', 'templates']
SEARCH = ['plan', 'blas', 'runtime', 'templates'] + \
    sorted(os.path.join('tuner', d) for d in os.listdir('tuner')
           if os.path.isdir(os.path.join('tuner', d)))

files = []
for root in ROOTS:
    for d, _, names in os.walk(root):
        files += [os.path.join(d, n) for n in names
                  if n.endswith(('.c', '.h', '.cu', '.cuh')) and 'tables' not in d]


def resolve(src, inc):
    for c in [os.path.join(os.path.dirname(src), inc)] + [os.path.join(s, inc) for s in SEARCH]:
        c = os.path.normpath(c)
        if os.path.exists(c):
            return c
    return None


findings = []
edges = {}
for f in files:
    top = f.split('/')[0]
    for inc in re.findall(r'#include "([^"]+)"', open(f, encoding='utf-8').read()):
        r = resolve(f, inc)
        if not r:
            continue
        to = r.split('/')[0]
        if top == 'runtime' and to == 'tuner':
            findings.append('%s includes %s: runtime/ includes nothing of tuner/' % (f, r))
        if top == 'tuner' and to == 'runtime' and r != 'runtime/gemmtab.h':
            findings.append('%s includes %s: tuner/ includes only runtime/gemmtab.h' % (f, r))
        if top in ('plan', 'templates') and to not in (top,):
            findings.append('%s includes %s: %s/ includes only its own files' % (f, r, top))
        a, b = os.path.splitext(f)[0], os.path.splitext(r)[0]
        if a != b:
            edges.setdefault(a, set()).add(b)

index, low, stack, on, n = {}, {}, [], set(), [0]
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = n[0]
    n[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        scc = []
        while True:
            w = stack.pop()
            on.discard(w)
            scc.append(w)
            if w == v:
                break
        if len(scc) > 1:
            findings.append('circle: ' + ' <-> '.join(sorted(scc)))


for v in sorted(edges):
    if v not in index:
        visit(v)
for line in findings:
    print(line)
print('ok' if not findings else '%d findings' % len(findings))
print('%d files, %d include edges between modules' % (len(files), sum(len(v) for v in edges.values())))
sys.exit(1 if findings else 0)
