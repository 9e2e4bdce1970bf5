#!/usr/bin/env python3
"""Tables of tilescope-segment-stream-probe's output (docs/validation change 62).

Usage: segment_stream_summary.py SEGMENT_STREAM.jsonl [MODEL.jsonl ...]
Prints three Markdown tables from the probe's configurations (2 GiB matrix, rows 4 KiB apart
unless said otherwise):
  1. The cap: per segment width W, the highest rate each layout reached in any configuration
     (strided: W bytes of each row per step, as naive attention's P V reads P; dense: the same
     bytes in flight, contiguous) and, strided, the segments per second it is.
  2. The loaded round trip: per layout, W, rows per block R and 2 stages (the P V loop's), the
     least-squares line round trip = L0 + c x rate over 1-4 blocks per SM (Little's law's round
     trip, GPU-wide bytes in flight / rate): the unloaded round trip L0 (us) and the queueing slope
     c (ns per TB/s), the quantity calibration.load_latency_ns_per_tbps takes.
  3. Strided against dense at equal bytes in flight (same W, R, S, blocks per SM): rate and round
     trip each way.
  4. The P V loop itself: W = 64, 2 stages, with and without an L2-resident tile per step (V's),
     and rows 32 KiB apart.
  5. With MODEL.jsonl files (bench/segment_stream_replay's output, one per profile or variant):
     the model's time over the measured one per configuration (S = 2, W 64 and 128), a column per
     file, and the geometric mean per file over every configuration both have.
Exit 2 with a one-line error when a file is missing, unreadable or has no configuration.
"""
import math
import sys

from probe_records import records


def read(path, kind="probe", value="segment_stream"):
    return records(path, "segment_stream_summary.py", kind, value, value + " configuration")


def line_fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if n < 2 or sxx == 0:
        return None
    c = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - c * mx, c


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: segment_stream_summary.py SEGMENT_STREAM.jsonl [MODEL.jsonl ...]")
    rows = read(sys.argv[1])
    models = [read(p, "model", "segment_stream_replay") for p in sys.argv[2:]]
    plain = [r for r in rows if r["l2_bytes_per_step"] == 0 and r["row_bytes"] == 4096]

    print("| W (bytes) | strided: highest TB/s | strided: G segments/s | dense: highest TB/s | strided / dense |")
    print("|---|---|---|---|---|")
    for w in sorted({r["segment_bytes"] for r in plain}):
        top = {}
        for lay in ("strided", "dense"):
            sel = [r for r in plain if r["layout"] == lay and r["segment_bytes"] == w]
            top[lay] = max(sel, key=lambda r: r["tb_per_s"]) if sel else None
        s, d = top["strided"], top["dense"]
        if not s or not d:
            continue
        print("| %d | %.2f (R %d, S %d, %d/SM) | %.1f | %.2f | %.2f |" % (
            w, s["tb_per_s"], s["rows"], s["stages"], s["blocks_per_sm"], s["segments_per_s"] / 1e9,
            d["tb_per_s"], s["tb_per_s"] / d["tb_per_s"]))

    print()
    print("| layout | W | R | blocks/SM | TB/s | round trip us | line: L0 us | line: c ns per TB/s |")
    print("|---|---|---|---|---|---|---|---|")
    for lay in ("strided", "dense"):
        for w in sorted({r["segment_bytes"] for r in plain}):
            for rr in (64, 128):
                sel = sorted((r for r in plain if r["layout"] == lay and r["segment_bytes"] == w and r["rows"] == rr
                              and r["stages"] == 2), key=lambda r: r["blocks_per_sm"])
                if len(sel) < 2:
                    continue
                fit = line_fit([r["tb_per_s"] for r in sel], [r["round_trip_us"] for r in sel])
                print("| %s | %d | %d | %s | %s | %s | %.3f | %.0f |" % (
                    lay, w, rr, " / ".join(str(r["blocks_per_sm"]) for r in sel),
                    " / ".join("%.2f" % r["tb_per_s"] for r in sel),
                    " / ".join("%.3f" % r["round_trip_us"] for r in sel), fit[0], fit[1] * 1e3))

    print()
    print("| W | R | S | blocks/SM | KiB in flight per SM | strided TB/s | dense TB/s | strided / dense | "
          "round trip us, strided / dense |")
    print("|---|---|---|---|---|---|---|---|---|")
    dense = {(r["segment_bytes"], r["rows"], r["stages"], r["blocks_per_sm"]): r for r in plain if r["layout"] == "dense"}
    for s in sorted((r for r in plain if r["layout"] == "strided"),
                    key=lambda r: (r["segment_bytes"], r["rows"], r["stages"], r["blocks_per_sm"])):
        d = dense.get((s["segment_bytes"], s["rows"], s["stages"], s["blocks_per_sm"]))
        if d is None or s["segment_bytes"] > 128:
            continue
        print("| %d | %d | %d | %d | %.0f | %.2f | %.2f | %.2f | %.3f / %.3f |" % (
            s["segment_bytes"], s["rows"], s["stages"], s["blocks_per_sm"], s["dram_in_flight_per_sm"] / 1024,
            s["tb_per_s"], d["tb_per_s"], s["tb_per_s"] / d["tb_per_s"], s["round_trip_us"], d["round_trip_us"]))

    print()
    print("| the P V loop (W 64, S 2) | R | blocks/SM | TB/s of the matrix | round trip us |")
    print("|---|---|---|---|---|")
    pv = [r for r in rows if r["layout"] == "strided" and r["segment_bytes"] == 64 and r["stages"] == 2]
    for r in sorted(pv, key=lambda r: (r["l2_bytes_per_step"], r["row_bytes"], r["rows"], r["blocks_per_sm"])):
        what = "rows %d KiB apart" % (r["row_bytes"] // 1024)
        if r["l2_bytes_per_step"]:
            what += ", + %d KiB L2 tile per step" % (r["l2_bytes_per_step"] // 1024)
        print("| %s | %d | %d | %.2f | %.3f |" % (what, r["rows"], r["blocks_per_sm"], r["tb_per_s"], r["round_trip_us"]))

    if not models:
        return
    key = lambda r: (r["layout"], r["segment_bytes"], r["rows"], r["stages"], r["blocks_per_sm"], r["row_bytes"],
                     r["l2_bytes_per_step"])
    measured = {key(r): r for r in rows}
    by_model = [{key(r): r for r in m} for m in models]
    names = [p.rsplit("/", 1)[-1] for p in sys.argv[2:]]
    print()
    print("| layout | W | R | blocks/SM | row KiB | L2 tile KiB | measured TB/s | " +
          " | ".join("model / measured time: " + n for n in names) + " |")
    print("|---|---|---|---|---|---|---|" + "---|" * len(names))
    for k in sorted(measured):
        if k[3] != 2 or k[1] > 128 or not any(k in m for m in by_model):
            continue
        r = measured[k]
        cells = ["%.2f" % (m[k]["ms_model"] / r["ms"]) if k in m else "-" for m in by_model]
        print("| %s | %d | %d | %d | %d | %d | %.2f | %s |" % (k[0], k[1], k[2], k[4], k[5] // 1024, k[6] // 1024,
                                                            r["tb_per_s"], " | ".join(cells)))
    print()
    print("| model file | stages | configurations | geometric mean of model / measured time | range |")
    print("|---|---|---|---|---|")
    for n, m in zip(names, by_model):
        for which, keep in (("2", lambda k: k[3] == 2), ("all", lambda k: True)):
            ratios = [m[k]["ms_model"] / measured[k]["ms"] for k in m if k in measured and keep(k)]
            if ratios and not (which == "all" and all(k[3] == 2 for k in m)):
                g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
                print("| %s | %s | %d | %.3f | %.2f-%.2f |" % (n, which, len(ratios), g, min(ratios), max(ratios)))


if __name__ == "__main__":
    main()
