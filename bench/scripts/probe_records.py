"""Reading a probe's JSON-lines output, shared by the bench/scripts summaries that exit 2 on bad
input (qk_timeline_summary.py, segment_stream_summary.py, l2_hit_queue_summary.py).

records(path, script, key, value, what) returns the objects of the file whose `key` is `value`,
in file order; a missing or unreadable file, a line that is not JSON, or no such object prints
"<script>: <path>...: <reason>" on stderr and exits 2 ("no <what>" for the last).

line(points) is the least-squares line y = a + b x through (x, y) pairs, (a, b); ValueError when
the x values are all the same (instruction_law.py, gemm_timeline_replay.py).

take_option(args, flag, fail) removes `flag VALUE` from the argument list and returns VALUE, or
None when the flag is absent; fail("<flag> needs a file") when no value follows
(l2_variants_summary.py, softmax_reuse_summary.py).
"""
import json
import sys


def records(path, script, key, value, what):
    rows = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    d = json.loads(line)
                except json.JSONDecodeError as e:
                    print(f"{script}: {path}:{n}: not JSON ({e.msg})", file=sys.stderr)
                    sys.exit(2)
                if d.get(key) == value:
                    rows.append(d)
    except OSError as e:
        print(f"{script}: cannot read {path}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    if not rows:
        print(f"{script}: {path}: no {what}", file=sys.stderr)
        sys.exit(2)
    return rows


def line(points):
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        raise ValueError("a least-squares line needs two different x values")
    b = sum((x - mx) * (y - my) for x, y in points) / sxx
    return my - b * mx, b


def take_option(args, flag, fail):
    if flag not in args:
        return None
    k = args.index(flag)
    if k + 1 >= len(args):
        fail(f"{flag} needs a file")
    value = args[k + 1]
    del args[k:k + 2]
    return value
