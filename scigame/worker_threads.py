"""One BLAS thread per worker process: imported first by the workers' fork
server (executors._PRELOAD), before numpy loads there, since OpenBLAS reads
these variables once, when it loads.

N workers already keep the N cores busy; OpenBLAS's own threads (one per
core, in every worker) would only compete with the other workers, spinning
while they wait. They also make a few ill-conditioned fits of the baseline
differ in their last bits from one run to the next (a threaded reduction
sums in the order its threads finish), so that two runs of the same matrix
did not store the same rows. A user's own setting is left as it is. Only the
fork server and the workers forked from it are affected, not the runner.
"""

from __future__ import annotations

import os

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

for _name in BLAS_THREADS:
    os.environ.setdefault(_name, "1")
