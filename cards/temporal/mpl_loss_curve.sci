# Pre-training loss of a 400M-parameter Llama-2 model versus training step, constant learning rate after a linear warm-up (Multi-Power Law)
card mpl_loss_curve "Loss curve of a language model under a constant learning rate (Multi-Power Law, 400M)" {
  collection temporal
  field      machine_learning
  source     "K. Luo, H. Wen, S. Hu, Z. Sun, Z. Liu, M. Sun, K. Lyu, W. Chen, A Multi-Power Law for Loss Curve Prediction Across Learning Rate Schedules, ICLR (2025)"
  doi        "arXiv:2503.12811"
  published  2025-05-09
  preprint   2025-03-17

  background """
    A decoder-only language model of the Llama-2 architecture with about
    400 million parameters is pre-trained from scratch. Its learning rate
    rises linearly over the first 2160 optimisation steps to 0.0003 and
    then stays at 0.0003 for the rest of the run. The training loss is
    logged every 128 steps; the experimenter picks a step after the
    warm-up and reads the logged loss there.
  """
  conditions "one run: constant learning rate 3e-4 after a 2160-step linear warm-up starting from zero"
  conditions "training loss (cross-entropy per token) as logged by the training run"

  input  t [1] in 2176 .. 23936  "optimisation step at which the loss is read"
  output L [1] resolution 0.0001 tolerance abs 0.001 rel 1%  "training loss, cross-entropy per token"

  param L0    = 2.37474466    "loss the summed-learning-rate term decays towards"
  param A     = 0.65421216    "amplitude of the summed-learning-rate power law"
  param alpha = 0.42878731    "exponent of the summed-learning-rate power law"
  param B     = 523.42464371  "amplitude of the loss-drop term"
  param C     = 2.02462735    "scale inside the loss-drop transformation"
  param beta  = 0.59350493    "exponent of the loss-drop transformation"
  param gamma = 0.63472457    "learning-rate exponent inside the loss-drop term"
  param eta   = 0.0003        "learning rate after the warm-up"
  param W     = 2160          "warm-up steps"

  # the summed learning rate to step t, with rates eta * k / W during the warm-up
  let S1 = eta * (t - (W - 1) / 2)
  # the loss-drop term: a sum over the warm-up's rising rates, written as the integral over
  # the warm-up's fraction x and evaluated by 3-point Gauss-Legendre quadrature (nodes
  # 0.5 -+ 0.5 sqrt(3/5) and 0.5, weights 5/18, 8/18, 5/18); within 0.001 of the exact sum
  let R = eta * (t - W)
  let g1 = (1 + C * (eta * 0.1127016654)^-gamma * (R + eta * W * (1 - 0.1127016654^2) / 2))^-beta
  let g2 = (1 + C * (eta * 0.5)^-gamma * (R + eta * W * (1 - 0.5^2) / 2))^-beta
  let g3 = (1 + C * (eta * 0.8872983346)^-gamma * (R + eta * W * (1 - 0.8872983346^2) / 2))^-beta
  let drop = B * eta * (1 - (5 * g1 + 8 * g2 + 5 * g3) / 18)
  law L = L0 + A * S1^-alpha + drop

  # mutation kind: exponent change. The summed-learning-rate term falls off almost twice
  # as steeply; `A` is rebalanced so that both worlds agree at step 8000.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   L: min 0.96, median 0.98, max 1.3
  counterfactual "exponent change: the loss falls off almost twice as steeply with the summed learning rate" {
    set alpha = 0.8
    rebalance A at t = 8000
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
