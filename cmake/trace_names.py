"""Build step, part of gen_bridge.py: the trace's names, a table per enum type an entry point takes and per
status type ({type: {value: member name}}, read from the preprocessed headers), and the C functions
`opemu_name_T` the generated shims call to print a value by its name."""
import re

from pycparser import c_ast

# Status types whose codes are constants (macros, static consts) rather than an enum: their names.
STATUS_CONSTANTS = {"aclError": r"ACL_(SUCCESS|ERROR_\w+)", "aclnnStatus": r"ACLNN_(SUCCESS|ERR_\w+)"}


def namer(type_name):
    return "opemu_name_" + type_name


def enum_name(bare):
    """'enum mcMemcpyKind' -> 'mcMemcpyKind': a parameter's type as the tables name it."""
    return bare[len("enum "):] if bare.startswith("enum ") else bare


def _evaluate(node, known):
    """The value of an enumerator's or constant's initializer (integer constant expressions)."""
    if isinstance(node, c_ast.Constant) and node.type in ("int", "unsigned int", "long int", "unsigned long int",
                                                          "long long int", "unsigned long long int"):
        return int(node.value.rstrip("uUlL"), 0)
    if isinstance(node, c_ast.ID):
        return known[node.name]
    if isinstance(node, c_ast.Cast):
        return _evaluate(node.expr, known)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+", "~"):
        value = _evaluate(node.expr, known)
        return {"-": -value, "+": value, "~": ~value}[node.op]
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "<<", ">>", "|", "&", "^"):
        a, b = _evaluate(node.left, known), _evaluate(node.right, known)
        return {"+": a + b, "-": a - b, "*": a * b, "<<": a << b, ">>": a >> b, "|": a | b, "&": a & b,
                "^": a ^ b}[node.op]
    raise ValueError("not an integer constant expression")


def _enums(ast):
    """({enum tag or typedef name: [(member, value)]} of every enum with members, {typedef: target})."""
    found, known, aliases = {}, {}, {}

    def members(enum):
        listed, value = [], -1
        for item in enum.values.enumerators:
            value = _evaluate(item.value, known) if item.value is not None else value + 1
            known[item.name] = value
            listed.append((item.name, value))
        return listed

    for node in ast.ext:
        decl = node.type if isinstance(node, (c_ast.Typedef, c_ast.Decl)) else None
        enum = decl.type if isinstance(decl, c_ast.TypeDecl) else decl
        if isinstance(enum, c_ast.Enum) and enum.values is not None:
            try:
                listed = members(enum)
            except (ValueError, KeyError):
                continue
            if enum.name:
                found[enum.name] = listed
            if isinstance(node, c_ast.Typedef):
                found[node.name] = listed
        elif isinstance(node, c_ast.Typedef) and isinstance(enum, c_ast.Enum):
            aliases[node.name] = enum.name  # typedef enum tag name;
        elif isinstance(node, c_ast.Typedef) and isinstance(decl, c_ast.TypeDecl) \
                and isinstance(decl.type, c_ast.IdentifierType):
            aliases[node.name] = " ".join(decl.type.names)
    for name, target in aliases.items():
        while target in aliases and target not in found:
            target = aliases[target]
        if target in found:
            found.setdefault(name, found[target])
    return found


def _status_constants(ast, macro_dump, pattern):
    """[(name, value)] of the status codes spelt as `#define` or `static const` in the headers."""
    listed = []
    for line in macro_dump.splitlines():
        match = re.match(r"#define (%s) \(?(-?(?:0x[0-9A-Fa-f]+|\d+))[uUlL]*\)?$" % pattern, line.strip())
        if match:
            listed.append((match.group(1), int(match.group(3), 0)))
    for node in ast.ext:
        if isinstance(node, c_ast.Decl) and "static" in node.storage and node.init is not None \
                and re.fullmatch(pattern, node.name or ""):
            try:
                listed.append((node.name, _evaluate(node.init, {})))
            except (ValueError, KeyError):
                pass
    return listed


def name_tables(ast, functions, macro_dump, status_types):
    """{type: {value: name}} for the enum parameters of every entry point and the status types. A
    value with several names takes the enum's first (C order); among constants, a *SUCCESS name,
    then the first alphabetically, so the choice does not depend on the preprocessor's order."""
    enums = _enums(ast)
    used = {enum_name(ctype.replace("const ", "").replace(name, "").strip()) for fn in functions.values()
            for name, ctype in fn.params} | status_types
    tables = {}
    for type_name in sorted(used):
        if type_name in STATUS_CONSTANTS:
            listed = sorted(set(_status_constants(ast, macro_dump, STATUS_CONSTANTS[type_name])),
                            key=lambda item: (not item[0].endswith("SUCCESS"), item[0]))
        else:
            listed = enums.get(type_name)
        if listed:
            table = {}
            for name, value in listed:
                table.setdefault(value, name)
            tables[type_name] = table
    return tables


def name_functions(tables):
    """C: `const char *opemu_name_T(long long)` per table (NULL for a value without a name)."""
    parts = []
    for type_name, table in sorted(tables.items()):
        cases = "".join('    case %dLL: return "%s";\n' % (value, name) for value, name in sorted(table.items()))
        parts.append("static const char *%s(long long value)\n{\n    switch (value) {\n%s    default: return NULL;\n"
                     "    }\n}\n" % (namer(type_name), cases))
    return "\n".join(parts)
