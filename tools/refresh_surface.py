#!/usr/bin/env python3
"""Regenerate cmake/surface/aclnn_ops.tsv and aclnn_ops_other.tsv from the operator repositories' heads.

Reads hicann/ops-math, ops-nn, ops-transformer and ops-cv (bare git directories or work trees; HEAD is read)
for facts only — names, parameter lists, the header each pair ships in and that header's standard includes —
and prints what changed against the current tables (`--write` replaces them):

* an op_api header (`<folder>/<op>/[op_host/]op_api/acl*.h`) declares a pair `Xxx` + `XxxGetWorkspaceSize`
  (aclnn names and the few that are not, such as aclStft in acl_stft.h); declared_by `header`;
* an operator whose header opbuild generates is declared on its doc page (`docs/aclnnXxx.md`, the
  prototype section); declared_by `docs`;
* a doc page that is a placeholder leaves only the operator definition (`op_host/<op>_def.cpp`): the
  prototype is derived from it by opbuild's rules (inputs, attributes, outputs in declaration order;
  snake_case names in lowerCamelCase; optional inputs and string attributes suffixed Optional; dynamic
  inputs/outputs as tensor lists; value-dependent int64 inputs as aclIntArray; an output that is also an
  input becomes the input `xxxRef`; outputs `const aclTensor *xxxOut`, a single one `out`; Int → int64_t, Float → double,
  Bool → bool, String → char *, ListInt/ListFloat/ListBool → the acl arrays). declared_by `op_def`;
  `--check-opbuild` compares these rules with every doc page that has both.

Operators under experimental/ and the internal aclnnInner* halves are not shipped, as the vendor's library
does not carry them. Usage: python tools/refresh_surface.py [--mirrors /work/.mirror] [--write]
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SURFACE = ROOT / "cmake" / "surface"
REPOSITORIES = ("hicann/ops-math", "hicann/ops-nn", "hicann/ops-transformer", "hicann/ops-cv")
OPS_COLUMNS = ("name", "header", "repo", "declared_by", "workspace_parameters", "parameters", "path", "includes")
OTHER_COLUMNS = ("name", "header", "repo", "return_type", "parameters")
# Includes of a vendor header that the generated one keeps: the standard library and the toolkit headers
# opemu ships (the op_api internals, opdev/op_executor.h and the like, are the vendor's build tree only).
KEPT_INCLUDE = re.compile(r'^\s*#\s*include\s*(<[\w./]+>|"hccl/[\w.]+")', re.M)
DECLARATION = re.compile(r"(?:^|[;}\s])(?:ACLNN_API\s+|__attribute__\s*\(\(.*?\)\)\s*)*"
                         r"(aclnnStatus|int32_t|aclnnStatus|void)\s+(acl\w+)\s*\(([^;{}()]*)\)\s*;", re.S)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


class Checkout:
    """Files of one repository at HEAD, from a bare git directory or a work tree."""

    def __init__(self, path):
        self.path = Path(path)
        self.bare = (self.path / "HEAD").is_file() and (self.path / "objects").is_dir()

    def head(self):
        if self.bare:
            return self._git("rev-parse", "HEAD").strip()
        return subprocess.run(["git", "-C", str(self.path), "rev-parse", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or "work tree"

    def files(self):
        if self.bare:
            return self._git("ls-tree", "-r", "--name-only", "HEAD").split("\n")
        return [str(p.relative_to(self.path)) for p in self.path.rglob("*") if p.is_file()]

    def read(self, name):
        if self.bare:
            return self._git("show", "HEAD:" + name)
        return (self.path / name).read_text(errors="replace")

    def read_many(self, names):
        """{name: text} in one `git cat-file --batch` for a bare directory."""
        if not self.bare:
            return {n: self.read(n) for n in names}
        out = subprocess.run(["git", "-C", str(self.path), "cat-file", "--batch"], capture_output=True,
                             input="".join("HEAD:%s\n" % n for n in names).encode(), check=True).stdout
        texts, at = {}, 0
        for name in names:
            header_end = out.index(b"\n", at)
            size = int(out[at:header_end].split()[2])
            texts[name] = out[header_end + 1:header_end + 1 + size].decode(errors="replace")
            at = header_end + 1 + size + 1
        return texts

    def _git(self, *args):
        return subprocess.run(["git", "-C", str(self.path)] + list(args), capture_output=True, text=True,
                              check=True).stdout


def normalise(parameters):
    """One spelling of a parameter list: single spaces, `T *name`, no default arguments."""
    out = []
    for p in parameters.split(","):
        p = re.sub(r"\s*=.*$", "", " ".join(p.split()))
        p = re.sub(r"\s*(\*+)\s*", r" \1", p).strip()
        if p and p != "void":
            out.append(p)
    return ", ".join(out)


def declarations(text):
    """[(return type, name, parameters)] of the function prototypes in C text (definitions excluded)."""
    text = COMMENT.sub(" ", text)
    text = re.sub(r"static\s+inline[^{;]*\{", "{", text)
    return [(m.group(1), m.group(2), normalise(m.group(3))) for m in DECLARATION.finditer(text)]


def doc_prototypes(text):
    """Declarations of the doc page's prototype section (函数原型, as code blocks or inline code, often
    without the closing semicolon), else of its code blocks (example programs call the functions,
    which a declaration never matches)."""
    section = re.search(r"\n#+\s*函数原型(.*?)(?=\n#+ )", text, re.S)
    blocks = [section.group(1)] if section else re.findall(r"```[^\n]*\n(.*?)```", text, re.S)
    found = []
    for block in blocks:
        block = re.sub(r"```[^\n]*|`", "\n", block)
        found += [d for d in declarations(re.sub(r"\)[ \t]*;?[ \t]*(?=\n|$)", ");", block))
                  if d[1].startswith("acl")]
    return found


def camel(name):
    head, *rest = name.split("_")
    return head[:1].lower() + head[1:] + "".join(w[:1].upper() + w[1:] for w in rest)


ATTRIBUTE_TYPES = {"Int": "int64_t", "Float": "double", "Bool": "bool", "String": "char *",
                   "ListInt": "const aclIntArray *", "ListFloat": "const aclFloatArray *",
                   "ListBool": "const aclBoolArray *", "Type": "int64_t", "ListListInt": "const aclIntArray *"}


def opbuild_parameters(definition):
    """The GetWorkspaceSize parameters opbuild generates from an operator definition (op_host/*_def.cpp)."""
    body = COMMENT.sub(" ", definition)
    statements = re.findall(r"this->(Input|Output|Attr)\(\"(\w+)\"\)(.*?);", body, re.S)
    inputs, attributes, outputs = [], [], []
    output_names = {n for kind, n, _ in statements if kind == "Output"}
    input_names = {n for kind, n, _ in statements if kind == "Input"}
    for kind, name, rest in statements:
        param_type = re.search(r"ParamType\((\w+)\)", rest)
        param_type = param_type.group(1) if param_type else "REQUIRED"
        if kind == "Input":
            ref = name in output_names
            suffix = "Ref" if ref else ("Optional" if param_type == "OPTIONAL" else "")
            if param_type == "DYNAMIC":
                ctype = "const aclTensorList *"
            elif "ValueDepend" in rest and not ref:
                ctype = "const aclIntArray *"
            else:
                ctype = "const aclTensor *"
            inputs.append(ctype + camel(name) + suffix)
        elif kind == "Output":
            if name not in input_names:
                ctype = "const aclTensorList *" if param_type == "DYNAMIC" else "const aclTensor *"
                outputs.append((ctype, camel(name) + "Out"))
        else:
            value = re.search(r"\.(ListListInt|ListInt|ListFloat|ListBool|Int|Float|Bool|String|Type)\(", rest)
            ctype = ATTRIBUTE_TYPES[value.group(1)]
            ctype += "" if ctype.endswith("*") else " "
            optional = re.search(r"AttrType\(OPTIONAL\)", rest) and value.group(1) == "String"
            attributes.append(ctype + camel(name) + ("Optional" if optional else ""))
    if len(outputs) == 1 and not any(n.endswith("Ref") for n in inputs):
        outputs = [(outputs[0][0], "out")]
    return ", ".join(inputs + attributes + [t + n for t, n in outputs] +
                     ["uint64_t *workspaceSize", "aclOpExecutor **executor"])


# Where two repositories declare one operator, the header wins over a doc page over an operator definition.
RANK = {"header": 0, "docs": 1, "op_def": 2}
# Rows the heads do not declare that the table keeps: operators of a newer release than the mirrored heads
# that applications already include (their header text is the release's).
NEWER = "newer release"
EXECUTE = "void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream"


def scan(repository, checkout):
    """({name: row} of operator pairs, [other rows], {op name: (def path, doc path)} of placeholders)."""
    files = [f for f in checkout.files() if not f.startswith("experimental/") and "/tests/" not in f]
    headers = sorted(f for f in files if re.search(r"(^|/)op_api/acl\w*\.h$", f))
    docs = sorted(f for f in files if re.search(r"/docs/acl\w*\.md$", f))
    definitions = {Path(f).name[:-len("_def.cpp")]: f for f in files if f.endswith("_def.cpp")}
    texts = checkout.read_many(headers + docs)
    pairs, other, placeholders = {}, {}, {}

    def take(path, found, declared_by, includes):
        functions = {name: (ret, params) for ret, name, params in found}
        for name, (ret, params) in sorted(functions.items()):
            op = name[:-len("GetWorkspaceSize")] if name.endswith("GetWorkspaceSize") else name
            if name.startswith("aclnnInner") or op in pairs or name in other:
                continue
            if op != name and op in functions:
                pairs[op] = {"name": op, "header": Path(path).name if declared_by == "header" else "",
                             "repo": repository, "declared_by": declared_by, "workspace_parameters": params,
                             "parameters": functions[op][1], "path": path, "includes": includes}
            elif not (name + "GetWorkspaceSize" in functions) and ret != "void":
                other[name] = {"name": name, "header": Path(path).name, "repo": repository,
                               "return_type": ret, "parameters": params}

    for path in headers:
        text = texts[path]
        includes = " ".join(sorted(set(KEPT_INCLUDE.findall(text))))
        take(path, declarations(text), "header", includes)
    for path in docs:
        found = doc_prototypes(texts[path])
        if found:
            # a doc page documents a helper of a header only when the header declares it: helpers
            # come from headers alone
            take(path, [d for d in found if d[1].endswith("GetWorkspaceSize") or
                        d[1] + "GetWorkspaceSize" in {n for _, n, _ in found}], "docs", "")
        else:
            op = Path(path).stem
            placeholders[op] = path
    undeclared = {}
    for op, doc in placeholders.items():
        if op in pairs or not op.startswith("aclnn"):
            continue
        folder = "/".join(doc.split("/")[:-2])
        definition = definitions.get(Path(folder).name)
        undeclared[op] = (definition, doc)
    definition_texts = checkout.read_many(sorted(d for d, _ in undeclared.values() if d))
    for op, (definition, doc) in sorted(undeclared.items()):
        if definition is None:
            print("%s: %s has no prototype and no operator definition" % (repository, op), file=sys.stderr)
            continue
        pairs[op] = {"name": op, "header": "", "repo": repository, "declared_by": "op_def",
                     "workspace_parameters": opbuild_parameters(definition_texts[definition]),
                     "parameters": EXECUTE, "path": definition, "includes": ""}
    return pairs, list(other.values()), definitions


def check_opbuild(checkout, pairs, definitions):
    """Compares opbuild's rules with the doc pages of generated headers; returns (agreeing, [differing])."""
    agree, differ = 0, []
    docs = [row for row in pairs.values() if row["declared_by"] == "docs"]
    names = {row["name"]: definitions.get(Path("/".join(row["path"].split("/")[:-2])).name) for row in docs}
    texts = checkout.read_many(sorted(d for d in names.values() if d))
    for row in docs:
        definition = names[row["name"]]
        if definition is None:
            continue
        derived = opbuild_parameters(texts[definition])
        wanted = re.sub(r"const (aclTensor|aclTensorList) \*(\w+Out)\b", r"const \1 *\2", row["workspace_parameters"])
        if derived.replace("const ", "") == wanted.replace("const ", ""):
            agree += 1
        else:
            differ.append((row["name"], wanted, derived))
    return agree, differ


def read_table(name):
    with open(SURFACE / name, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def write_table(name, columns, rows):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, columns, delimiter="\t", lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(sorted(rows, key=lambda r: r["name"]))
    (SURFACE / name).write_text(buffer.getvalue())


def changes(old, new, columns):
    """Lines saying what differs between two tables keyed by name."""
    old, new = {r["name"]: r for r in old}, {r["name"]: r for r in new}
    lines = ["+ %s (%s, %s)" % (n, new[n]["repo"], new[n].get("declared_by", "helper")) for n in sorted(set(new) - set(old))]
    lines += ["- %s" % n for n in sorted(set(old) - set(new))]
    for n in sorted(set(old) & set(new)):
        for c in columns:
            if old[n].get(c, "") != new[n].get(c, ""):
                lines.append("~ %s %s: %r -> %r" % (n, c, old[n].get(c, ""), new[n].get(c, "")))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirrors", default="/work/.mirror", help="holds hicann+ops-*/repo")
    parser.add_argument("--write", action="store_true", help="replace the tables in cmake/surface")
    parser.add_argument("--check-opbuild", action="store_true", help="compare opbuild's rules with the docs")
    args = parser.parse_args()
    pairs, other = {}, []
    for repository in REPOSITORIES:
        checkout = Checkout(Path(args.mirrors) / repository.replace("/", "+") / "repo")
        found, helpers, definitions = scan(repository, checkout)
        print("%s@%s: %d operator pairs, %d helpers" % (repository, checkout.head()[:8], len(found), len(helpers)))
        if args.check_opbuild:
            agree, differ = check_opbuild(checkout, found, definitions)
            print("  opbuild rules agree with %d doc pages; differ:" % agree)
            for name, wanted, derived in differ:
                print("    %s\n      docs    %s\n      op_def  %s" % (name, wanted, derived))
        for name, row in found.items():
            if name not in pairs or RANK[row["declared_by"]] < RANK[pairs[name]["declared_by"]]:
                pairs[name] = row
        other += [h for h in helpers if h["name"] not in {o["name"] for o in other}]
    current = read_table("aclnn_ops.tsv")
    for row in current:
        if row["name"] not in pairs and row["declared_by"] == NEWER:
            pairs[row["name"]] = row
    for line in changes(current, pairs.values(), OPS_COLUMNS[1:]):
        print(line)
    for line in changes(read_table("aclnn_ops_other.tsv"), other, OTHER_COLUMNS[1:]):
        print(line)
    if args.write:
        write_table("aclnn_ops.tsv", OPS_COLUMNS, pairs.values())
        write_table("aclnn_ops_other.tsv", OTHER_COLUMNS, other)


if __name__ == "__main__":
    main()
