#!/usr/bin/env python3
"""Attention forward: this project's naive and flash2 kernels vs PyTorch's
scaled_dot_product_attention (flash backend), fp16, 16k tokens per batch (batch = 16384/N),
hidden 2048 (heads = 2048/d), N = 512..16384, d = 64 and 128.

  python3 bench/attention_vs_torch.py torch [--repeats 20] [--causal] > torch.jsonl
      times torch SDPA (flash backend only) the same way the tilescope harness times its kernels:
      CUDA events, warm-up, L2 flushed (a 2x-L2 buffer is read) before each repeat, median.
  python3 bench/attention_vs_torch.py table ours.jsonl torch.jsonl
      merges `tilescope-kernel-bench attention-table` output with the torch numbers and prints
      a Markdown table (best flash2 tile per shape, TFLOP/s = 4*B*H*N^2*d / time).
"""
import json
import statistics
import sys


def torch_bench(repeats, causal):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    flush = torch.empty(max(2 * l2, 16 << 20) // 4, dtype=torch.float32, device=dev).uniform_()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for d in (64, 128):
        n = 512
        while n <= 16384:
            b, h = 16384 // n, 2048 // d
            q, k, v = (torch.empty(b, h, n, d, dtype=torch.float16, device=dev).uniform_(-1, 1) for _ in range(3))
            times = []
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                for r in range(3 + repeats):
                    flush.sum()  # read-flush of L2
                    start.record()
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    end.record()
                    end.synchronize()
                    if r >= 3:
                        times.append(start.elapsed_time(end) * 1e6)
            t = statistics.median(times)
            flops = 4.0 * b * h * n * n * d * (0.5 if causal else 1.0)
            print(json.dumps({"kernel": "torch-sdpa-flash", "batch": b, "heads": h, "seq": n, "head_dim": d,
                              "causal": causal, "time_ns": t, "model_tflops": flops / (t * 1e-9) / 1e12,
                              "torch": torch.__version__, "gpu": props.name}), flush=True)
            del q, k, v
            n *= 2


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def table(ours_path, torch_path):
    ours, theirs = load(ours_path), load(torch_path)
    key = lambda r: (r["head_dim"], r["seq"])
    naive, flash, torch_t = {}, {}, {}
    for r in ours:
        if r.get("kernel") == "attention-naive":
            naive[key(r)] = r
        elif r.get("kernel") == "attention-flash2":
            best = flash.get(key(r))
            if best is None or r["time_ns"] < best["time_ns"]:
                flash[key(r)] = r
    for r in theirs:
        torch_t[key(r)] = r
    print("| d | N | batch x heads | naive ms | naive TFLOP/s | flash2 ms (best tile) | flash2 TFLOP/s | "
          "torch SDPA ms | torch TFLOP/s | naive/flash2 | flash2/torch throughput | flash2 extra mem / naive extra mem |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kk in sorted(set(naive) | set(flash) | set(torch_t)):
        nv, fl, tt = naive.get(kk), flash.get(kk), torch_t.get(kk)
        any_r = nv or fl or tt

        def ms(r):
            return f"{r['time_ns'] / 1e6:.3f}" if r else "-"

        def tf(r):
            return f"{r['model_tflops']:.1f}" if r else "-"

        tile = f" ({fl['tile'][0]}x{fl['tile'][1]})" if fl else ""
        speed = f"{nv['time_ns'] / fl['time_ns']:.2f}x" if nv and fl else "-"
        frac = f"{100.0 * tt['time_ns'] / fl['time_ns']:.0f}%" if tt and fl else "-"
        mem = (f"{100.0 * fl['extra_device_bytes'] / nv['extra_device_bytes']:.2f}%"
               if nv and fl and nv.get("extra_device_bytes") else "-")
        print(f"| {kk[0]} | {kk[1]} | {any_r['batch']}x{any_r['heads']} | {ms(nv)} | {tf(nv)} | {ms(fl)}{tile} | "
              f"{tf(fl)} | {ms(tt)} | {tf(tt)} | {speed} | {frac} | {mem} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] not in ("torch", "table"):
        print(__doc__)
        sys.exit(2)
    if args[0] == "torch":
        reps = int(args[args.index("--repeats") + 1]) if "--repeats" in args else 20
        torch_bench(reps, "--causal" in args)
    else:
        table(args[1], args[2])
