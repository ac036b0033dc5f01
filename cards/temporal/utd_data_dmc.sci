# Environment steps a value-based agent needs to reach a return threshold versus the updates-to-data ratio (BRO on DeepMind Control)
card utd_data_dmc "Data needed to reach a return threshold versus the updates-to-data ratio (BRO, DeepMind Control)" {
  collection temporal
  field      machine_learning
  source     "O. Rybkin, M. Nauman, P. Fu, C. Snell, P. Abbeel, S. Levine, A. Kumar, Value-Based Deep RL Scales Predictably, ICML (2025)"
  doi        "arXiv:2502.04327"
  published  2025-06-18
  preprint   2025-02-06

  background """
    An off-policy value-based agent (BRO, with a critic of about 4.9
    million parameters) learns tasks of the DeepMind Control suite. Before training, the experimenter sets the
    updates-to-data ratio: how many gradient updates the agent makes for
    each step it takes in the environment. Each task's return curve is
    smoothed by isotonic regression, and the environment step at which it
    first reaches 800 on a scale of 1000 is recorded. The steps are
    normalised per task, averaged over the tasks and scaled back, giving
    one number per ratio: the data needed to reach that return.
  """
  conditions "aggregate over the suite's tasks, each normalised by its median"
  conditions "batch size and learning rate retuned for each ratio, as in the source's sweep"
  conditions "return threshold 800 of 1000"

  input  sigma [1] in log 0.25 .. 8  "updates-to-data ratio (gradient updates per environment step)"
  output D     [1] resolution 100 tolerance abs 500 rel 1%  "environment steps needed to reach the return threshold"

  param Dinf = 7.98e4  "data needed at a very large ratio, in environment steps"
  param c    = 1.1001  "asymptote of the normalised fit"
  param b    = 0.5739  "ratio scale of the power-law term"
  param a    = 1.0896  "exponent of the power-law term"

  let m = Dinf / c
  law D = m * (c + (sigma / b)^-a)

  # mutation kind: exponent change. The extra data falls off half as steeply with the
  # ratio; both worlds agree where the ratio equals b.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   D: min 0.75, median 1.2, max 1.2
  counterfactual "exponent change: the extra data falls off half as steeply with the ratio" {
    set a = 0.55
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
