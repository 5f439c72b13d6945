"""Runs cases in batches through fuserc and reports mismatches with a
one-line reproducer each."""

import argparse
import fnmatch
import os
import shlex
import shutil
import sys
import tempfile
import time
import zlib

import numpy as np

from .core import FusercBroken as core_FusercBroken
from .core import Env, Part, checked_results, compare, execute, run_fuserc
from .known_failures import KNOWN_FAILURES


def rng_factory(seed):
    def rng_for(name):
        return np.random.default_rng([seed, zlib.crc32(name.encode())])
    return rng_for


def _fname(name):
    return "".join(c if c.isalnum() else "_" for c in name).strip("_") or "fusion"


def _matches(kf, case, part=None):
    for g in kf.cases:
        if part is None and fnmatch.fnmatchcase(case.name, g):
            return True
        if part is not None and fnmatch.fnmatchcase("%s:%s" % (case.name, part.label), g):
            return True
    return False


def _skipping(case, part=None):
    """The known failure (with neither an excuse mask nor an error) that
    skips this case or part."""
    for kf in KNOWN_FAILURES:
        if kf.excuse is None and kf.error is None and _matches(kf, case, part):
            return kf
    return None


def _expected_error(case, part, err):
    """The known failure whose `error` explains fuserc's message `err`."""
    import re
    for kf in KNOWN_FAILURES:
        if kf.error and _matches(kf, case, part) and re.search(kf.error, err):
            return kf
    return None


def _excuse_for(case):
    """A function masking the elements known failures explain in `case`."""
    kfs = [kf for kf in KNOWN_FAILURES if kf.excuse is not None and (
        _matches(kf, case) or any(_matches(kf, case, p) for p in case.parts))]
    if not kfs:
        return None

    def excuse(got, wants, t, ctx, bad):
        """The failing elements some known failure explains against some
        reference; each counts once, for the first entry that explains it."""
        mask = np.zeros(got.shape, bool)
        for kf in kfs:
            m = np.zeros(got.shape, bool)
            for w in wants:
                m |= kf.excuse(got, w, t, ctx)
            m &= bad & ~mask
            kf.excused += int(np.count_nonzero(m))
            mask |= m
        return mask
    return excuse


class Runner:
    def __init__(self, env, seed, batch_parts=24, include_known=False, out=sys.stdout,
                 source_root=None):
        self.env, self.seed, self.batch_parts = env, seed, batch_parts
        self.include_known = include_known
        self.out = out
        self.failures = []   # (case name, part label, message, reproducer)
        self.passed_parts = 0
        self.skipped = []
        self.source_root = source_root

    def log(self, msg):
        self.out.write(msg + "\n")
        self.out.flush()

    # -- reproducers -------------------------------------------------------
    def reproduce(self, case, part, extra):
        """Writes the failing part alone to the keep directory; returns the
        one-line fuserc command and whether it fails alone too."""
        d = os.path.join(self.env.keep_dir, _fname(case.name + "_" + part.label))
        shutil.rmtree(d, ignore_errors=True)
        fname = _fname(case.name.split("/")[-2] if "/" in case.name else case.name)
        res, err, cmd = execute(self.env, fname, [part], extra, directory=d)
        alone = None
        if res is None:
            alone = "fails alone: " + err.strip().splitlines()[-1] if err.strip() else "fails alone"
        else:
            probs = compare([part], res, None if self.include_known else _excuse_for(case))[0]
            alone = "fails alone" if probs else "passes alone (fails only batched)"
        line = " ".join(shlex.quote(c) for c in cmd)
        oracle = "%s %s --case %s --seed %d" % (
            "/usr/bin/python3", os.path.join(self.source_root or ".", "test/oracle/run.py"),
            shlex.quote(case.name), self.seed)
        return line, oracle, alone

    def record(self, case, part, message, extra):
        line, oracle, alone = self.reproduce(case, part, extra)
        self.failures.append((case.name, part.label, message, line))
        self.log("FAIL %s [%s] (%s)\n%s\n  reproduce: %s\n  or: %s" % (
            case.name, part.label, alone, _indent(message), line, oracle))

    # -- running -----------------------------------------------------------
    # fuserc run takes at most this many --input options.
    MAX_INPUTS = 64

    def run_batch(self, items, extra, known=None):
        """Runs (case, part) items as one fusion; on an error, one by one
        (unless the error is the known failure `known` expects for them)."""
        parts = [p for _, p in items]
        names = sorted(set(c.name for c, _ in items))
        fname = _fname(names[0]) if len(names) == 1 else "batch"
        res, err, cmd = execute(self.env, fname, parts, extra)
        if res is None and known is not None:
            import re
            if re.search(known.error, err):
                known.excused += len(items)
                return
        if res is None:
            if len(items) > 1:
                self.log("note: %s (%d parts) failed as one fusion; running its parts one "
                         "by one: %s" % (fname, len(parts), (err.strip().splitlines() or ["?"])[-1][:300]))
                for it in items:
                    self.run_batch([it], extra)
                return
            case, p = items[0]
            kf = None if self.include_known else _expected_error(case, p, err)
            if kf:
                kf.excused += 1
                return
            self.record(case, p, "fuserc failed:\n" + err.strip(), extra)
            return
        k = 0
        for case, p in items:
            n = len(checked_results(p))
            self._check(case, [p], res[k:k + n], extra)
            k += n

    def _check(self, case, parts, res, extra):
        probs = compare(parts, res, None if self.include_known else _excuse_for(case))
        for p, msgs in zip(parts, probs):
            if msgs:
                self.record(case, p, "\n".join(msgs), extra)
            else:
                self.passed_parts += 1

    def run_file_case(self, case):
        """An existing .mlir file run with fuserc's --random inputs."""
        d = os.path.join(self.env.keep_dir, _fname(case.name))
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d, exist_ok=True)
        out = os.path.join(d, "out")
        extra = ["--random", str(self.seed)] + case.extra
        t0 = time.time()
        rc, err, cmd = run_fuserc(self.env, case.path, [], out, extra)
        line = " ".join(shlex.quote(c) for c in cmd)
        oracle = "/usr/bin/python3 %s --case %s --seed %d" % (
            os.path.join(self.source_root or ".", "test/oracle/run.py"), shlex.quote(case.name),
            self.seed)
        try:
            checks = case.expect(self.seed)
        except Exception as e:  # a missing reference is a failure too
            self.failures.append((case.name, "reference", str(e), line))
            self.log("FAIL %s: %s" % (case.name, e))
            return
        label = case.name.split("/")[-1]
        if rc != 0:
            kf = None if self.include_known else _expected_error(case, Part(label, [], [], []), err)
            if kf:
                kf.excused += 1
            else:
                self.failures.append((case.name, label, err, line))
                self.log("FAIL %s (fuserc failed)\n%s\n  reproduce: %s\n  or: %s" % (
                    case.name, _indent(err.strip()), line, oracle))
        else:
            got = {}
            msgs = []
            for k, sl, res in checks:
                if k not in got:
                    got[k] = np.load(os.path.join(out, "result%d.npy" % k), mmap_mode="r")
                g = np.array(got[k] if sl is None else got[k][sl])
                if sl is None:
                    where = ""
                elif isinstance(sl, slice):
                    where = " rows %d:%d" % (sl.start, sl.stop)
                else:
                    where = " %d sampled columns" % len(sl)
                p = Part("%s result %d%s" % (label, k, where), [], [], [res])
                m = compare([p], [g], None if self.include_known else _excuse_for(case))[0]
                msgs += ["%s: %s" % (p.label, x) for x in m]
            if not msgs and self.env.same_bits_cpu:
                msgs = self._same_bits(case, out, extra, d, sorted(got))
            if msgs:
                self.failures.append((case.name, label, "\n".join(msgs), line))
                self.log("FAIL %s\n%s\n  reproduce: %s\n  or: %s" % (
                    case.name, _indent("\n".join(msgs[:8])), line, oracle))
            else:
                self.passed_parts += 1
                shutil.rmtree(d, ignore_errors=True)
        if self.env.verbose:
            self.log("  %-60s %5.2f s" % (case.name, time.time() - t0))

    def _same_bits(self, case, out, extra, d, results):
        """The file case run again with the JIT compiling for the
        --same-bits-on CPU: every result checked must have the same bits."""
        cpu = self.env.same_bits_cpu
        other = os.path.join(d, "out-" + cpu)
        rc, err, _ = run_fuserc(self.env, case.path, [], other, extra, cpu=cpu)
        if rc != 0:
            return ["fuserc failed with the JIT for %s: %s" % (cpu, err.strip())]
        msgs = []
        for k in results:
            name = "result%d.npy" % k
            a = np.load(os.path.join(out, name), mmap_mode="r")
            b = np.load(os.path.join(other, name), mmap_mode="r")
            ab = np.ascontiguousarray(a).view(np.uint8)
            bb = np.ascontiguousarray(b).view(np.uint8)
            if a.shape != b.shape or not np.array_equal(ab, bb):
                msgs.append("result %d differs between the JIT for the default CPU and for %s"
                            % (k, cpu))
        return msgs

    def run(self, cases):
        items = []
        for c in [c for c in cases if hasattr(c, "expect")]:
            self.run_file_case(c)
        cases = [c for c in cases if not hasattr(c, "expect")]
        for c in cases:
            if not self.include_known:
                kf = _skipping(c)
                if kf:
                    self.skipped.append((c.name, kf))
                    continue
            for p in c.parts:
                kf = None if self.include_known else _skipping(c, p)
                if kf:
                    self.skipped.append(("%s:%s" % (c.name, p.label), kf))
                else:
                    items.append((c, p))
        # Parts a known compile or load error applies to run as fusions of
        # their own, so that the error costs no other part its batch.
        # Parts a known compile or load error applies to run in groups of
        # their own: a group failing with that error is excused as a whole
        # (without a part-by-part search), so the bug costs no other part its
        # batch and little time; once it is fixed the groups compile and are
        # checked like any batch.
        known = {}
        rest = []
        for c, p in items:
            kf = None if self.include_known else next(
                (k for k in KNOWN_FAILURES if k.error and _matches(k, c, p)), None)
            if kf:
                known.setdefault(kf.name, (kf, []))[1].append((c, p))
            else:
                rest.append((c, p))
        items = rest
        for kf, group in known.values():
            batch, ninputs = [], 0
            for c, p in group:
                if batch and (len(batch) >= 16 or ninputs + len(p.args) > self.MAX_INPUTS
                              or c.extra != batch[0][0].extra):
                    self._go(batch, kf)
                    batch, ninputs = [], 0
                batch.append((c, p))
                ninputs += len(p.args)
            if batch:
                self._go(batch, kf)
        batch, nparts, ninputs = [], 0, 0
        for c, p in items:
            n = len(p.args) + len(p.cotangents or [])
            if "--residuals" in c.extra:  # F_bwd also takes what F_fwd saved
                n *= 3
            if batch and (nparts + 1 > self.batch_parts or ninputs + n > self.MAX_INPUTS
                          or c.extra != batch[0][0].extra
                          or (p.grads is None) != (batch[0][1].grads is None)
                          or (c.alone or batch[0][0].alone) and c is not batch[0][0]):
                self._go(batch)
                batch, nparts, ninputs = [], 0, 0
            batch.append((c, p))
            nparts += 1
            ninputs += n
        if batch:
            self._go(batch)

    def _go(self, batch, known=None):
        t0 = time.time()
        nf = len(self.failures)
        self.run_batch(batch, batch[0][0].extra, known)
        if self.env.verbose:
            names = []
            for c, _ in batch:
                if c.name not in names:
                    names.append(c.name)
            self.log("  %-60s %3d parts %5.2f s%s" % (
                names[0] + (" +%d" % (len(names) - 1) if len(names) > 1 else ""), len(batch),
                time.time() - t0, "  FAIL" if len(self.failures) > nf else ""))


def _indent(s):
    return "\n".join("  " + l for l in s.splitlines())


def main(argv, suites, source_root):
    ap = argparse.ArgumentParser(
        description="fuser's PyTorch oracle: runs fusions through `fuserc run --device cpu` "
                    "and compares every result with PyTorch (docs/oracle.md)")
    ap.add_argument("suites", nargs="*", help="suites to run (default: all): " +
                    ", ".join(suites))
    ap.add_argument("--fuserc", default=None, help="fuserc binary (default: build/bin/fuserc)")
    ap.add_argument("--case", action="append", default=[],
                    help="run only cases whose name matches this glob (repeatable)")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("FUSER_ORACLE_SEED", "0")),
                    help="seed of the random inputs (default 0, or $FUSER_ORACLE_SEED)")
    ap.add_argument("--keep", default=None,
                    help="directory for the failing cases' files (default: a fresh temp dir)")
    ap.add_argument("--batch", type=int, default=64,
                    help="parts per fusion (default 64; fuserc takes at most 64 inputs)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--include-known", action="store_true",
                    help="also run the cases listed in KNOWN_FAILURES")
    ap.add_argument("--same-bits-on", metavar="CPU", default=None,
                    help="run every fusion a second time with the emulator compiling for "
                         "CPU (baseline, x86-64-v3, ...) and fail where any bit differs")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per batch")
    a = ap.parse_args(argv)

    # $FUSER_ORACLE_FUSERC overrides --fuserc: ctest can then check another
    # copy of fuserc (e.g. a snapshot while the build tree is being rebuilt)
    fuserc = os.environ.get("FUSER_ORACLE_FUSERC") or a.fuserc or \
        os.path.join(source_root, "build", "bin", "fuserc")
    names = a.suites or list(suites)
    for n in names:
        if n not in suites:
            ap.error("unknown suite '%s' (have: %s)" % (n, ", ".join(suites)))
    rng_for = rng_factory(a.seed)
    t0 = time.time()
    cases = []
    for n in names:
        cases += suites[n](rng_for)
    if a.case:
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c.name, g) for g in a.case)]
    if a.list:
        for c in cases:
            print("%s (%d parts: %s)" % (c.name, len(c.parts), "; ".join(p.label for p in c.parts)))
        return 0
    tgen = time.time() - t0
    work = tempfile.mkdtemp(prefix="fuser-oracle-")
    keep = a.keep or os.path.join(work, "failures")
    env = Env(fuserc, work, keep, a.verbose, source_root, same_bits_cpu=a.same_bits_on)
    r = Runner(env, a.seed, a.batch, a.include_known, source_root=source_root)
    try:
        r.run(cases)
    except core_FusercBroken as e:
        print("oracle: error: fuserc cannot start, stopping: %s" % e)
        return 1
    finally:
        if not r.failures:
            shutil.rmtree(work, ignore_errors=True)
    from . import core
    if core.STATS:
        for label, ri, ty, ulps, rel in core.STATS:
            print("  stats %-50s result %d %-28s max %8d ulp, max rel %.3g" % (label, ri, ty, ulps, rel))
    nparts = sum(len(c.parts) for c in cases)
    for kf in KNOWN_FAILURES:
        if kf.excused:
            print("  known failure %s: %d %s excused (reproduce: %s)" % (
                kf.name, kf.excused, "parts (failing, or in a failing group)" if kf.error else "elements", kf.reproducer))
        elif a.verbose and not r.include_known and (kf.excuse or kf.error) and any(
                _matches(kf, c) or any(_matches(kf, c, p) for p in c.parts) for c in cases):
            print("  known failure %s excused nothing in this run: fixed? (%s)" % (
                kf.name, kf.reproducer))
    print("oracle %s: %d cases, %d parts, %d passed, %d failed, %d known failures skipped; "
          "%d fuserc runs, %.1f s in fuserc, %.1f s generating, %.1f s total (seed %d)" % (
              "+".join(names), len(cases), nparts, r.passed_parts, len(r.failures),
              len(r.skipped), env.runs, env.run_seconds, tgen, time.time() - t0, a.seed))
    for name, kf in r.skipped:
        print("  known failure %s, skipped: %s" % (kf.name, name))
    if r.failures:
        print("failures (files kept in %s):" % keep)
        for name, label, _, line in r.failures:
            print("  %s [%s]: %s" % (name, label, line))
        return 1
    return 0
