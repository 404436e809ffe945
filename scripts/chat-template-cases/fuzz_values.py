# Differential fuzzing of values, filters and str methods against Python Jinja2:
#   LOOM=.build/debug/loom python scripts/chat-template-cases/fuzz_values.py SEED COUNT
import os; os.makedirs("/tmp/fuzz", exist_ok=True)
import random, json, subprocess, sys, os
sys.path.insert(0, __import__("os").path.dirname(__file__)); from jenv import env
random.seed(int(sys.argv[1])); n = int(sys.argv[2])
strs = ["'a,b,,c'", "'  Hi There  '", "'é\u0301x'", "'x\\ty\\nz'", "'ß'", "'İ'", "'{0}-{1}'", "'%s!'", "'ǅungla'", "'a\u00a0b'", "''", "'ab'", "'they\\'re'", "'😀x'", "'1_000'", "' 42 '", "'3.5'", "'-7'", "'0x1f'"]
structs = ["[1, [2, 3], {'a': none}]", "{'b': 2, 'a': [1.5, true]}", "[{'n': 'x', 'v': 2}, {'n': 'y'}]", "('t', 1)", "[[1, 'a'], [2, 'b']]", "{'k': {'z': 'é'}}", "[3.0, 1, 2.5]", "['b', 'A', 'a']"]
atoms = strs + structs + ["d", "s", "l", "1", "-2", "0.1", "1e-5", "123456789012", "none", "true", "u"]
smethods = [".split(',')", ".split(',', 1)", ".rsplit(',', 1)", ".split()", ".strip(' H')", ".lstrip()", ".rstrip('e ')", ".upper()", ".lower()", ".title()", ".capitalize()", ".swapcase()", ".replace(',', ';', 1)", ".find('b')", ".rfind(',')", ".count(',')", ".startswith(('a', ' '))", ".endswith('c')", ".format('A', 'B')", ".isdigit()", ".isalpha()", ".isspace()", ".center(9, '*')", ".ljust(6, '.')", ".rjust(6)", ".zfill(5)", ".partition(',')", ".splitlines()", ".removeprefix('a')", ".index('a')", ".isupper()", ".istitle()", ".expandtabs(4)"]
filters = ["tojson", "tojson(indent=2)", "tojson(sort_keys=true)", "tojson(separators=(',', ':'))", "tojson(ensure_ascii=true)", "string", "list", "length", "first", "last", "sort", "sort(reverse=true)", "sort(attribute='n')", "unique|list", "map(attribute='n')|list", "map(attribute='v', default=0)|list", "selectattr('v')|list", "rejectattr('v', 'defined')|list", "selectattr('n', 'equalto', 'x')|list", "dictsort", "dictsort(by='value')", "items|list", "join('|')", "join(',', attribute='n')", "sum", "min", "max", "int", "float", "int(base=16)", "round(1)", "trim", "trim('H ')", "title", "capitalize", "wordcount", "replace('a', 'A')", "center(8)", "indent(2, true)", "truncate(5)", "truncate(6, true, '..')", "e", "striptags", "batch(2)|list", "slice(2)|list", "default('x', true)", "format(1)", "reverse|join", "map('upper')|list", "select('string')|list", "reject('number')|list", "attr('n')", "abs", "list|length"]
def expr(d):
    r = random.random()
    if d > 2 or r < 0.25: return random.choice(atoms)
    if r < 0.45: return "(%s)%s" % (random.choice(strs + ["s"]), random.choice(smethods))
    if r < 0.75: return "(%s|%s)" % (expr(d+1), random.choice(filters))
    if r < 0.85: return "(%s ~ %s)" % (expr(d+1), expr(d+1))
    if r < 0.92: return "(%s + %s)" % (expr(d+1), expr(d+1))
    return "%s[%s]" % (random.choice([x for x in structs if not x.startswith('{')] + strs), random.choice(["0", "-1", "1:", "::2", "'a'", "'n'"]))
ctx = {"d": {"b": 1, "a": [2, {"c": None}], "é": "ü"}, "s": "Mixed Case, with,commas", "l": [3, "x", 2.5, None, [1, 2]]}
json.dump(ctx, open('/tmp/fuzz/ec2.json', 'w'), ensure_ascii=False)
fails = 0; counts = {"ok": 0, "err": 0}
for k in range(n):
    src = "{{ %s }}" % expr(0)
    try:
        exp = env.from_string(src).render(**json.loads(json.dumps(ctx))); err = None; counts["ok"] += 1
    except Exception as e:
        exp = None; err = type(e).__name__; counts["err"] += 1
    open('/tmp/fuzz/e2.jinja', 'w').write(src)
    r = subprocess.run([__import__("os").environ.get("LOOM", ".build/debug/loom"), 'template', '--template', '/tmp/fuzz/e2.jinja', '--context', '/tmp/fuzz/ec2.json', '--now', '2026-11-30'], capture_output=True)
    got = r.stdout.decode() if r.returncode == 0 else None
    gerr = None
    if got is None:
        line = r.stderr.decode().strip()
        gerr = line.split(": ", 2)[1] if line.count(": ") >= 2 else line
    same = (exp == got) if exp is not None else (got is None and (gerr == err or (err, gerr) in {("OverflowError", "ResourceLimitError"), ("IndexError", "ValueError"), ("KeyError", "ValueError")}))
    if not same:
        fails += 1
        if fails <= 15:
            print("MISMATCH", src); print("  jinja:", repr(exp)[:300], err); print("  loom: ", repr(got)[:300], gerr, r.stderr.decode()[:150] if got is None else "")
print("fails", fails, "of", n, counts)
