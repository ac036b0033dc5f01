# Pre-training loss of a language model versus its non-embedding parameters and its number of parallel streams (Stack-V2 Python)
card parscale_stack "Loss versus parameters and parallel streams of a language model (ParScale, Stack-V2 Python)" {
  collection temporal
  field      machine_learning
  source     "M. Chen, B. Hui, Z. Cui, J. Yang, D. Liu, J. Sun, J. Lin, Z. Liu, Parallel Scaling Law for Language Models, NeurIPS (2025)"
  doi        "arXiv:2505.10475"
  published  2025-12-02
  preprint   2025-05-15

  background """
    Transformer language models are pre-trained from scratch on 42
    billion tokens of Stack-V2 (Python). The experimenter chooses the model's number
    of non-embedding parameters and the number P of parallel streams the
    model runs over the same parameters for every token. After training,
    the loss on held-out text of the same corpus is reported.
  """
  conditions "fixed training budget of 42 billion tokens"
  conditions "one training run per setting; parameters counted without the embeddings"

  input  N [1] in log 5.358e8 .. 4.415e9  "non-embedding parameters"
  input  P [1] in {1, 2, 4, 8}            "number of parallel streams"
  output L [1] resolution 0.0001 tolerance abs 0.001 rel 1%  "held-out loss, cross-entropy per token"

  param E     = 0.6912   "loss at unlimited effective size"
  param A     = 1.131e7  "parameter scale of the power law"
  param k     = 0.3935   "gain in effective parameters per unit of ln P"
  param alpha = 0.1894   "exponent of the power law"

  let Neff = N * (k * log(P) + 1)
  law L = E + (A / Neff)^alpha

  # mutation kind: replaced law. Each parallel stream counts as a full copy of the
  # parameters: P streams act like P times the parameters, not 1 + k ln P times.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   L: min 0.91, median 0.95, max 1
  counterfactual "replaced law: P parallel streams are worth P times the parameters" {
    let Neff = N * P
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
