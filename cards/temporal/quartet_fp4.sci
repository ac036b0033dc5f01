# C4 validation loss of a 30M-parameter Llama-style model trained end to end in 4-bit MXFP4 with Quartet versus tokens per parameter
card quartet_fp4 "C4 loss of a 30M model trained end to end in FP4 with Quartet versus tokens per parameter" {
  collection temporal
  field      machine_learning
  source     "R. L. Castro, A. Panferov, S. Tabesh, O. Sieberling, J. Chen, M. Nikdan, S. Ashkboos, D. Alistarh, Quartet: Native FP4 Training Can Be Optimal for Large Language Models, NeurIPS (2025)"
  doi        "arXiv:2505.14669"
  published  2025-12-02
  preprint   2025-05-20

  background """
    A transformer of the Llama-2 architecture with 30 million
    non-embedding parameters is pre-trained on the train split of C4
    with its forward and backward passes both computed in the 4-bit
    MXFP4 format by the Quartet method, with AdamW, a 10% learning-rate
    warm-up and a cosine schedule, sequences of 512 tokens and batches
    of 512 sequences. The experimenter chooses the number of training
    tokens per parameter; the loss on C4's validation split is reported.
  """
  conditions "30 million non-embedding parameters; Quartet end-to-end MXFP4 training"
  conditions "same optimiser, schedule and hyper-parameters as the high-precision baseline"

  input  r [1] in log 25 .. 400  "training tokens per non-embedding parameter"
  output L [1] resolution 0.0001 tolerance abs 0.001 rel 1%  "C4 validation loss, cross-entropy per token"

  param N     = 3e7     "non-embedding parameters"
  param A     = 1.52e5  "coefficient of the parameter term"
  param alpha = 0.589   "parameter exponent"
  param B     = 5.25e5  "coefficient of the data term"
  param beta  = 0.544   "data exponent"
  param E     = 1.35    "irreducible loss"
  param gamma = 0.274   "outer exponent"
  param effN  = 0.65    "parameter efficiency of the 4-bit forward pass"
  param effD  = 0.95    "data efficiency of the 4-bit backward pass"

  law L = (A / (N * effN)^alpha + B / (r * N * effD)^beta)^gamma + E

  # mutation kind: exponent change. The loss falls off half as steeply with the tokens
  # per parameter; `B` is rebalanced so that both worlds agree at 100 tokens per parameter.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   L: min 0.97, median 1, max 1
  counterfactual "exponent change: the loss falls off half as steeply with the tokens per parameter" {
    set beta = 0.272
    rebalance B at r = 100
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
