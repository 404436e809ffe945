# Sourced by Benchmarks/llamacpp-venv and Benchmarks/llamacpp-server: llama.cpp's CMake SIMD flags
# matched to THIS machine, so the Python package and the server are built alike.
#
# Sets LLAMACPP_KEY (the cache-directory suffix: builds for AVX-512 and AVX2-only machines must not
# share a cache) and LLAMACPP_CMAKE_ARGS. AVX-512 follows /proc/cpuinfo: some of this project's
# machines are AVX2-only AMD EPYCs, where an AVX-512 build dies with SIGILL. AMX stays off
# everywhere: the kernel may not grant AMX state. GGML_NATIVE is off so the flags, not the build
# host's -march=native, decide the instruction set.
llamacpp_cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
llamacpp_onoff() { if [[ " $llamacpp_cpu_flags " == *" $1 "* ]]; then echo ON; else echo OFF; fi; }
LLAMACPP_KEY="avx512-$(llamacpp_onoff avx512f)"
LLAMACPP_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=$(llamacpp_onoff avx) -DGGML_AVX2=$(llamacpp_onoff avx2) -DGGML_FMA=$(llamacpp_onoff fma) -DGGML_F16C=$(llamacpp_onoff f16c) -DGGML_AVX512=$(llamacpp_onoff avx512f) -DGGML_AVX512_VBMI=$(llamacpp_onoff avx512vbmi) -DGGML_AVX512_VNNI=$(llamacpp_onoff avx512_vnni) -DGGML_AVX512_BF16=$(llamacpp_onoff avx512_bf16) -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAMA_CURL=OFF"
