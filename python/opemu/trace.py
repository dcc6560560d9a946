"""`opemu trace summarize FILE`: what an OPEMU_TRACE file says, per entry point."""
import json
from collections import defaultdict


def summarize(path):
    calls = defaultdict(lambda: {"calls": 0, "failures": 0, "total_us": 0.0, "statuses": defaultdict(int)})
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            entry = calls[record["function"]]
            entry["calls"] += 1
            entry["total_us"] += record["duration_us"]
            if record["status"] != 0:
                entry["failures"] += 1
                entry["statuses"][record["status"]] += 1
    return calls


def render(calls):
    width = max([len(name) for name in calls] + [len("entry point")])
    lines = ["%-*s %8s %8s %12s %10s  %s" % (width, "entry point", "calls", "failed", "total ms", "mean us", "statuses")]
    for name, entry in sorted(calls.items(), key=lambda kv: -kv[1]["total_us"]):
        statuses = ", ".join("%d x%d" % kv for kv in sorted(entry["statuses"].items()))
        lines.append("%-*s %8d %8d %12.3f %10.2f  %s" % (width, name, entry["calls"], entry["failures"],
                                                       entry["total_us"] / 1000, entry["total_us"] / entry["calls"],
                                                       statuses))
    total = sum(e["calls"] for e in calls.values())
    failed = sum(e["failures"] for e in calls.values())
    lines.append("%d calls, %d failed, %d entry points" % (total, failed, len(calls)))
    return "\n".join(lines)
