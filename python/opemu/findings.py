"""The sanitizer's findings as `opemu check` reads them: one line each from the library,

    opemu check: [kind] message | at: module@0xaddress;… | call: {"function": …, "args": {…}}}

(the app's frames that led to it, innermost first, and the API call in progress), turned into a
record with the call's enum arguments named and each frame's function and source line (addr2line,
binutils), and back into text."""
import json
import shutil
import subprocess


def parse_finding(line):
    """A report line -> {"kind", "message", "frames", "call"}."""
    from opemu import names
    body = line[len("opemu check: "):]
    kind, _, rest = body.partition("] ")
    message, _, call = rest.partition(" | call: ")
    message, _, frames = message.partition(" | at: ")
    finding = {"kind": kind.lstrip("["), "message": message,
               "frames": [_frame(text) for text in frames.split(";") if "@0x" in text]}
    if call:
        try:
            finding["call"] = names.describe(json.loads(call))
        except ValueError:
            finding["call_text"] = call
    return finding


def _frame(text):
    module, _, address = text.rpartition("@")
    return {"module": module, "address": address}


def symbolize(findings):
    """Adds "function" and "source" (file:line) to every frame addr2line can place, one run per module."""
    if shutil.which("addr2line") is None:
        return
    by_module = {}
    for frame in (frame for finding in findings for frame in finding["frames"]):
        by_module.setdefault(frame["module"], []).append(frame)
    for module, frames in by_module.items():
        try:
            out = subprocess.run(["addr2line", "-f", "-C", "-e", module, *(f["address"] for f in frames)],
                                 capture_output=True, text=True, timeout=60).stdout.splitlines()
        except (OSError, subprocess.TimeoutExpired):
            continue
        for frame, function, source in zip(frames, out[0::2], out[1::2]):
            if function != "??":
                frame["function"] = function
            if not source.startswith("??"):
                frame["source"] = source.split(" (discriminator")[0]


def render_finding(finding):
    text = "opemu check: [%s] %s" % (finding["kind"], finding["message"])
    call = finding.get("call")
    if call:
        named = ", ".join("%s=%s" % kv for kv in call.get("arg_names", {}).items())
        text += " | call: %s%s" % (json.dumps({"function": call["function"], "args": call.get("args", {})}),
                                   " (%s)" % named if named else "")
    for frame in finding["frames"]:
        where = "%s+%s" % (frame["module"], frame["address"])
        text += "\n    at %s (%s)" % (frame.get("function", "??"), frame.get("source", where))
    return text
