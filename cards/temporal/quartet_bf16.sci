# C4 validation loss of a Llama-style model trained in high precision versus non-embedding parameters and tokens per parameter (Quartet's base law)
card quartet_bf16 "C4 loss of a high-precision Llama-style model versus parameters and tokens per parameter" {
  collection temporal
  field      machine_learning
  source     "R. L. Castro, A. Panferov, S. Tabesh, O. Sieberling, J. Chen, M. Nikdan, S. Ashkboos, D. Alistarh, Quartet: Native FP4 Training Can Be Optimal for Large Language Models, NeurIPS (2025)"
  doi        "arXiv:2505.14669"
  published  2025-12-02
  preprint   2025-05-20

  background """
    Transformers of the Llama-2 architecture are pre-trained on the
    train split of C4 in ordinary high precision, with AdamW, a 10%
    learning-rate warm-up and a cosine schedule, sequences of 512 tokens
    and batches of 512 sequences. The experimenter chooses the number of
    non-embedding parameters and the number of training tokens per
    parameter; the loss on C4's validation split is reported.
  """
  conditions "unquantised (BF16) baseline training"
  conditions "learning rate tuned once and scaled inversely with the non-embedding parameters"

  input  N [1] in log 3e7 .. 2e8  "non-embedding parameters"
  input  r [1] in log 25 .. 800   "training tokens per non-embedding parameter"
  output L [1] resolution 0.0001 tolerance abs 0.001 rel 1%  "C4 validation loss, cross-entropy per token"

  param A     = 1.52e5  "coefficient of the parameter term"
  param alpha = 0.589   "parameter exponent"
  param B     = 5.25e5  "coefficient of the data term"
  param beta  = 0.544   "data exponent"
  param E     = 1.35    "irreducible loss"
  param gamma = 0.274   "outer exponent"

  let D = r * N
  law L = (A / N^alpha + B / D^beta)^gamma + E

  # mutation kind: replaced law. The loss excess is linear in the sum of the two power
  # terms (the outer exponent fixed at 1, a form the paper also fits), scaled so that both
  # worlds agree at 1e8 parameters and 100 tokens per parameter.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   L: min 0.81, median 1, max 1.6
  counterfactual "replaced law: the loss excess is linear in the sum of the size and data terms" {
    law L = (A / 1e8^alpha + B / 1e10^beta)^gamma * (A / N^alpha + B / D^beta) / (A / 1e8^alpha + B / 1e10^beta) + E
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
