#!/usr/bin/env python3
"""Reads the stream hotspot-perfparser writes (hotspot 1.3.0's "QPERFSTREAM")
and prints what hotspot's bottom-up view is made of.

The format, from hotspot 1.3.0's sources (3rdparty/perfparser/app/perfunwind.cpp
writes it, src/parsers/perf/perfparser.cpp reads it): the 12 bytes
"QPERFSTREAM\\0", the QDataStream version (int32, little-endian), then
messages, each an int32 little-endian size and that many bytes of QDataStream
(big-endian) whose first byte is the message type (enum EventType in
perfunwind.h). Of those this reader decodes StringDefinition (id, QByteArray),
LocationDefinition (id, address u64, file, pid, line, column,
parentLocationId), SymbolDefinition (id, name, binary, path, isKernel),
Command (pid, tid, time, cpu, string id), AttributesDefinition and Sample
(pid, tid, time u64, cpu u32, QVector<int32> frames, u8 guessed frames,
QVector<QPair<int32, u64>> costs) and skips the others by their size.

A sample's symbols are what hotspot's Data::BottomUpResults::foreachFrame
makes of its frames (src/models/data.h, handleFrame): each frame is a
location; its symbol is the one defined for it or, when none is, its parent's
(and the parent is then not visited again); the parents after it are the
frames it was inlined into. A symbol without a name (hotspot's "??") is
printed as "[BINARY]"; a kernel symbol's binary as "[kernel.kallsyms]"
(perfparser names none).

usage: qperfstream.py STREAM MODE
  self      "BINARY\\tSYMBOL\\tSAMPLES\\tCOST" per leaf symbol (hotspot's
            bottom-up top level: self cost), then "#total SAMPLES COST"
  children  "BINARY\\tSYMBOL\\tCOST" per symbol, each sample's cost counted
            once for every distinct symbol of its stack (hotspot's inclusive
            cost, its recursion guard)
  folded    "COMM;root;...;leaf COUNT" per distinct stack
  addrs     "ADDR,ADDR,..." per sample: its frames' addresses, leaf first,
            in hex (perfparser's frames: the sampled ip, unless the chain
            starts with it, then the chain's entries)
  frames    "MAXFRAMES" the most symbols one sample has
  cpus      "N" the number of CPUs with samples
  stats     "samples N guessed N errors N" and each error message
Exit status 1 when the stream is malformed.
"""
import struct
import sys
from collections import Counter, OrderedDict

STRING, LOCATION, SYMBOL, COMMAND, ATTRIBUTES, SAMPLE, TRACEPOINT_SAMPLE, ERROR = 5, 3, 4, 2, 11, 13, 14, 8


class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def take(self, fmt):
        v = struct.unpack_from(">" + fmt, self.d, self.p)
        self.p += struct.calcsize(">" + fmt)
        return v if len(v) > 1 else v[0]

    def bytearray(self):
        n = self.take("I")
        if n == 0xFFFFFFFF:
            return b""
        v = self.d[self.p:self.p + n]
        if len(v) != n:
            raise ValueError("QByteArray runs past its message")
        self.p += n
        return bytes(v)

    def qstring(self):
        n = self.take("I")
        if n == 0xFFFFFFFF:
            return ""
        v = self.d[self.p:self.p + n]
        self.p += n
        return v.decode("utf-16-be", "replace")

    def vector(self, fmt):
        return [self.take(fmt) for _ in range(self.take("I"))]


def load(path):
    data = open(path, "rb").read()
    if data[:12] != b"QPERFSTREAM\0" or len(data) < 16:
        raise ValueError("not a perfparser stream (no QPERFSTREAM magic)")
    strings, locations, symbols, comms = {}, {}, {}, {}
    samples, errors = [], []
    p = 16
    while p < len(data):
        if p + 4 > len(data):
            raise ValueError("truncated message size at byte %d" % p)
        (n,) = struct.unpack_from("<I", data, p)
        msg = data[p + 4:p + 4 + n]
        if len(msg) != n:
            raise ValueError("truncated message at byte %d" % p)
        p += 4 + n
        r = Reader(msg)
        t = r.take("B")
        if t == STRING:
            i = r.take("i")
            strings[i] = r.bytearray().decode("utf-8", "replace")
        elif t == LOCATION:
            i = r.take("i")
            addr, file, pid, line, col, parent = r.take("QiIiii")
            locations[i] = (addr, parent)
        elif t == SYMBOL:
            i = r.take("i")
            name, binary, path, kernel = r.take("iii?")
            symbols[i] = (name, binary, path, kernel)
        elif t == COMMAND:
            pid, tid, time, cpu, comm = r.take("iiQIi")
            comms[tid] = comm
        elif t in (SAMPLE, TRACEPOINT_SAMPLE):
            pid, tid, time, cpu = r.take("iiQI")
            frames = r.vector("i")
            guessed = r.take("B")
            costs = r.vector("iQ")
            samples.append((pid, tid, frames, guessed, costs, cpu))
        elif t == ERROR:
            code = r.take("i")
            errors.append("%d: %s" % (code, r.qstring()))
    return strings, locations, symbols, comms, samples, errors


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("self", "children", "folded", "addrs", "frames", "cpus", "stats"):
        sys.stderr.write(__doc__)
        return 2
    try:
        strings, locations, symbols, comms, samples, errors = load(sys.argv[1])
    except (ValueError, struct.error, OSError) as e:
        sys.stderr.write("qperfstream: %s: %s\n" % (sys.argv[1], e))
        return 1
    mode = sys.argv[2]

    def symbol_name(sid):
        name, binary, path, kernel = symbols.get(sid, (-1, -1, -1, False))
        # perfparser gives kernel symbols (kallsyms) no binary name
        b = "[kernel.kallsyms]" if kernel else strings.get(binary, "")
        return b, strings.get(name) or "[%s]" % b

    def stack(frames):
        """The sample's symbols, leaf first, as handleFrame visits them."""
        out = []
        for lid in frames:
            skip = False
            while lid != -1:
                addr, parent = locations.get(lid, (0, -1))
                if skip:
                    lid, skip = parent, False
                    continue
                sid = lid
                if sid not in symbols:
                    sid, skip = parent, True
                out.append(symbol_name(sid))
                lid = parent
        return out

    if mode == "stats":
        print("samples %d guessed %d errors %d" % (len(samples), sum(1 for s in samples if s[3]), len(errors)))
        for e in errors:
            print(e)
        return 0
    if mode == "addrs":
        for s in samples:
            print(",".join("%x" % locations.get(f, (0, -1))[0] for f in s[2]))
        return 0
    if mode == "cpus":
        print(len({s[5] for s in samples}))
        return 0
    if mode == "frames":
        print(max((len(stack(s[2])) for s in samples), default=0))
        return 0
    if mode == "self":
        n, cost = Counter(), Counter()
        total = [0, 0]
        for pid, tid, frames, guessed, costs, cpu in samples:
            c = sum(v for a, v in costs)
            total[0] += 1
            total[1] += c
            s = stack(frames)
            key = s[0] if s else ("", "[unknown]")
            n[key] += 1
            cost[key] += c
        for key in sorted(n):
            print("%s\t%s\t%d\t%d" % (key[0], key[1], n[key], cost[key]))
        print("#total %d %d" % tuple(total))
    elif mode == "children":
        cost = Counter()
        for pid, tid, frames, guessed, costs, cpu in samples:
            c = sum(v for a, v in costs)
            for key in set(stack(frames)):
                cost[key] += c
        for key in sorted(cost):
            print("%s\t%s\t%d" % (key[0], key[1], cost[key]))
    elif mode == "folded":
        folded = Counter()
        for pid, tid, frames, guessed, costs, cpu in samples:
            names = [k[1] for k in reversed(stack(frames))]
            folded[";".join([strings.get(comms.get(tid, -1), "")] + names)] += 1
        for k in sorted(folded):
            print("%s %d" % (k, folded[k]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
