"""Reading a probe's JSON-lines output, shared by the bench/scripts summaries that exit 2 on bad
input (qk_timeline_summary.py, segment_stream_summary.py, l2_hit_queue_summary.py).

records(path, script, key, value, what) returns the objects of the file whose `key` is `value`,
in file order; a missing or unreadable file, a line that is not JSON, or no such object prints
"<script>: <path>...: <reason>" on stderr and exits 2 ("no <what>" for the last).
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
