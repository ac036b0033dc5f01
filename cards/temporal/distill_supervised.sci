# Validation cross-entropy of a supervised language model versus its parameters and training tokens (supervised law of the distillation study)
card distill_supervised "Cross-entropy of a supervised language model versus parameters and tokens (English C4)" {
  collection temporal
  field      machine_learning
  source     "D. Busbridge, A. Shidani, F. Weers, J. Ramapuram, E. Littwin, R. Webb, Distillation Scaling Laws, ICML (2025)"
  doi        "arXiv:2502.08606"
  published  2025-07-25
  preprint   2025-02-12

  background """
    Transformer language models (multi-head attention, pre-normalisation
    with RMSNorm, rotary position embeddings, sequences of 4096 tokens)
    are trained from scratch, in the ordinary supervised way, on the
    English-only subset of C4. The experimenter chooses the number of
    parameters and the number of training tokens; the validation
    cross-entropy of the trained model is reported.
  """
  conditions "English C4, sequence length 4096"
  conditions "at least as many training tokens as parameters"

  input  N [1] in log 1.43e8 .. 1.26e10  "model parameters"
  input  D [1] in log 2.86e9 .. 5.12e11  "training tokens"
  output L [1] resolution 0.0001 tolerance abs 0.001 rel 1%  "validation cross-entropy, nats per token"
  constraint D >= N  "no run trained on fewer tokens than the model has parameters"

  param E     = 1.220  "irreducible cross-entropy"
  param A     = 3355   "coefficient of the parameter term"
  param B     = 18186  "coefficient of the data term"
  param alpha = 0.408  "parameter exponent"
  param beta  = 0.431  "data exponent"
  param gamma = 0.452  "outer exponent"

  law L = E + (A / N^alpha + B / D^beta)^gamma

  # mutation kind: replaced law. The size and data terms each take the outer power and
  # add, rather than adding first: the two shortfalls no longer interact.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   L: min 1.2, median 1.2, max 1.3
  counterfactual "replaced law: the size and data shortfalls add separately" {
    law L = E + (A / N^alpha)^gamma + (B / D^beta)^gamma
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
