"""One BLAS thread per process: imported first by `import scigame` and by
the workers' fork server (executors._PRELOAD), before numpy loads there,
since OpenBLAS reads these variables once, when it loads.

The baseline's matrices are a few hundred readings at most, where BLAS's own
threads buy nothing; N workers already keep the N cores busy, and a thread
per core in every worker would only compete with the other workers. Threaded
BLAS also made a few ill-conditioned fits of the baseline differ in their
last bits from one run to the next (a threaded reduction splits its sums by
the threads it gets), so that two runs of the same matrix did not store the
same rows: utd_data_gym's counterfactual Adaptive episode stored a
hypothesis confidence of 1.7663719e-19 or 1.7663723e-19, in 2 of 5 runs the
second, and the first in 5 of 5 runs with one thread. A user's own setting
is left as it is, and a process that loaded numpy before scigame keeps its
threads.
"""

from __future__ import annotations

import os

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

for _name in BLAS_THREADS:
    os.environ.setdefault(_name, "1")
