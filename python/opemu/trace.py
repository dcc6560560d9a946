"""`opemu trace summarize FILE`: what an OPEMU_TRACE file says, per entry point, statuses named."""
import json
from collections import defaultdict

from opemu import names


class BadTrace(Exception):
    """The file is not an OPEMU_TRACE file (the message says where it stops being one)."""


def records(path):
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                record = json.loads(line)
                record["function"], record["status"], record["duration_us"]  # every record has them
            except (ValueError, TypeError, KeyError):
                raise BadTrace("%s:%d: not a trace record (OPEMU_TRACE writes one JSON object per line)"
                               % (path, number))
            yield record


def summarize(path):
    calls = defaultdict(lambda: {"calls": 0, "failures": 0, "total_us": 0.0, "statuses": defaultdict(int),
                                 "status_names": {}})
    for record in records(path):
        entry = calls[record["function"]]
        entry["calls"] += 1
        entry["total_us"] += record["duration_us"]
        if record["status"] != 0:
            entry["failures"] += 1
            entry["statuses"][record["status"]] += 1
            if record.get("status_name"):  # written by the trace itself; older traces have numbers only
                entry["status_names"][record["status"]] = record["status_name"]
    return calls


def _status(function, code, known):
    name = known.get(code) or names.status_name(function, code)
    return "%d %s" % (code, name) if name else "%d" % code


def render(calls):
    width = max([len(name) for name in calls] + [len("entry point")])
    lines = ["%-*s %8s %8s %12s %10s  %s" % (width, "entry point", "calls", "failed", "total ms", "mean us", "statuses")]
    for name, entry in sorted(calls.items(), key=lambda kv: -kv[1]["total_us"]):
        statuses = ", ".join("%s x%d" % (_status(name, code, entry["status_names"]), n)
                             for code, n in sorted(entry["statuses"].items()))
        lines.append("%-*s %8d %8d %12.3f %10.2f  %s" % (width, name, entry["calls"], entry["failures"],
                                                       entry["total_us"] / 1000, entry["total_us"] / entry["calls"],
                                                       statuses))
    total = sum(e["calls"] for e in calls.values())
    failed = sum(e["failures"] for e in calls.values())
    lines.append("%d calls, %d failed, %d entry points" % (total, failed, len(calls)))
    return "\n".join(lines)
