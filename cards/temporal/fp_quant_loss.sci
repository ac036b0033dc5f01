# Validation loss of a language model trained in low-precision floating point versus size, data, exponent and mantissa bits and scaling block size (Capybara law)
card fp_quant_loss "Loss of floating-point quantised training versus size, data, format and block size (Capybara)" {
  collection temporal
  field      machine_learning
  source     "X. Sun, S. Li, R. Xie, W. Han, K. Wu, Z. Yang, Y. Li, A. Wang, S. Li, J. Xue, Y. Cheng, Y. Tao, Z. Kang, C. Xu, D. Wang, J. Jiang, Scaling Laws for Floating-Point Quantization Training, ICML (2025)"
  doi        "arXiv:2501.02423"
  published  2025-06-04
  preprint   2025-01-05

  background """
    LLaMA-architecture language models are pre-trained on a subset of
    Dolma V1.7 with a cosine learning-rate schedule. During training,
    the tensors the paper's quantisation targets P2, P4 and P6 name are
    cast to a low-precision floating-point format with one sign bit, E
    exponent bits and M mantissa bits (IEEE 754 style, with subnormal
    numbers). Before the cast, every block of B consecutive elements
    along the channel dimension is multiplied by one shared
    higher-precision scaling factor. The experimenter chooses the number
    of parameters, the number of training tokens, E, M and B; the
    validation loss is reported after training.
  """
  conditions "quantisation targets P2, P4 and P6 of the paper; everything else in high precision"
  conditions "the paper's hyper-parameters per size: AdamW, cosine decay, maximum learning rate 3e-4, sequence length 2048, 2M-token batches"

  input  N [1] in log 4.09e7 .. 6.79e8      "model parameters"
  input  D [1] in log 1.049e10 .. 1.048e11  "training tokens"
  input  E [1] integer in 1 .. 6            "exponent bits of the format"
  input  M [1] integer in 1 .. 6            "mantissa bits of the format"
  input  B [1] in {32, 64, 128, 256, 512}   "block size: elements sharing one scaling factor"
  output L [1] resolution 0.0001 tolerance abs 0.001 rel 1%  "validation loss, cross-entropy per token"
  constraint E + M <= 9  "no format with more than 9 exponent and mantissa bits was trained"

  param n     = 69.2343     "coefficient of the model-size term"
  param alpha = 0.2368      "model-size exponent"
  param d     = 68973.0621  "coefficient of the data term"
  param beta  = 0.5162      "data exponent"
  param eps   = 1.9061      "loss left at unlimited size and data"
  param gam   = 11334.5197  "scale of the low-precision term"
  param delta = 3.1926      "exponent-bits exponent"
  param nu    = 2.9543      "mantissa-bits exponent"

  # the low-precision term: the model's "knowledge intensity" D^beta / N^alpha times the
  # information lost by the format and its scaling blocks (log2 B written as ln B / ln 2)
  let K = D^beta / N^alpha
  law L = n / N^alpha + d / D^beta + eps + K * (log(B) / log(2)) / (gam * (E + 0.5)^delta * (M + 0.5)^nu)

  # mutation kind: replaced law. The low-precision penalty no longer grows with the data
  # per parameter: it is fixed at its value for 1.67e8 parameters and 3.2e10 tokens.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   L: min 0.96, median 1, max 1
  counterfactual "replaced law: the low-precision penalty does not depend on model size or data" {
    let K = 3.2e10^beta / 1.67e8^alpha
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
