# Differential fuzzing against Python Jinja2 (needs jinja2==3.1.6 and a built loom):
#   LOOM=.build/debug/loom python scripts/chat-template-cases/fuzz_expressions.py SEED COUNT
import random, json, subprocess, sys
import os; os.makedirs("/tmp/fuzz", exist_ok=True)
sys.path.insert(0, __import__("os").path.dirname(__file__)); from jenv import env
random.seed(int(sys.argv[1])); n = int(sys.argv[2])
atoms = ["1", "0", "-3", "2", "0.5", "-1.5", "2.0", "1e20", "'a'", "'B c'", "''", "'3'", "[1, 'a']", "[]", "[3, 1, 2]", "{'k': 1, 'j': 'x'}", "{}", "none", "true", "false", "u", "d", "s", "l", "n", "f", "(1, 2)", "'é'", "' x '"]
filters = ["length", "string", "upper", "lower", "trim", "first", "last", "list", "join(',')", "default('D')", "int", "float", "abs", "round", "tojson", "sort", "unique|list", "reverse|list", "count", "capitalize", "title", "e", "safe", "items|list", "dictsort", "sum", "min", "max", "map('string')|list", "select|list", "batch(2)|list", "wordcount", "replace('a', 'b')", "indent(2)", "center(5)", "truncate(3)", "tojson(indent=1)"]
tests = ["defined", "undefined", "none", "string", "number", "integer", "float", "mapping", "iterable", "sequence", "boolean", "odd", "even", "true", "false", "callable", "lower", "upper", "divisibleby(2)", "in([1, 'a'])", "eq(1)"]
methods = [".upper()", ".split()", ".strip()", ".get('k')", ".items()", ".startswith('a')", ".replace('a', 'b')", ".count('a')", ".keys()", ".title()", ".lstrip('x')", ".endswith(('a', 'c'))", ".find('a')", ".format(1)", ".join(['x', 'y'])", ".index(1)", ".values()"]
binops = ["+", "-", "*", "/", "//", "%", "**", "~", "==", "!=", "<", ">", "<=", ">=", "and", "or", "in", "not in"]
def expr(d):
    r = random.random()
    if d > 2 or r < 0.3: return random.choice(atoms)
    if r < 0.5: return "(%s %s %s)" % (expr(d+1), random.choice(binops), expr(d+1))
    if r < 0.62: return "(%s|%s)" % (expr(d+1), random.choice(filters))
    if r < 0.7: return "(%s is %s%s)" % (expr(d+1), random.choice(["", "not "]), random.choice(tests))
    if r < 0.78: return "%s%s" % (random.choice(["s", "d", "l", "'abc'", "[1, 2]", "{'k': 2}", "u", "n"]), random.choice(methods))
    if r < 0.86: return "%s%s" % (random.choice(["s", "l", "d", "'xyz'", "[1, 2, 3]", "u", "n", "{'k': 3}"]), random.choice(["[0]", "[-1]", "[1:]", "[::-1]", "['k']", ".k", "[5]", "[:-1]", ".0"]))
    if r < 0.92: return "(%s if %s else %s)" % (expr(d+1), expr(d+1), expr(d+1))
    return "(not %s)" % expr(d+1)
ctx = {"d": {"k": 1, "j": [1, 2]}, "s": "Hello a", "l": [1, "two", 3.5, None, True], "n": None, "f": 1.25}
json.dump(ctx, open('/tmp/fuzz/ec.json', 'w'))
fails = 0; counts = {"ok": 0, "err": 0}
for k in range(n):
    src = "{{ %s }}" % expr(0)
    try:
        exp = env.from_string(src).render(**ctx); err = None; counts["ok"] += 1
    except Exception as e:
        exp = None; err = type(e).__name__; counts["err"] += 1
    open('/tmp/fuzz/e.jinja', 'w').write(src)
    r = subprocess.run([__import__('os').environ.get('LOOM', '.build/debug/loom'), 'template', '--template', '/tmp/fuzz/e.jinja', '--context', '/tmp/fuzz/ec.json', '--now', '2026-11-30'], capture_output=True)
    got = r.stdout.decode() if r.returncode == 0 else None
    gerr = None
    if got is None:
        line = r.stderr.decode().strip()
        gerr = line.split(": ", 2)[1] if line.count(": ") >= 2 else line
    same = (exp == got) if exp is not None else (got is None and (gerr == err or (err, gerr) in {("OverflowError", "ResourceLimitError"), ("ZeroDivisionError", "ZeroDivisionError"), ("IndexError", "ValueError"), ("KeyError", "ValueError"), ("TemplateAssertionError", "TemplateAssertionError")}))
    if not same:
        fails += 1
        if fails <= 12:
            print("MISMATCH", src); print("  jinja:", repr(exp)[:200], err); print("  loom: ", repr(got)[:200], gerr)
print("fails", fails, "of", n, counts)
