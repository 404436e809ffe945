import json, datetime, sys
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.exceptions import TemplateError

class GenerationTag(Extension):
    tags = {"generation"}
    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(lineno)
    def _generation_support(self, caller):
        return caller()

def raise_exception(message):
    raise TemplateError(message)
def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
def strftime_now(fmt):
    return datetime.datetime(2026, 11, 30, 0, 0, 0).strftime(fmt)

env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[GenerationTag, loopcontrols])
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception
env.globals["strftime_now"] = strftime_now

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
