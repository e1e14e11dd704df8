"""Thread caps reach libraries loaded after the caps were first used."""

import os
import subprocess
import sys

SCRIPT = """
import sys
from threadpoolctl import threadpool_info, threadpool_limits
threadpool_limits(limits=2)
from hawks_deap._util.threads import blas_thread_limit, native_thread_limit
assert "sklearn" not in sys.modules
with blas_thread_limit(1):
    pass  # listed before anything loads OpenMP
with native_thread_limit(1):
    import sklearn.cluster  # noqa: F401 - OpenMP's first use would be here
    inside = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "openmp"]
after = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "openmp"]
with native_thread_limit(1):
    import scipy.linalg  # noqa: F401 - a later import: listed again
    again = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "openmp"]
print(inside, after, again)
"""


def test_openmp_loaded_later_is_capped_from_its_first_use():
    # OpenMP reads its default thread count when it loads: 2, whatever the caller set
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    inside, after, again = _parse(out.stdout)
    assert inside and all(n == 1 for n in inside)
    assert after and all(n == 2 for n in after)  # restored on leaving
    assert again and all(n == 1 for n in again)


def _parse(text):
    import ast

    line = text.strip().splitlines()[-1]
    parts = line.replace("] [", "]|[").split("|")
    return [ast.literal_eval(p) for p in parts]
