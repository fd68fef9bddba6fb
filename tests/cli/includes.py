"""includes.py: the include graph of tuner/, runtime/, plan/, blas/ and
templates/ (every #include "..." resolved as the Makefile's -I paths do),
checked for the project's boundaries and for circles, and the call graph
of their .c files checked for circles. Prints one line per finding and
"ok" when there is none; exit status 1 on a finding.
A module is a .c or .cu file with its .h of the same name in its folder:
a circle is a run of modules that include each other round. A call edge
runs from a .c file to the .c file that defines a global function it
names (a call or a function pointer); a call circle is a run of files that call each other round.

The stages of tuner/ (one folder each) keep an order: a stage includes
and calls only the stages STAGES lets it, and nothing below calls up.

    cli                              main, options, one file per subcommand
     |-> bench                       gemmtab bench's engine: the library
     |     |-> sweep, emit, db       timed through the supervisor, reported
     |-> sweep                       the search and the supervisor
     |     |-> db, emit              (sweep, emit and report -> db)
     |    (a pipe) -> worker         the GPU process: no include, no call
     |-> worker                      (cmd_worker.c starts it)
    emit (and its report) -> db
    worker, sweep, bench, emit -> jit -> space; proto (the wire format,
    below sweep, bench and worker); util below everything

The sweep and the bench reach the worker only through its process (the
supervisor, sweep/supervise.c) and proto/, so neither runs CUDA; the
statistics both read (util/stats.c) are pure C. A crossing is one line "FILE includes TARGET: STAGE/ may not include
STAGE2/" (or "calls NAME of FILE2"); ALLOWED lists the crossings that
stand for now, each with why."""
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


# the tuner's stages and the stages each may include or call
STAGES = {
    'cli': {'bench', 'sweep', 'worker', 'emit', 'db', 'jit', 'space', 'proto', 'util'},
    'bench': {'sweep', 'db', 'emit', 'jit', 'space', 'proto', 'util'},
    'sweep': {'db', 'emit', 'jit', 'space', 'proto', 'util'},
    'worker': {'jit', 'space', 'proto', 'util'},
    'emit': {'db', 'space', 'util'},
    'db': {'util'},
    'jit': {'space', 'util'},
    'space': {'util'},
    'proto': {'util'},
    'util': set(),
}
# Crossings that stand for now: (stage, the stage it reaches) -> why. Each
# is to go; one that no longer crosses is named in a note, so it can be
# dropped. None stands today.
ALLOWED = {}


def stage_of(path):
    """The tuner stage of a path (tuner/STAGE/...), or None outside tuner/."""
    parts = path.split('/')
    return parts[1] if len(parts) > 2 and parts[0] == 'tuner' else None


allowed_used = {}


def crossing(f, r, how):
    """A finding when file f reaching r (how: 'includes X' or 'calls N of
    X') breaks the stage order, else None."""
    a, b = stage_of(f), stage_of(r)
    if not a or not b or a == b:
        return None
    if a not in STAGES:
        return '%s %s: tuner/%s/ is no stage of includes.py (add it to STAGES)' % (f, how, a)
    if b in STAGES[a]:
        return None
    if (a, b) in ALLOWED:
        allowed_used.setdefault((a, b), set()).add(f)
        return None
    return '%s %s: %s/ may not reach %s/ (stage order: tests/cli/includes.py)' % (f, how, a, b)


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
        bad = crossing(f, r, 'includes ' + r)
        if bad:
            findings.append(bad)
        a, b = os.path.splitext(f)[0], os.path.splitext(r)[0]
        if a != b:
            edges.setdefault(a, set()).add(b)

sys.setrecursionlimit(10000)


def circles(edges):
    """The strongly connected parts of more than one node (Tarjan)."""
    index, low, stack, on, n, out = {}, {}, [], set(), [0], []

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
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
                out.append(sorted(scc))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


for scc in circles(edges):
    findings.append('circle: ' + ' <-> '.join(scc))


def code_of(path):
    """The text of a C file without comments and string literals."""
    text = open(path, encoding='utf-8').read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


DEF = re.compile(r'^(?!static\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;{)]*\)\s*\{',
                 re.M)
code = {f: code_of(f) for f in files if f.endswith('.c')}
defined = {}
for f, text in code.items():
    for name in DEF.findall(text):
        defined.setdefault(name, f)
calls, why = {}, {}
for f, text in code.items():
    for name in set(re.findall(r'\b([A-Za-z_]\w*)\b', text)):
        g = defined.get(name)
        if g and g != f:
            calls.setdefault(f, set()).add(g)
            why.setdefault((f, g), []).append(name)
for (f, g), names in sorted(why.items()):
    bad = crossing(f, g, 'calls %s of %s' % (', '.join(sorted(names)[:3]), g))
    if bad:
        findings.append(bad)
for scc in circles(calls):
    hops = ['%s calls %s' % (f, ', '.join(sorted(why[(f, g)])[:3]))
            for f in scc for g in scc if (f, g) in why]
    findings.append('call circle: ' + ' <-> '.join(scc) + ' (' + '; '.join(hops) + ')')

for (a, b), reason in sorted(ALLOWED.items()):
    if (a, b) in allowed_used:
        print('allowed for now: %s/ -> %s/ (%s): %s'
              % (a, b, ', '.join(sorted(allowed_used[(a, b)])), reason))
    else:
        print('note: %s/ no longer reaches %s/: drop its ALLOWED entry' % (a, b))
for line in findings:
    print(line)
print('ok' if not findings else '%d findings' % len(findings))
print('%d files, %d include edges between modules, %d call edges between .c files'
      % (len(files), sum(len(v) for v in edges.values()), sum(len(v) for v in calls.values())))
sys.exit(1 if findings else 0)
