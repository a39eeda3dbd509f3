#!/usr/bin/env python3
"""An independent reader of perf.data SAMPLE records for the regs tests: it
parses the header's attrs and every sample field in Linux's
perf_output_sample order (include/uapi/linux/perf_event.h), checks that the
fields fill each record exactly, and prints one JSON object per sample.
Usage: perfsamples.py FILE > samples.jsonl (exit 1 on a layout error)."""
import json, struct, sys

S = dict(IP=1 << 0, TID=1 << 1, TIME=1 << 2, ADDR=1 << 3, READ=1 << 4, CALLCHAIN=1 << 5, ID=1 << 6,
         CPU=1 << 7, PERIOD=1 << 8, STREAM_ID=1 << 9, RAW=1 << 10, BRANCH_STACK=1 << 11,
         REGS_USER=1 << 12, STACK_USER=1 << 13, WEIGHT=1 << 14, DATA_SRC=1 << 15, IDENTIFIER=1 << 16,
         TRANSACTION=1 << 17, REGS_INTR=1 << 18, PHYS_ADDR=1 << 19, CGROUP=1 << 21,
         DATA_PAGE_SIZE=1 << 22, CODE_PAGE_SIZE=1 << 23)


def attrs(buf):
    attr_size, = struct.unpack_from('<Q', buf, 16)
    off, size = struct.unpack_from('<QQ', buf, 24)
    data = struct.unpack_from('<QQ', buf, 40)
    evs = []
    for a in range(off, off + size, attr_size):
        st, = struct.unpack_from('<Q', buf, a + 24)
        rf, = struct.unpack_from('<Q', buf, a + 32)
        ru, = struct.unpack_from('<Q', buf, a + 80)
        ri, = struct.unpack_from('<Q', buf, a + 96)
        ioff, isz = struct.unpack_from('<QQ', buf, a + attr_size - 16)
        ids = struct.unpack_from('<%dQ' % (isz // 8), buf, ioff)
        evs.append(dict(sample_type=st, read_format=rf, regs_user=ru, regs_intr=ri, ids=ids))
    return evs, data


def regs(buf, p, mask):
    abi, = struct.unpack_from('<Q', buf, p)
    p += 8
    vals = {}
    if abi:
        for r in range(64):
            if mask >> r & 1:
                vals[r], = struct.unpack_from('<Q', buf, p)
                p += 8
    return abi, vals, p


def sample(buf, p, end, ev):
    st = ev['sample_type']
    s = {'misc': struct.unpack_from('<H', buf, p - 4)[0], 'offset': p - 8}
    def u64():
        nonlocal p
        v, = struct.unpack_from('<Q', buf, p)
        p += 8
        return v
    if st & S['IDENTIFIER']: s['id'] = u64()
    if st & S['IP']: s['ip'] = u64()
    if st & S['TID']: v = u64(); s['pid'], s['tid'] = v & 0xffffffff, v >> 32
    if st & S['TIME']: s['time'] = u64()
    if st & S['ADDR']: s['addr'] = u64()
    if st & S['ID']: s['id'] = u64()
    if st & S['STREAM_ID']: u64()
    if st & S['CPU']: s['cpu'] = u64() & 0xffffffff
    if st & S['PERIOD']: s['period'] = u64()
    if st & S['READ']:
        rf = ev['read_format']
        p += 8 * (1 + bin(rf & 0xf).count('1'))
    if st & S['CALLCHAIN']:
        nr = u64()
        s['callchain'] = [u64() for _ in range(nr)]
    if st & S['RAW']:
        n, = struct.unpack_from('<I', buf, p)
        p += 4 + n
    if st & S['BRANCH_STACK']:
        p += 24 * u64()
    if st & S['REGS_USER']:
        s['user_abi'], s['user_regs'], p = regs(buf, p, ev['regs_user'])
    if st & S['STACK_USER']:
        size = u64()
        s['stack_size'] = size
        if size:
            s['stack'] = buf[p:p + size].hex()
            p += size
            s['dyn_size'] = u64()
    for f in ('WEIGHT', 'DATA_SRC', 'TRANSACTION'):
        if st & S[f]: s[f.lower()] = u64()
    if st & S['REGS_INTR']:
        s['intr_abi'], s['intr_regs'], p = regs(buf, p, ev['regs_intr'])
    for f in ('PHYS_ADDR', 'CGROUP', 'DATA_PAGE_SIZE', 'CODE_PAGE_SIZE'):
        if st & S[f]: u64()
    if p != end:
        raise ValueError('sample at %#x: fields end at %#x, record at %#x' % (s['offset'], p, end))
    return s


def main():
    buf = open(sys.argv[1], 'rb').read()
    evs, (doff, dsize) = attrs(buf)
    byid = {i: e for e in evs for i in e['ids']}
    p = doff
    while p < doff + dsize:
        typ, misc, size = struct.unpack_from('<IHH', buf, p)
        if size < 8:
            raise ValueError('record of size %d at %#x' % (size, p))
        if typ == 9:
            ev = evs[0]
            if ev['sample_type'] & S['IDENTIFIER']:
                ev = byid.get(struct.unpack_from('<Q', buf, p + 8)[0], ev)
            s = sample(buf, p + 8, p + size, ev)
            s['user_regs'] = {str(k): v for k, v in s.get('user_regs', {}).items()}
            s['intr_regs'] = {str(k): v for k, v in s.get('intr_regs', {}).items()}
            print(json.dumps(s))
        p += size


if __name__ == '__main__':
    try:
        main()
    except (ValueError, struct.error) as e:
        print('perfsamples: %s' % e, file=sys.stderr)
        sys.exit(1)
