#!/usr/bin/env python3
"""Summarise tilescope-l2-fill-probe runs (docs/validation change 32).

Usage: l2_fill_summary.py DIR   (DIR holds run*.jsonl, the probe's stdout)

Prints, per configuration, the requested TB/s of every run; then the largest rate of each path
with blocks reading their own addresses and with pairs of blocks reading the same ones; then, for
one resident block per SM, the per-step law t = F + n c fitted to the 64- and 128-thread blocks
(n = 16-byte cp.async per thread per step, t = one tile's bytes over the SM's share of the rate).
"""
import glob
import json
import os
import sys


def load(d):
    runs = []
    for path in sorted(glob.glob(os.path.join(d, 'run*.jsonl'))):
        recs = [json.loads(l) for l in open(path) if '"l2_fill"' in l]
        runs.append({(r['path'], r['pair'], r['threads'], r['tile_bytes'], r['stages'], r['blocks_per_sm']): r
                     for r in recs})
    dev = None
    for path in sorted(glob.glob(os.path.join(d, 'run*.jsonl'))):
        for l in open(path):
            if '"device"' in l:
                dev = json.loads(l)
                break
    return runs, dev


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs, dev = load(sys.argv[1])
    if not runs:
        sys.exit('no run*.jsonl in ' + sys.argv[1])
    sms = dev['sms'] if dev else 132
    keys = sorted(runs[0], key=lambda k: (k[1], k[0] != 'ldg', k[2], k[3], k[4], k[5]))
    print('| path | same addresses in pairs | threads | tile KiB | stages | blocks/SM | ' +
          ' | '.join('run %d TB/s' % (i + 1) for i in range(len(runs))) + ' |')
    print('|---|---|---|---|---|---|' + '---|' * len(runs))
    for k in keys:
        rates = [r[k]['requested_tbps'] if k in r else float('nan') for r in runs]
        print('| %s | %s | %d | %d | %s | %d | %s |' % (k[0], 'yes' if k[1] else 'no', k[2], k[3] // 1024,
                                                    k[4] or '-', k[5], ' | '.join('%.2f' % x for x in rates)))
    print()
    for pair in (False, True):
        for path in ('ldg', 'async'):
            best = max((sum(r[k]['requested_tbps'] for r in runs) / len(runs), k) for k in keys
                       if k[0] == path and k[1] == pair)
            print('largest, %-5s %-22s %.2f TB/s (threads %d, tile %d KiB, %d blocks/SM)' %
                  (path, 'pairs share addresses' if pair else 'own addresses', best[0], best[1][2],
                   best[1][3] // 1024, best[1][5]))
    print()
    print('one block per SM, own addresses, 2 stages: t = F + n c per step')
    for tile in (16384, 32768):
        pts = []
        for threads in (64, 128):
            k = ('async', False, threads, tile, 2, 1)
            if k not in runs[0]:
                continue
            rate = sum(r[k]['requested_tbps'] for r in runs) / len(runs) * 1e12
            t_ns = tile / (rate / sms) * 1e9
            n = tile / 16 / threads
            pts.append((n, t_ns))
            print('  tile %2d KiB, %3d threads: n = %2d cp.async per thread, t = %.0f ns' % (tile // 1024, threads, n, t_ns))
        if len(pts) == 2:
            c = (pts[0][1] - pts[1][1]) / (pts[0][0] - pts[1][0])
            print('  -> c = %.1f ns per cp.async per thread (%.2f ns per byte per thread), F = %.0f ns' %
                  (c, c / 16, pts[0][1] - pts[0][0] * c))


if __name__ == '__main__':
    main()
