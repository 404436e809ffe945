# Renders each case of feature-cases.txt with Python Jinja2 configured as Hugging Face does
# (the environment lives in jenv.py, shared with the differential fuzzers).
import json, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from jenv import env

cases = [l for l in open(sys.argv[1]).read().split("\n=====\n") if l.strip()]
out = []
for block in cases:
    name, rest = block.split("\n", 1)
    ctx_line, src = rest.split("\n", 1)
    ctx = json.loads(ctx_line)
    try:
        result = env.from_string(src).render(**ctx)
        out.append({"name": name, "template": src, "context": ctx, "expected": result, "error": None})
    except Exception as e:
        out.append({"name": name, "template": src, "context": ctx, "expected": None, "error": f"{type(e).__name__}: {e}"})
for o in out:
    print(json.dumps(o, ensure_ascii=False))
