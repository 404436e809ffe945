# Renders the model-family chat templates of llama.cpp's models/templates (fetched by
# `models/fetch llama-vocab`) over the shared suite's ten conversations plus a few for Qwen 3's
# thinking switch and parallel tool calls, with Python Jinja2 configured as Hugging Face does
# (jenv.py). Prints one JSON object per case: {template, conversation, context, expected, error}.
#   python render_model_templates.py ../shared/chat-templates/chat-templates-dev.jsonl models/llama-vocab/templates
import copy, json, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from jenv import env

suite, templates = sys.argv[1], sys.argv[2]
# Each family's template with the begin/end-of-sequence texts of its tokenizer.
FAMILIES = {
    "Qwen-Qwen3-0.6B.jinja": ("", "<|im_end|>"),
    "microsoft-Phi-3.5-mini-instruct.jinja": ("<s>", "<|endoftext|>"),
    "google-gemma-2-2b-it.jinja": ("<bos>", "<eos>"),
}

base = {}
for line in open(suite):
    case = json.loads(line)
    if case["template"] == "Qwen-Qwen3-0.6B.jinja":
        base[case["conversation"]] = case["context"]

weather = base["e_tools_available"]["tools"]
extra = {
    # Qwen 3 with thinking switched off: the generation prompt closes an empty think block.
    "j_thinking_disabled": dict(base["b_system_user"], enable_thinking=False),
    "k_thinking_enabled": dict(base["b_system_user"], enable_thinking=True),
    # Two calls in one turn, both outputs back (Qwen 3 groups consecutive tool messages).
    "l_parallel_tool_calls": {
        "messages": [
            {"role": "user", "content": "Weather in Paris and in Rome?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "call12345", "type": "function", "function": {"name": "get_weather", "arguments": {"location": "Paris"}}},
                {"id": "call67890", "type": "function", "function": {"name": "get_weather", "arguments": {"location": "Rome"}}},
            ]},
            {"role": "tool", "tool_call_id": "call12345", "content": "{\"temperature\": 18}"},
            {"role": "tool", "tool_call_id": "call67890", "content": "{\"temperature\": 24}"},
        ],
        "tools": weather, "documents": None, "add_generation_prompt": True, "enable_thinking": False,
    },
}

for name, (bos, eos) in FAMILIES.items():
    source = open(os.path.join(templates, name)).read()
    template = env.from_string(source)
    conversations = dict(base)
    if name.startswith("Qwen"):
        conversations.update(extra)
    for conversation, context in sorted(conversations.items()):
        context = copy.deepcopy(context)
        context["bos_token"], context["eos_token"] = bos, eos
        try:
            expected, error = template.render(**context), None
        except Exception as e:
            expected, error = None, f"{type(e).__name__}: {e}"
        print(json.dumps({"template": name, "conversation": conversation, "context": context,
                          "expected": expected, "error": error}, ensure_ascii=False))
