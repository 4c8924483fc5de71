#!/usr/bin/env python3
"""Decide the fewest routing cycles for a pipelined sequence of AAPCs on hcube's machine (Johnsson & Ho's Corollary 2).

Johnsson & Ho 1992, Corollary 2: s AAPCs on d-bit axes sharing the memory axis take K/2 + (s-1) d cycles.
hcube pipelines Algorithm 4 with Algorithm 3's pair schedule when d does not divide K/2 (d = 3, s = 2,
K = 8: 8 cycles against the paper's 7).  This script asks a SAT solver whether T cycles suffice on the
machine hcube runs, for T = 1, 2, ..., and writes the answer (docs/multi-aapc.md, "Corollary 2 decided").

The model (every choice hcube's cycles allow, nothing more):
  * 2^n nodes of K = 2^m words, n = s d; before the cycles Lemma 1's single pre-alignment
    i -> i xor a_1 xor ... xor a_s (node bit k onto memory bit k mod d), after them the same post-alignment;
    the cycles must carry every word from its aligned source slot to its aligned destination slot of the
    generalized shuffle (l,k,j|i) -> ... (any path, any order of dimensions: the search is not restricted
    to AAPC after AAPC or to complement pairs).
  * a routing cycle has at most one exchange per cube dimension r (all-port, channel width 1).  An exchange
    is hcube's Exchange{dim r, addr, peer_addr, offset map L}: node j with bit r clear swaps its word at
    addr xor L(j) with the word of node j xor 2^r at peer_addr xor L(j xor 2^r), L any linear map from the
    node address to the memory address over GF(2).  Written per edge: the low node touches u(j) = a xor L'(j)
    (L' = L without column r, an arbitrary linear map of the other n-1 node bits) and the high node
    u(j) xor delta (delta = addr xor peer_addr xor L(2^r), an arbitrary constant).  A cycle may leave a
    dimension idle.
  * no word takes part in two exchanges of one cycle (hcube's checker, find_violation).

Restrictions, for a quicker search (a schedule they allow is one of the machine's, so their SAT decides T and
their UNSAT does not): --keep-address (delta = 0: every word keeps its address, as in Lemma 1's frame) and
--shortest (a word crosses only dimensions toward its destination node). --find-first tries both at each T and
decides T on the full model only where they find nothing: d = 3, s = 2 at T = 6 in seconds, where the full
model ran for hours without an answer. --symmetric (equal axes, m >= d) keeps only schedules the translations
(c, ..., c) map onto themselves, encoding one node in 2^d: with the other two it found d = 3, s = 3 in 9 cycles
(the farthest word's distance) in 260 s, where they alone ran two hours without an answer.

Encoding: each slot holds the destination of its word in n + m bits; a swap copies the partner's bits; the
last state must have every word at home.  T feasible implies T + 1 feasible (an idle cycle), so the
fewest cycles is the first satisfiable T.  A satisfying assignment is written as an hcube schedule file
(format hcube-schedule/1) and checked here by simulation before it is written.

Needs CaDiCaL (Debian: apt-get install cadical; scripts/install-solver.sh).  Not used by the build or
the tests: tests/host/test_aapc_sequence_sat.cpp pins the results this script printed.

Usage: scripts/corollary2_sat.py --d 3 --axes 2 --m 3 [--from 1] [--to 8] [--find-first] [--symmetric] [--out DIR]
       [--timeout S]
"""
import argparse
import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def bit(v, k):
    return (v >> k) & 1


class Cnf:
    def __init__(self):
        self.nvars = 0
        self.clauses = []

    def var(self):
        self.nvars += 1
        return self.nvars

    def vars(self, count):
        return [self.var() for _ in range(count)]

    def add(self, clause):
        self.clauses.append(clause)

    # Literal for a constant (None) or variable; helper for xor chains with constants.
    def xor(self, lits, const=0):
        """A literal equal to the xor of lits (variables, possibly negated) and const."""
        if not lits:
            t = self.var()
            self.add([t] if const else [-t])
            return t
        acc = lits[0]
        for b in lits[1:]:
            z = self.var()
            # z = acc xor b
            self.add([-z, acc, b])
            self.add([-z, -acc, -b])
            self.add([z, -acc, b])
            self.add([z, acc, -b])
            acc = z
        return -acc if const else acc

    def and_eq(self, out, lits):
        """out <-> AND(lits)."""
        for x in lits:
            self.add([-out, x])
        self.add([out] + [-x for x in lits])

    def dimacs(self):
        lines = [f"p cnf {self.nvars} {len(self.clauses)}"]
        lines.extend(" ".join(map(str, c)) + " 0" for c in self.clauses)
        return "\n".join(lines) + "\n"


def solver_model(stdout):
    """The true variables of a DIMACS solver's "v" lines."""
    model = set()
    for line in stdout.splitlines():
        if line.startswith("v "):
            model.update(int(x) for x in line[2:].split() if int(x) > 0)
    return model


def routing_target(n, m, widths):
    """Aligned slot -> aligned slot of the word that is there before the cycles (Lemma 1 around the shuffle)."""
    offsets = [sum(widths[:u]) for u in range(len(widths))]

    def fold(node):
        x = 0
        for u, w in enumerate(widths):
            x ^= (node >> offsets[u]) & ((1 << w) - 1)
        return x

    def shuffle(node, local):
        for u, w in enumerate(widths):
            lo = (1 << w) - 1
            axis = (node >> offsets[u]) & lo
            mem = local & lo
            node = (node & ~(lo << offsets[u])) | (mem << offsets[u])
            local = (local & ~lo) | axis
        return node, local

    target = {}
    for node in range(1 << n):
        for x in range(1 << m):
            src_local = x ^ fold(node)
            dn, dl = shuffle(node, src_local)
            target[(node, x)] = (dn, dl ^ fold(dn))
    return target


def translation(n, m, widths, c):
    """The symmetry (c, ..., c) of equal axes: node xor c on every axis; the aligned address xor c when the
    shuffle has an even number of axes (Lemma 1's fold then counts c an odd number of times), else unchanged.
    Returned as the xor it applies to a destination code (node << m | address)."""
    offsets = [sum(widths[:u]) for u in range(len(widths))]
    node = 0
    for o in offsets:
        node |= c << o
    return (node << m) | (c if len(widths) % 2 == 0 else 0)


def encode(n, m, widths, T, keep_address=False, shortest=False, symmetric=False):
    cnf = Cnf()
    N, K = 1 << n, 1 << m
    B = n + m  # bits of a destination
    target = routing_target(n, m, widths)
    d = widths[0]
    mask = (1 << d) - 1
    if symmetric:
        # A restriction: schedules invariant under the translations (c, ..., c), whose states are then too, so
        # only nodes with axis 1 = 0 are encoded; a word from a node elsewhere is the translate of a tracked one.
        if len(set(widths)) != 1 or m < d:
            sys.exit("--symmetric needs equal axes with m >= d")
        for c in range(1 << d):
            tc = translation(n, m, widths, c)
            for (j, u), (dn, dl) in target.items():
                moved = target[(j ^ (tc >> m), u ^ (tc & (K - 1)))]
                assert moved == (dn ^ (tc >> m), dl ^ (tc & (K - 1))), "the shuffle is not translation-invariant"
    nodes = [j for j in range(N) if not symmetric or j & mask == 0]
    # dest[t][(j, u)]: list of B literals (t = 0 and t = T are constants, given as +/- of a fixed true var).
    true = cnf.var()
    cnf.add([true])

    def const_bits(value):
        return [true if bit(value, b) else -true for b in range(B)]

    def code(slot):
        j, u = slot
        return (j << m) | u

    dest = [{(j, u): const_bits(code(target[(j, u)])) for j in nodes for u in range(K)}]
    params = []
    for t in range(T):
        cyc = []
        touch = {}  # (r, j, u) -> literal: node j's word at u takes part in the exchange of dimension r
        out = {}  # (r, j) -> B literals: the destination of the word node j sends across dimension r
        for r in range(n):
            act = cnf.var()
            a = cnf.vars(m)
            cols = {k: cnf.vars(m) for k in range(n) if k != r}
            delta = cnf.vars(m)
            if keep_address:  # a restriction, for a quicker search: peer_addr = addr xor L(2^r)
                for v in delta:
                    cnf.add([-v])
            cyc.append({"act": act, "a": a, "cols": cols, "delta": delta})
            if symmetric:
                # u(j xor (c,..,c)) = u(j) xor (the translation's address part), for c = each bit b.
                parity = translation(n, m, widths, 1) & 1
                for b in range(d):
                    members = [k for k in range(b, n, d) if k != r]
                    for bb in range(m):
                        lits = [cols[k][bb] for k in members] + ([delta[bb]] if r % d == b else [])
                        cnf.add([-cnf.xor(lits, 1 if (parity and bb == b) else 0)])
            pairs = []
            for j in range(N):
                if bit(j, r):
                    continue
                if symmetric and j & mask != 0 and (j | (1 << r)) & mask != 0:
                    continue
                pairs.append(j)
            for j in pairs:
                # Address bits touched by the low node j and the high node j ^ 2^r.
                lo_bits = [cnf.xor([a[b]] + [cols[k][b] for k in cols if bit(j, k)]) for b in range(m)]
                hi_bits = [cnf.xor([lo_bits[b], delta[b]]) for b in range(m)]
                for node, bits in ((j, lo_bits), (j | (1 << r), hi_bits)):
                    if symmetric and node & mask != 0:
                        continue
                    sent = cnf.vars(B)
                    out[(r, node)] = sent
                    for u in range(K):
                        lit = cnf.var()
                        cnf.and_eq(lit, [act] + [bits[b] if bit(u, b) else -bits[b] for b in range(m)])
                        touch[(r, node, u)] = lit
                        src = dest[t][(node, u)]
                        if shortest:  # a restriction: a word only crosses r toward its destination
                            cnf.add([-lit, -src[m + r] if bit(node, r) else src[m + r]])
                        for b in range(B):
                            cnf.add([-lit, -src[b], sent[b]])
                            cnf.add([-lit, src[b], -sent[b]])
        params.append(cyc)
        last = t == T - 1
        nxt = {}
        for j in nodes:
            for u in range(K):
                slot = (j, u)
                new = const_bits(code(slot)) if last else cnf.vars(B)
                nxt[slot] = new
                lits = [touch[(r, j, u)] for r in range(n)]
                # No word in two exchanges of one cycle.
                for x in range(n):
                    for y in range(x + 1, n):
                        cnf.add([-lits[x], -lits[y]])
                old = dest[t][slot]
                # Implied, to help the solver: a word moves at most one dimension per cycle, so the word here
                # after cycle t (time t+1) is at most T-t-1 dimensions from its destination node.
                if not last:
                    far = [new[m + k] if not bit(j, k) else -new[m + k] for k in range(n)]
                    left = T - t - 1
                    if left < n:
                        for group in itertools.combinations(far, left + 1):
                            cnf.add([-x for x in group])
                for b in range(B):  # untouched: the word stays
                    cnf.add(lits + [-old[b], new[b]])
                    cnf.add(lits + [old[b], -new[b]])
                for r in range(n):  # touched: the partner's word arrives
                    peer = j ^ (1 << r)
                    if symmetric and peer & mask:  # the tracked node's word, translated
                        flip = translation(n, m, widths, peer & mask)
                        src = [-v if bit(flip, b) else v for b, v in enumerate(out[(r, peer ^ (flip >> m))])]
                    else:
                        src = out[(r, peer)]
                    for b in range(B):
                        cnf.add([-lits[r], -src[b], new[b]])
                        cnf.add([-lits[r], src[b], -new[b]])
        dest.append(nxt)
    return cnf, params


def decode(model, params, n, m):
    """The exchanges of a satisfying assignment, cycle by cycle."""
    val = lambda v: v in model
    cycles = []
    for cyc in params:
        ex = []
        for r, p in enumerate(cyc):
            if not val(p["act"]):
                continue
            num = lambda bits: sum(1 << b for b, v in enumerate(bits) if val(v))
            a, delta = num(p["a"]), num(p["delta"])
            cols = [0 if k == r else num(p["cols"][k]) for k in range(n)]
            ex.append({"dim": r, "addr": a, "peer_addr": a ^ delta, "columns": cols})
        cycles.append(ex)
    return cycles


def simulate(n, m, widths, cycles):
    """Runs the exchanges on the aligned slots and checks every word ends at home (independent of the CNF)."""
    N, K = 1 << n, 1 << m
    target = routing_target(n, m, widths)
    mem = {slot: target[slot] for slot in target}  # slot -> destination of the word there
    for ex in cycles:
        used = set()
        moves = []
        for e in ex:
            r = e["dim"]
            for j in range(N):
                if bit(j, r):
                    continue
                off = 0
                for k in range(n):
                    if bit(j, k):
                        off ^= e["columns"][k]
                hi = j | (1 << r)
                s1, s2 = (j, e["addr"] ^ off), (hi, e["peer_addr"] ^ off)  # column r is 0
                for s in (s1, s2):
                    if s in used:
                        raise AssertionError(f"word {s} in two exchanges")
                    used.add(s)
                moves.append((s1, s2))
        for s1, s2 in moves:
            mem[s1], mem[s2] = mem[s2], mem[s1]
    return all(mem[s] == s for s in mem)


def schedule_json(n, m, d, widths, cycles):
    """The found cycles as an hcube schedule file (docs/schedule-format.md)."""
    maps = []
    out_cycles = []
    for ex in cycles:
        row = []
        for e in ex:
            maps.append(e["columns"])
            row.append({"dim": e["dim"], "addr": e["addr"], "peer_addr": e["peer_addr"], "map": len(maps)})
        out_cycles.append(row)
    sch = {"format": "hcube-schedule/1", "algorithm": "sat", "d": d, "n": n, "m": m, "axes": len(widths),
           "offset_maps": maps, "cycles": out_cycles}
    if len(set(widths)) > 1:
        sch["axis_dims"] = widths
    return sch


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=3)
    ap.add_argument("--axes", type=int, default=2)
    ap.add_argument("--dims", type=str, default="", help="axis orders d_1,d_2,... (instead of --d/--axes)")
    ap.add_argument("--m", type=int, default=0, help="memory bits (default d_1)")
    ap.add_argument("--from", dest="lo", type=int, default=1)
    ap.add_argument("--to", dest="hi", type=int, default=0, help="last T tried (default: until satisfiable)")
    ap.add_argument("--timeout", type=int, default=0, help="seconds per solver call (0: none)")
    ap.add_argument("--out", default="", help="folder for results.json and the schedule found")
    ap.add_argument("--solver", default="cadical")
    ap.add_argument("--keep-address", action="store_true",
                    help="restrict the search to exchanges whose word keeps its address (delta = 0): its UNSAT "
                         "decides nothing about the full model, its SAT does")
    ap.add_argument("--shortest", action="store_true",
                    help="restrict the search to words crossing only dimensions toward their destinations: its UNSAT "
                         "decides nothing about the full model, its SAT does")
    ap.add_argument("--find-first", action="store_true",
                    help="at each T, first search the restricted model (--keep-address --shortest), whose schedules "
                         "are few and quick to find; only where it has none, decide T on the full model")
    ap.add_argument("--symmetric", action="store_true",
                    help="restrict the search to schedules invariant under the translations (c, ..., c) of equal "
                         "axes, encoding one node in 2^d: its UNSAT decides nothing about the full model, its SAT does")
    args = ap.parse_args()
    widths = [int(w) for w in args.dims.split(",")] if args.dims else [args.d] * args.axes
    n, m = sum(widths), args.m or widths[0]
    if shutil.which(args.solver) is None:
        sys.exit(f"{args.solver} not found: run scripts/install-solver.sh")
    restricted = args.keep_address or args.shortest or args.symmetric
    results = {"widths": widths, "n": n, "m": m, "solver": args.solver,
               "keep_address": args.keep_address, "shortest": args.shortest, "symmetric": args.symmetric,
               "solver_version": subprocess.run([args.solver, "--version"], capture_output=True, text=True).stdout.strip(),
               "runs": []}
    label = ",".join(map(str, widths))

    def solve(T, keep, shortest):
        """One solver call: the run's record (with the schedule found, simulated, when satisfiable)."""
        t0 = time.time()
        cnf, params = encode(n, m, widths, T, keep, shortest, args.symmetric)
        text = cnf.dimacs()
        digest = hashlib.sha256(text.encode()).hexdigest()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "f.cnf")
            with open(path, "w") as f:
                f.write(text)
            cmd = [args.solver, "-q", path]
            if args.timeout:
                cmd[1:1] = ["-t", str(args.timeout)]  # CaDiCaL's time limit; it refuses "-t=N"
            proc = subprocess.run(cmd, capture_output=True, text=True)
        took = time.time() - t0
        status = {10: "SAT", 20: "UNSAT"}.get(proc.returncode, "UNKNOWN")
        model_name = "+".join(name for name, on in (("keep-address", keep), ("shortest", shortest),
                                                    ("symmetric", args.symmetric)) if on) or "full"
        run = {"T": T, "model": model_name, "status": status, "vars": cnf.nvars, "clauses": len(cnf.clauses),
               "cnf_sha256": digest, "seconds": round(took, 1)}
        print(f"dims {label} m {m}: T = {T} ({model_name}): {status} ({cnf.nvars} vars, {len(cnf.clauses)} clauses, "
              f"{took:.1f} s)", flush=True)
        if status == "SAT":
            cycles = decode(solver_model(proc.stdout), params, n, m)
            if not simulate(n, m, widths, cycles):
                sys.exit("internal error: the solver's schedule does not route every word home")
            run["schedule"] = schedule_json(n, m, widths[0], widths, cycles)
        return run

    T = args.lo
    while True:
        # A restricted model's schedule is one of the full model's, so its SAT decides T; its UNSAT does not.
        status = "UNSAT"
        if args.find_first:
            run = solve(T, True, True)
            results["runs"].append(run)
            status = run["status"]
        if status != "SAT":
            run = solve(T, args.keep_address, args.shortest)
            results["runs"].append(run)
            status = run["status"]
        if status == "SAT":
            results["fewest_cycles"] = T
            break
        if status == "UNKNOWN" or (args.hi and T >= args.hi):
            break
        T += 1
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        name = os.path.join(args.out, f"corollary2_{label.replace(',', '-')}_m{m}{'_restricted' if restricted else ''}.json")
        with open(name, "w") as f:
            json.dump(results, f, indent=1)
        print(f"wrote {name}")


if __name__ == "__main__":
    main()
