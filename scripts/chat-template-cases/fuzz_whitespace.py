# Differential fuzzing against Python Jinja2 (needs jinja2==3.1.6 and a built loom):
#   LOOM=.build/debug/loom python scripts/chat-template-cases/fuzz_whitespace.py SEED COUNT
import random, json, subprocess, sys, os
import os; os.makedirs("/tmp/fuzz", exist_ok=True)
sys.path.insert(0, '/tmp')
sys.path.insert(0, __import__("os").path.dirname(__file__)); from jenv import env
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
texts = ["a", " ", "  ", "\n", "\t", "x y", " \n", "\n  ", "b\n", "  \n  ", "\u00a0", "é"]
def m(): return random.choice(["", "", "-", "+"])
def me(): return random.choice(["", "", "-", "+"])
def block(depth):
    out = []
    for _ in range(random.randint(1, 5)):
        r = random.random()
        if r < 0.4: out.append(random.choice(texts))
        elif r < 0.55: out.append("{{%s v %s}}" % (random.choice(["", "-"]), random.choice(["", "-"])))
        elif r < 0.65: out.append("{#%s c %s#}" % (m(), me()))
        elif r < 0.72: out.append("{%%%s set x = 1 %s%%}" % (m(), me()))
        elif r < 0.85 and depth < 3:
            out.append("{%%%s if true %s%%}" % (m(), me()) + block(depth+1) + random.choice(["", "{%%%s else %s%%}" % (m(), me()) + block(depth+1)]) + "{%%%s endif %s%%}" % (m(), me()))
        elif r < 0.95 and depth < 3:
            out.append("{%%%s for i in [1, 2] %s%%}" % (m(), me()) + block(depth+1) + "{%%%s endfor %s%%}" % (m(), me()))
        elif depth < 3:
            out.append("{%%%s raw %s%%}" % (random.choice(["", "-"]), random.choice(["", "-"])) + random.choice(texts) + "{{ y }}" + random.choice(texts) + "{%%%s endraw %s%%}" % (random.choice(["", "-"]), random.choice(["", "-"])))
    return "".join(out)
fails = 0
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
for k in range(n):
    src = block(0) + random.choice(["", "\n", "\n\n"])
    try:
        exp = env.from_string(src).render(v="V")
        err = None
    except Exception as e:
        exp = None; err = type(e).__name__
    open('/tmp/fuzz/t.jinja', 'w').write(src)
    open('/tmp/fuzz/c.json', 'w').write('{"v": "V"}')
    r = subprocess.run([__import__('os').environ.get('LOOM', '.build/debug/loom'), 'template', '--template', '/tmp/fuzz/t.jinja', '--context', '/tmp/fuzz/c.json', '--now', '2026-11-30'], capture_output=True)
    got = r.stdout.decode() if r.returncode == 0 else None
    if (exp is None) != (got is None) or (exp is not None and exp != got):
        fails += 1
        if fails <= 5:
            print("MISMATCH", repr(src)); print("  jinja:", repr(exp), err); print("  loom: ", repr(got), r.stderr.decode()[:200])
print("fails", fails, "of", n)
