# Validation loss of a sparse (mixture-of-experts) early-fusion multimodal model versus active parameters and training tokens
card nmm_moe_loss "Loss of a sparse native multimodal model versus active parameters and tokens (early fusion, 8 experts)" {
  collection temporal
  field      machine_learning
  source     "M. Shukor, E. Fini, V. G. Turrisi da Costa, M. Cord, J. Susskind, A. El-Nouby, Scaling Laws for Native Multimodal Models, ICCV (2025)"
  doi        "arXiv:2504.07951"
  published  2025-10-19
  preprint   2025-04-10

  background """
    A multimodal decoder is trained from scratch on images and text
    together (early fusion: image patches of 14 by 14 pixels from
    224-pixel images enter the same transformer as the text tokens, with
    no separate vision encoder). Its feed-forward layers are a mixture of
    8 experts, and each token is routed to one of them. Training uses a
    constant learning rate followed by a cool-down, on a mixture of 45%
    image captions, 45% interleaved image-text documents and 10% text.
    The experimenter chooses the number of active parameters (those used
    for each token) and the number of training tokens; the validation
    loss, averaged over interleaved, image-caption and text-only
    held-out sets, is reported.
  """
  conditions "top-1 routing among 8 experts; depth fixed at 24 layers, width varied"
  conditions "1k-token context; 45/45/10 caption, interleaved and text mixture"

  input  N [1] in log 2.75e8 .. 3.35e9  "active parameters of the decoder"
  input  D [1] in log 2.5e9 .. 6e11     "training tokens (all modalities)"
  output L [1] resolution 0.0001 tolerance abs 0.001 rel 1%  "validation loss averaged over the three held-out sets, cross-entropy per token"

  param E     = 2.158   "loss at unlimited parameters and data"
  param A     = 381773  "coefficient of the parameter term"
  param B     = 4659    "coefficient of the data term"
  param alpha = 0.710   "parameter exponent"
  param beta  = 0.372   "data exponent"

  law L = E + A / N^alpha + B / D^beta

  # mutation kind: exponent change. The loss falls half as steeply with the active
  # parameters; `A` is rebalanced so that both worlds agree at 1e9 active parameters.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   L: min 0.95, median 1, max 1
  counterfactual "exponent change: the loss falls half as steeply with active parameters" {
    set alpha = 0.355
    rebalance A at N = 1e9
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
