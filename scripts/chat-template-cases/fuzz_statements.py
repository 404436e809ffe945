# Differential fuzzing of statements (loops, macros, set/filter blocks, loop controls) against Jinja2:
#   LOOM=.build/debug/loom python scripts/chat-template-cases/fuzz_statements.py SEED COUNT
import os; os.makedirs("/tmp/fuzz", exist_ok=True)
import random, json, subprocess, sys, os
sys.path.insert(0, __import__("os").path.dirname(__file__)); from jenv import env
random.seed(int(sys.argv[1])); n = int(sys.argv[2])
vals = ["x", "i", "ns.t", "loop.index", "loop.first", "loop.last", "loop.previtem", "loop.nextitem", "loop.length", "loop.revindex", "loop.depth", "k", "v", "m.role", "m['content']", "y", "varargs", "kwargs", "caller is defined"]
def e():
    r = random.random()
    if r < 0.5: return random.choice(vals)
    if r < 0.7: return "%s ~ %s" % (random.choice(vals), random.choice(vals))
    if r < 0.85: return "(%s) if %s else 'E'" % (random.choice(vals), random.choice(vals))
    return "%s|length" % random.choice(["msgs", "l", "x|string"])
def stmts(d):
    out = []
    for _ in range(random.randint(1, 4)):
        r = random.random()
        if r < 0.25: out.append("{{ %s }}" % e())
        elif r < 0.35: out.append("{%% set x = %s %%}" % e())
        elif r < 0.42: out.append("{%% set ns.t = ns.t ~ (%s) %%}" % e())
        elif r < 0.55 and d < 3: out.append("{%% for i in %s %%}%s{%% endfor %%}" % (random.choice(["l", "[1, 2]", "range(3)", "'ab'", "[]"]), stmts(d+1)))
        elif r < 0.62 and d < 3: out.append("{%% for m in msgs if m.role != 'tool' %%}%s{%% else %%}none{%% endfor %%}" % stmts(d+1))
        elif r < 0.68 and d < 3: out.append("{%% for k, v in dd|dictsort %%}%s{%% endfor %%}" % stmts(d+1))
        elif r < 0.76 and d < 3: out.append("{%% if %s %%}%s{%% elif %s %%}%s{%% else %%}%s{%% endif %%}" % (e(), stmts(d+1), e(), stmts(d+1), stmts(d+1)))
        elif r < 0.8 and d > 0: out.append(random.choice(["{% break %}", "{% continue %}"]))
        elif r < 0.86 and d < 2: out.append("{%% macro mac%d(a, b='B') %%}%s{%% endmacro %%}{{ mac%d(%s) }}" % (d, stmts(d+1), d, random.choice(["1", "1, 2", "b=3, a=4", "x"])))
        elif r < 0.9 and d < 2: out.append("{%% set y %%}%s{%% endset %%}{{ y|upper }}" % stmts(d+1))
        elif r < 0.94 and d < 2: out.append("{%% filter title %%}%s{%% endfilter %%}" % stmts(d+1))
        else: out.append(random.choice(["a", " ", "\n", "-"]))
    return "".join(out)
ctx = {"m": {"role": "sys", "content": "c"}, "k": "K", "v": 0, "y": "Y", "l": [1, "two", None], "msgs": [{"role": "user", "content": "hi"}, {"role": "tool", "content": "t"}, {"role": "assistant", "content": "ok"}], "dd": {"b": 1, "a": 2}}
json.dump(ctx, open('/tmp/fuzz/sc.json', 'w'))
fails = 0; counts = {"ok": 0, "err": 0}
for k in range(n):
    src = "{% set ns = namespace(t='') %}" + stmts(0) + "|{{ ns.t }}"
    try:
        exp = env.from_string(src).render(**json.loads(json.dumps(ctx))); err = None; counts["ok"] += 1
    except Exception as ex:
        exp = None; err = type(ex).__name__; counts["err"] += 1; emsg = str(ex)[:150]
    open('/tmp/fuzz/s.jinja', 'w').write(src)
    r = subprocess.run([os.environ.get("LOOM", ".build/debug/loom"), 'template', '--template', '/tmp/fuzz/s.jinja', '--context', '/tmp/fuzz/sc.json', '--now', '2026-11-30'], capture_output=True)
    got = r.stdout.decode() if r.returncode == 0 else None
    gerr = None
    if got is None:
        line = r.stderr.decode().strip()
        gerr = line.split(": ", 2)[1] if line.count(": ") >= 2 else line
    same = (exp == got) if exp is not None else (got is None and (gerr == err or (err, gerr) == ("SyntaxError", "TemplateSyntaxError")))
    if not same:
        fails += 1
        if fails <= 8:
            print("MISMATCH", src[:200]); print("  jinja:", repr(exp)[:300], err, emsg if exp is None else ""); print("  loom: ", repr(got)[:300], gerr)
print("fails", fails, "of", n, counts)
