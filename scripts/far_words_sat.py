#!/usr/bin/env python3
"""A relaxation of corollary2_sat.py's machine model that tracks only the far words (a lower-bound tool).

corollary2_sat.py encodes the whole machine: every slot of every node, per cycle.  This script keeps the
same exchange variables and every constraint the machine puts on the exchanges, but routes only the
words that start at least --min-dist dimensions from their destination node, one word at a time:

  * exchange (cycle t, dimension r): act, addr a (m bits) and an m x n matrix M over GF(2); node j takes
    part with its word at address a xor M j.  Column r of M is corollary2_sat.py's delta, the other
    columns its L' (both ends of an edge: the low node j touches a xor L'(j), the high node
    a xor L'(j) xor delta).  With peer_addr and L of an hcube Exchange: delta = addr xor peer_addr
    xor L(2^r), the other columns those of L.
  * no word in two exchanges of a cycle, for every slot of every node (not only the tracked words'):
    dimensions r and r' touch a common slot iff a_r xor a_r' lies in the column space of M_r xor M_r',
    so they do not iff some functional f of the memory address has f (M_r xor M_r') = 0 and
    f (a_r xor a_r') = 1 (the Fredholm alternative over GF(2)); f is a variable per pair and cycle.
  * a tracked word at (node j, address u) in cycle t crosses dimension r exactly when exchange (t, r) is
    active and u = a_r xor M_r j, arriving at address u xor delta_r (column r of M_r) on node j xor 2^r;
    it stays where it is when no exchange touches its slot.  After the T cycles it is at its
    destination (Lemma 1's aligned frame, the generalized shuffle: corollary2_sat.routing_target).

Dropping the other words' routing only removes constraints, so UNSAT here at T proves that no schedule
of the machine takes T cycles; SAT here says nothing (the schedule may strand untracked words).
--min-dist 0 tracks every word: then it is the whole model again, in a word-centric form, which is how
the encoding is checked against corollary2_sat.py's answers.  --fix FILE fixes the exchanges to those
of an hcube schedule file: a valid schedule must give SAT (a check that the encoding admits it).

Checks (2026-11-28, CaDiCaL sc2021): --min-dist 0 gives d = 2, s = 2, K = 4: T = 4 SAT, T = 3 UNSAT; orders 2,1:
T = 3 SAT, T = 2 UNSAT (corollary2_sat.py's answers); --fix with the found d = 3, s = 2 schedule (T = 6) and
orders 3,3,2 (T = 8) SAT, with one exchange of the former left out UNSAT; --proof writes a text DRAT proof
(d = 2, s = 2, K = 4, T = 3: drat-trim says VERIFIED).  Three axes of order 3 at T = 9: the
far words alone (distance 9: 8 words, SAT at once; 9 words: SAT in 24 s) say nothing, and from 10 words on
(also at T = 10, known feasible) CaDiCaL found no answer in minutes; distance >= 8 (80 words, 364,324 vars,
1.5 M clauses) and >= 7 (368 words, 1.57 M vars, 6.5 M clauses) ran without an answer (docs: still undecided).

Usage: scripts/far_words_sat.py --d 3 --axes 3 --T 9 --min-dist 8 [--limit N] [--fix FILE] [--cnf F] [--solve]
       [--timeout S] [--proof F]
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corollary2_sat import Cnf, bit, routing_target, simulate, solver_model  # noqa: E402


def parity_is(cnf, lits, value, cond):
    """Clauses: AND(cond) -> xor(lits) == value."""
    x = cnf.xor(lits) if lits else None
    if x is None:
        if value:
            cnf.add([-c for c in cond])
        return
    cnf.add([-c for c in cond] + ([x] if value else [-x]))


def encode(n, m, widths, T, min_dist, fixed=None, far_bound=True, limit=0):
    cnf = Cnf()
    N, K = 1 << n, 1 << m
    true = cnf.var()
    cnf.add([true])
    F = -true
    target = routing_target(n, m, widths)
    ex = []  # ex[t][r] = {"act", "a": [m], "M": [m][n]}
    for t in range(T):
        row = []
        for r in range(n):
            act = cnf.var()
            a = cnf.vars(m)
            M = [cnf.vars(n) for _ in range(m)]
            row.append({"act": act, "a": a, "M": M})
            for v in a + [x for rowm in M for x in rowm]:  # an idle exchange's parameters are 0 (they touch nothing)
                cnf.add([act, -v])
        ex.append(row)
        # No slot in two exchanges of one cycle (for every node), via a separating functional per pair.
        for r, q in itertools.combinations(range(n), 2):
            f = cnf.vars(m)
            cond = [row[r]["act"], row[q]["act"]]

            def prod(b, x, y):
                z = cnf.xor([x, y])
                e = cnf.var()
                cnf.and_eq(e, [f[b], z])
                return e

            parity_is(cnf, [prod(b, row[r]["a"][b], row[q]["a"][b]) for b in range(m)], 1, cond)
            for k in range(n):
                parity_is(cnf, [prod(b, row[r]["M"][b][k], row[q]["M"][b][k]) for b in range(m)], 0, cond)
        if n > K:  # implied: a node has K slots, so at most K dimensions are active in a cycle
            cnf.add([-row[r]["act"] for r in range(n)])
    if fixed is not None:
        for t in range(T):
            cyc = fixed[t] if t < len(fixed) else []
            by_dim = {e["dim"]: e for e in cyc}
            for r in range(n):
                p = ex[t][r]
                if r not in by_dim:
                    cnf.add([-p["act"]])
                    continue
                e = by_dim[r]
                cols = e["columns"]
                delta = e["addr"] ^ e["peer_addr"] ^ cols[r]
                cnf.add([p["act"]])
                for b in range(m):
                    cnf.add([p["a"][b] if bit(e["addr"], b) else -p["a"][b]])
                    for k in range(n):
                        v = delta if k == r else cols[k]
                        cnf.add([p["M"][b][k] if bit(v, b) else -p["M"][b][k]])

    words = []
    for (j, u), (dj, du) in sorted(target.items()):
        if bin(j ^ dj).count("1") >= min_dist:
            words.append(((j, u), (dj, du)))
    if limit:  # the farthest `limit` words (a subset: still a relaxation)
        words.sort(key=lambda w: -bin(w[0][0] ^ w[1][0]).count("1"))
        words = words[:limit]
    for (j, u), (dj, du) in words:
        const = lambda v, w: [true if bit(v, b) else F for b in range(w)]
        nd = [const(j, n)] + [cnf.vars(n) for _ in range(T - 1)] + [const(dj, n)]
        ad = [const(u, m)] + [cnf.vars(m) for _ in range(T - 1)] + [const(du, m)]
        for t in range(T):
            c = cnf.vars(n)
            for x, y in itertools.combinations(c, 2):
                cnf.add([-x, -y])
            for k in range(n):  # node bit k flips iff the word crosses k
                p, q, s = nd[t][k], nd[t + 1][k], c[k]
                cnf.add([-s, p, q]); cnf.add([-s, -p, -q]); cnf.add([s, p, -q]); cnf.add([s, -p, q])
            for r in range(n):
                p = ex[t][r]
                delta = [p["M"][b][r] for b in range(m)]
                for b in range(m):  # crossing r: address xor delta_r
                    x, y, dl = ad[t][b], ad[t + 1][b], delta[b]
                    cnf.add([-c[r], -x, -y, -dl]); cnf.add([-c[r], x, y, -dl])
                    cnf.add([-c[r], -x, y, dl]); cnf.add([-c[r], x, -y, dl])
                # touched iff active and u = a xor M j
                g = []
                for b in range(m):
                    terms = [p["a"][b]]
                    for k in range(n):
                        lit = nd[t][k]
                        if lit == true:
                            terms.append(p["M"][b][k])
                        elif lit == F:
                            continue
                        else:
                            e = cnf.var()
                            cnf.and_eq(e, [p["M"][b][k], lit])
                            terms.append(e)
                    g.append(cnf.xor(terms))
                cnf.add([-c[r], p["act"]])
                for b in range(m):
                    cnf.add([-c[r], -ad[t][b], g[b]]); cnf.add([-c[r], ad[t][b], -g[b]])
                for v in range(K):
                    cl = [-p["act"], c[r]]
                    for b in range(m):
                        cl += [-ad[t][b], -g[b]] if bit(v, b) else [ad[t][b], g[b]]
                    cnf.add(cl)
            for b in range(m):  # staying: address kept
                x, y = ad[t][b], ad[t + 1][b]
                cnf.add(c + [-x, y]); cnf.add(c + [x, -y])
        if far_bound:  # implied: at most T - t dimensions from the destination after t cycles
            for t in range(1, T):
                left = T - t
                if left < n:
                    far = [nd[t][k] if not bit(dj, k) else -nd[t][k] for k in range(n)]
                    for group in itertools.combinations(far, left + 1):
                        cnf.add([-x for x in group])
    return cnf, ex, words


def decode(model, ex, n, m):
    cycles = []
    for row in ex:
        out = []
        for r, p in enumerate(row):
            if p["act"] not in model:
                continue
            num = lambda bits: sum(1 << b for b, v in enumerate(bits) if v in model)
            a = num(p["a"])
            cols = [sum(1 << b for b in range(m) if p["M"][b][k] in model) for k in range(n)]
            delta = cols[r]
            cols[r] = 0
            out.append({"dim": r, "addr": a, "peer_addr": a ^ delta, "columns": cols})
        cycles.append(out)
    return cycles


def load_schedule(path, n):
    sch = json.load(open(path))
    if "schedule" in sch:
        sch = sch["schedule"]
    if "runs" in sch:
        sch = [r for r in sch["runs"] if r["status"] == "SAT"][-1]["schedule"]
    maps = sch["offset_maps"]
    cycles = []
    for cyc in sch["cycles"]:
        row = []
        for e in cyc:
            cols = list(maps[e["map"] - 1]) if e.get("map") else [0] * n
            cols += [0] * (n - len(cols))
            row.append({"dim": e["dim"], "addr": e["addr"], "peer_addr": e.get("peer_addr", e["addr"]),
                        "columns": cols})
        cycles.append(row)
    return cycles


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=3)
    ap.add_argument("--axes", type=int, default=3)
    ap.add_argument("--dims", default="")
    ap.add_argument("--m", type=int, default=0)
    ap.add_argument("--T", type=int, required=True)
    ap.add_argument("--min-dist", type=int, default=0, help="track words this many dimensions from home or more")
    ap.add_argument("--limit", type=int, default=0, help="track only this many of them, farthest first")
    ap.add_argument("--fix", default="", help="fix the exchanges to an hcube schedule file's")
    ap.add_argument("--no-far-bound", action="store_true", help="leave out the implied distance clauses")
    ap.add_argument("--cnf", default="", help="write the CNF here")
    ap.add_argument("--solve", action="store_true")
    ap.add_argument("--proof", default="", help="DRAT proof file for cadical")
    ap.add_argument("--timeout", type=int, default=0)
    args = ap.parse_args()
    widths = [int(w) for w in args.dims.split(",")] if args.dims else [args.d] * args.axes
    n, m = sum(widths), args.m or widths[0]
    fixed = load_schedule(args.fix, n) if args.fix else None
    if fixed is not None and not simulate(n, m, widths, fixed):
        print("note: the fixed schedule does not route every word home in the script's simulation")
    t0 = time.time()
    cnf, ex, words = encode(n, m, widths, args.T, args.min_dist, fixed, not args.no_far_bound, args.limit)
    hist = {}
    for (j, _), (dj, _) in words:
        dd = bin(j ^ dj).count("1")
        hist[dd] = hist.get(dd, 0) + 1
    print(f"dims {widths} m {m} T {args.T} min-dist {args.min_dist}: {len(words)} words {dict(sorted(hist.items()))}, "
          f"{cnf.nvars} vars, {len(cnf.clauses)} clauses ({time.time() - t0:.1f} s)", flush=True)
    path = args.cnf or f"/tmp/far_{os.getpid()}.cnf"
    with open(path, "w") as f:
        f.write(cnf.dimacs())
    if not args.solve:
        return
    cmd = ["cadical", "-q"]
    if args.timeout:
        cmd += ["-t", str(args.timeout)]
    if args.proof:  # a text DRAT proof, for drat-trim
        cmd += ["--no-binary", path, args.proof]
    else:
        cmd.append(path)
    t0 = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    status = {10: "SAT", 20: "UNSAT"}.get(proc.returncode, "UNKNOWN")
    print(f"{status} in {time.time() - t0:.1f} s", flush=True)
    if status == "SAT":
        cycles = decode(solver_model(proc.stdout), ex, n, m)
        ok = simulate(n, m, widths, cycles)
        print("the exchanges found route every word home (simulated)" if ok else
              "the exchanges found do not route every word home (expected of a relaxation)")
    if not args.cnf:
        os.remove(path)


if __name__ == "__main__":
    main()
