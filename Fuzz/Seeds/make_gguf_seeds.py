"""Writes the GGUF fuzz seeds: tiny but complete files that pass every check of Loom's reader,
so the fuzzer starts from inputs that reach ModelDescription and Tokenizer instead of dying at
the header. Run with a Python that has the `gguf` and `numpy` packages:

    /work/main/.venv/bin/python Fuzz/Seeds/make_gguf_seeds.py ../shared Fuzz/Seeds/gguf
"""
import sys

import gguf
import numpy as np


def tiny_model(path, arch, tokens, scores, types, model, merges=None, pre=None, template=None, qkv_bias=False):
    w = gguf.GGUFWriter(path, arch)
    dim, ff, heads, n_vocab = 8, 16, 2, len(tokens)
    w.add_context_length(64)
    w.add_embedding_length(dim)
    w.add_block_count(1)
    w.add_feed_forward_length(ff)
    w.add_head_count(heads)
    w.add_head_count_kv(1)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_tokenizer_model(model)
    if pre:
        w.add_tokenizer_pre(pre)
    w.add_token_list(tokens)
    if scores is not None:
        w.add_token_scores(scores)
    w.add_token_types(types)
    if merges:
        w.add_token_merges(merges)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    if template:
        w.add_chat_template(template)
    rng = np.random.default_rng(0)

    def t(name, *shape):
        w.add_tensor(name, rng.standard_normal(shape[::-1]).astype(np.float32))

    t("token_embd.weight", dim, n_vocab)
    t("output_norm.weight", dim)
    kv = dim // heads
    t("blk.0.attn_norm.weight", dim)
    t("blk.0.attn_q.weight", dim, dim)
    t("blk.0.attn_k.weight", dim, kv)
    t("blk.0.attn_v.weight", dim, kv)
    if qkv_bias:
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


def main():
    shared, out = sys.argv[1], sys.argv[2]
    # SentencePiece: the first 96 tokens of stories260K (control, byte and piece tokens).
    reader = gguf.GGUFReader(f"{shared}/models/stories260K.gguf")
    f = reader.fields
    toks = [bytes(f["tokenizer.ggml.tokens"].parts[i]).decode() for i in f["tokenizer.ggml.tokens"].data][:96]
    scores = [float(f["tokenizer.ggml.scores"].parts[i][0]) for i in f["tokenizer.ggml.scores"].data][:96]
    types = [int(f["tokenizer.ggml.token_type"].parts[i][0]) for i in f["tokenizer.ggml.token_type"].data][:96]
    template = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
    tiny_model(f"{out}/llama-spm.gguf", "llama", toks, scores, types, "llama", template=template)
    # Byte-level BPE: the 256 byte symbols, a few merges, and ChatML control tokens.
    byte_syms = [chr(c) if 33 <= c <= 126 or 161 <= c <= 172 or 174 <= c <= 255 else None for c in range(256)]
    n = 0
    for c in range(256):
        if byte_syms[c] is None:
            byte_syms[c] = chr(256 + n)
            n += 1
    merges = ["Ġ t", "h e", "Ġt he", "i n", "e r"]
    bpe = byte_syms + ["Ġt", "he", "Ġthe", "in", "er", "<|im_start|>", "<|im_end|>", "<|endoftext|>"]
    bpe_types = [1] * (len(bpe) - 3) + [3, 3, 3]
    chatml = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    tiny_model(f"{out}/qwen2-bpe.gguf", "qwen2", bpe, None, bpe_types, "gpt2", merges=merges, pre="qwen2",
               template=chatml, qkv_bias=True)
    tiny_model(f"{out}/llama-bpe.gguf", "llama", bpe, None, bpe_types, "gpt2", merges=merges, pre="llama-bpe")


main()
