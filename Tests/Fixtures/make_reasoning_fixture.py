"""Writes Tests/Fixtures/reasoning/tiny-r1-think.gguf: a one-layer qwen2 model with random
weights, a byte-level BPE vocabulary (every byte is a token, so any text can be generated), the
ChatML control tokens, `<think>`/`</think>` and `<tool_call>`/`</tool_call>` as user-defined
tokens (as Qwen3 has them), and DeepSeek-R1-Distill's chat template, which ends the generation
prompt with `<think>\n`. ProviderTests drive LocalLanguageModel's executor with it to check that
guided generation starts inside the reasoning block the prompt opened (issue 7); what the
weights say is irrelevant, the grammar decides the shape of the output.

    /work/main/.venv/bin/python Tests/Fixtures/make_reasoning_fixture.py ../shared Tests/Fixtures/reasoning
"""
import sys

import gguf
import numpy as np


def main():
    shared, out = sys.argv[1], sys.argv[2]
    template = open(f"{shared}/chat-templates/templates/deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja").read()
    # GPT-2's byte-to-symbol map: printable bytes stand for themselves, the rest from U+0100 on.
    syms = [chr(c) if 33 <= c <= 126 or 161 <= c <= 172 or 174 <= c <= 255 else None for c in range(256)]
    n = 0
    for c in range(256):
        if syms[c] is None:
            syms[c] = chr(256 + n)
            n += 1
    merges = ["Ġ t", "h e", "Ġt he", "i n", "e r"]
    control = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    user_defined = ["<think>", "</think>", "<tool_call>", "</tool_call>"]
    tokens = syms + ["Ġt", "he", "Ġthe", "in", "er"] + control + user_defined
    types = [1] * (len(tokens) - len(control) - len(user_defined)) + [3] * len(control) + [4] * len(user_defined)

    w = gguf.GGUFWriter(f"{out}/tiny-r1-think.gguf", "qwen2")
    dim, ff, heads, n_vocab = 8, 16, 2, len(tokens)
    w.add_context_length(4096)
    w.add_embedding_length(dim)
    w.add_block_count(1)
    w.add_feed_forward_length(ff)
    w.add_head_count(heads)
    w.add_head_count_kv(1)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_freq_base(10000.0)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(tokens.index("<|endoftext|>"))
    w.add_eos_token_id(tokens.index("<|im_end|>"))
    w.add_add_bos_token(False)
    w.add_chat_template(template)
    rng = np.random.default_rng(7)

    def t(name, *shape):
        w.add_tensor(name, rng.standard_normal(shape[::-1]).astype(np.float32))

    kv = dim // heads
    t("token_embd.weight", dim, n_vocab)
    t("output_norm.weight", dim)
    t("output.weight", dim, n_vocab)
    t("blk.0.attn_norm.weight", dim)
    t("blk.0.attn_q.weight", dim, dim)
    t("blk.0.attn_k.weight", dim, kv)
    t("blk.0.attn_v.weight", dim, kv)
    t("blk.0.attn_q.bias", dim)
    t("blk.0.attn_k.bias", kv)
    t("blk.0.attn_v.bias", kv)
    t("blk.0.attn_output.weight", dim, dim)
    t("blk.0.ffn_norm.weight", dim)
    t("blk.0.ffn_gate.weight", dim, ff)
    t("blk.0.ffn_up.weight", dim, ff)
    t("blk.0.ffn_down.weight", ff, dim)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


main()
