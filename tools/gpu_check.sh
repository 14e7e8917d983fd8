#!/usr/bin/env bash
# The GPU checks of issue 26, in one call of at most ~6 minutes, from the repo
# root on a machine with a CUDA GPU, jax/jaxlib with jax-cuda13-plugin (or
# -cuda12), pytest and hypothesis; PYTHONPATH must hold src and the repo root.
# Each step runs in its own subshell under `timeout` and prints PASS/FAIL/INFO
# lines; no step aborts the script. Outputs go under $OUT (default ./gpu_out).
#   bash tools/gpu_check.sh
set -u
OUT="${OUT:-$PWD/gpu_out}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
LOG="$OUT/summary.txt"
: > "$LOG"
say() { echo "$*" | tee -a "$LOG"; }
step() {  # step NAME SECONDS COMMAND...: run, report PASS/FAIL with the exit status
  local name="$1" secs="$2"; shift 2
  local t0=$SECONDS
  ( timeout -k 5 "$secs" "$@" ) > "$OUT/$name.log" 2>&1
  local rc=$?
  if [ $rc -eq 0 ]; then say "PASS $name ($((SECONDS - t0)) s)"; else say "FAIL $name rc=$rc ($((SECONDS - t0)) s): see $name.log"; tail -5 "$OUT/$name.log" | sed 's/^/    /' | tee -a "$LOG"; fi
  grep -h '^RESULT' "$OUT/$name.log" | sed 's/^/    /' | tee -a "$LOG"
}

# GPU_CHECK_STEPS picks the sections (default all): mem,share,order,precision,bench,tests;
# GPU_CHECK_TESTS the test files of the tests section.
STEPS=",${GPU_CHECK_STEPS:-mem,share,order,precision,bench,tests},"
want() { case "$STEPS" in *",$1,"*) return 0;; *) return 1;; esac; }

say "== gpu_check $(date -u +%FT%TZ) steps $STEPS"
( nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader ) 2>&1 | sed 's/^/INFO gpu: /' | tee -a "$LOG"
( timeout 60 "$PY" -c 'import jax, jaxlib; print("jax", jax.__version__, "jaxlib", jaxlib.__version__)' ) 2>&1 | tail -1 | sed 's/^/INFO /' | tee -a "$LOG"

# -- 1. memory settings: a process's GPU memory (nvidia-smi) under each setting, typedax vs JAX
cat > "$OUT/mem_probe.py" <<'PYEOF'
import os, subprocess, sys, time
import numpy as np
lib = sys.argv[1]
x = np.ones((256, 256), np.float32)
if lib == "typedax":
    import typedax as tdx
    y = np.asarray(tdx.jit(lambda a: a @ a)(x)); dev = tdx.devices()[0]
else:
    import jax
    y = np.asarray(jax.jit(lambda a: a @ a)(x)); dev = jax.devices()[0]
time.sleep(2)
q = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                   capture_output=True, text=True).stdout
used = [int(l.split(",")[1]) for l in q.strip().splitlines() if l.split(",")[0].strip() == str(os.getpid())]
print(f"RESULT {lib} {os.environ.get('SETTING', '')}: device={dev} used_MiB={used[0] if used else 'unknown'}")
PYEOF
want mem && for lib in typedax jax; do
  step "mem_${lib}_default" 60 env TYPEDAX_PLATFORM=cuda SETTING=default "$PY" "$OUT/mem_probe.py" $lib
  step "mem_${lib}_noprealloc" 60 env TYPEDAX_PLATFORM=cuda SETTING=PREALLOCATE=false XLA_PYTHON_CLIENT_PREALLOCATE=false "$PY" "$OUT/mem_probe.py" $lib
  step "mem_${lib}_fraction02" 60 env TYPEDAX_PLATFORM=cuda SETTING=MEM_FRACTION=.2 XLA_PYTHON_CLIENT_MEM_FRACTION=.2 "$PY" "$OUT/mem_probe.py" $lib
done

# -- 2. two typedax processes sharing the GPU (no preallocation), both computing at once
cat > "$OUT/share.py" <<'PYEOF'
import sys, time
import numpy as np
import typedax as tdx, typedax.numpy as tnp
f = tdx.jit(lambda a: tnp.tanh(a @ a).sum())
x = np.random.default_rng(int(sys.argv[1])).standard_normal((2048, 2048)).astype(np.float32)
t = time.time()
while time.time() - t < 8:
    v = float(f(x))
print(f"RESULT share {sys.argv[1]}: device={tdx.devices()[0]} value={v:.4f}")
PYEOF
want share && step two_processes 60 bash -c "export TYPEDAX_PLATFORM=cuda XLA_PYTHON_CLIENT_PREALLOCATE=false; \"$PY\" \"$OUT/share.py\" 1 & a=\$!; \"$PY\" \"$OUT/share.py\" 2 & b=\$!; wait \$a && wait \$b"

# -- 3. both import orders land on the GPU
cat > "$OUT/order.py" <<'PYEOF'
import sys
import numpy as np
x = np.ones((64, 64), np.float32)
def run_tdx():
    import typedax as tdx
    y = tdx.jit(lambda a: a @ a)(x); np.asarray(y)
    return tdx.default_backend(), str(tdx.devices()[0])
def run_jax():
    import jax
    y = jax.jit(lambda a: a @ a)(x); np.asarray(y)
    return jax.default_backend(), str(list(y.devices())[0])
first, second = (run_tdx, run_jax) if sys.argv[1] == "typedax-first" else (run_jax, run_tdx)
a, b = first(), second()
t, j = (a, b) if sys.argv[1] == "typedax-first" else (b, a)
print(f"RESULT {sys.argv[1]}: typedax={t} jax={j}")
assert t[0] == "gpu" and j[0] == "gpu", (t, j)
PYEOF
want order && step order_typedax_first 90 env TYPEDAX_PLATFORM=cuda "$PY" "$OUT/order.py" typedax-first
want order && step order_jax_first 90 env TYPEDAX_PLATFORM=cuda "$PY" "$OUT/order.py" jax-first

# -- 4. precision: jit(grad(MLP)) at widths 256 and 2048, typedax vs JAX, default and highest
cat > "$OUT/precision.py" <<'PYEOF'
import numpy as np
import jax, jax.numpy as jnp
import typedax as tdx, typedax.numpy as tnp
for width in (256, 2048):
    rng = np.random.default_rng(0)
    ws = [(rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32) for _ in range(3)]
    x = rng.standard_normal((128, width)).astype(np.float32)
    def mlp(lib):
        def loss(w, x):
            h = x
            for wi in w:
                h = lib.tanh(h @ wi)
            return lib.sum(h * h)
        return loss
    grads = {}
    for prec in (None, "highest"):
        with jax.default_matmul_precision(prec):
            grads["jax", prec] = np.asarray(jax.jit(jax.grad(mlp(jnp)))(ws, x)[0])
        with tdx.default_matmul_precision(prec):
            grads["tdx", prec] = np.asarray(tdx.jit(tdx.grad(mlp(tnp)))(ws, x)[0])
    scale = float(np.max(np.abs(grads["jax", "highest"])))
    rel = lambda a, b: float(np.max(np.abs(grads[a] - grads[b]))) / scale
    for prec in (None, "highest"):
        print(f"RESULT width={width} precision={prec}: typedax g[0,0]={grads['tdx', prec][0, 0]:.6f} "
              f"jax g[0,0]={grads['jax', prec][0, 0]:.6f} max|typedax-jax|/max|g|={rel(('tdx', prec), ('jax', prec)):.3g}")
    # default precision is TF32 in both (each as far from its own 'highest'), highest agrees to f32 rounding
    print(f"RESULT width={width}: default vs highest: typedax {rel(('tdx', None), ('tdx', 'highest')):.3g}, "
          f"jax {rel(('jax', None), ('jax', 'highest')):.3g}")
    assert rel(("tdx", "highest"), ("jax", "highest")) <= 1e-5, width
PYEOF
want precision && step precision_mlp 120 env TYPEDAX_PLATFORM=cuda "$PY" "$OUT/precision.py"

# -- 5. typedax beside JAX on the GPU: benchmarks/gpu.py (steady step, first call, dispatch)
want bench && step bench_gpu 150 env TYPEDAX_PLATFORM=cuda "$PY" -m benchmarks gpu
want bench && grep -E "ratio|typedax on" "$OUT/bench_gpu.log" | sed 's/^/    /' | tee -a "$LOG"

# -- 6. targeted test files on the GPU (JAX, the oracle, on the same GPU)
want tests && for t in ${GPU_CHECK_TESTS:-test_precision test_gpu_options test_lowering test_matmul test_audit2_cache test_audit2_x64_eval}; do
  if [ -f "tests/$t.py" ]; then
    step "pytest_$t" 50 env TYPEDAX_PLATFORM=cuda XLA_PYTHON_CLIENT_PREALLOCATE=false HYPOTHESIS_PROFILE=ci \
      "$PY" -m pytest -q -x -p no:cacheprovider "tests/$t.py"
  fi
done
say "== done in $SECONDS s"
