# Validation cross-entropy of a distilled student versus its parameters, its distillation tokens and the size of a compute-optimal teacher (distillation scaling law)
card distill_student "Cross-entropy of a distilled student versus student size, tokens and teacher size (English C4)" {
  collection temporal
  field      machine_learning
  source     "D. Busbridge, A. Shidani, F. Weers, J. Ramapuram, E. Littwin, R. Webb, Distillation Scaling Laws, ICML (2025)"
  doi        "arXiv:2502.08606"
  published  2025-07-25
  preprint   2025-02-12

  background """
    A teacher language model is first trained in the supervised way on
    the English-only subset of C4, on 20 tokens per parameter. A student
    model is then trained on C4 text purely by distillation: it learns
    to match the teacher's predicted token distribution at temperature
    1, with no weight on the data's own next tokens. The experimenter
    chooses the student's parameters, the number of distillation tokens
    and the teacher's parameters; the student's validation cross-entropy
    against the data is reported.
  """
  conditions "pure distillation (no supervised loss term), temperature 1"
  conditions "teachers trained on 20 tokens per parameter; English C4, sequence length 4096"

  input  Ns [1] in log 1.43e8 .. 7.75e9  "student parameters"
  input  Ds [1] in log 8e9 .. 5.12e11    "distillation tokens"
  input  Nt [1] in log 5.46e8 .. 7.75e9  "teacher parameters"
  output Ls [1] resolution 0.0001 tolerance abs 0.001 rel 1%  "student validation cross-entropy against the data, nats per token"

  # the supervised law (with its own constants) gives the teacher's cross-entropy and the
  # cross-entropy the student would reach if it were trained on the data itself
  param E      = 1.220  "supervised law: irreducible cross-entropy"
  param A      = 3355   "supervised law: coefficient of the parameter term"
  param B      = 18186  "supervised law: coefficient of the data term"
  param alpha  = 0.408  "supervised law: parameter exponent"
  param beta   = 0.431  "supervised law: data exponent"
  param gamma  = 0.452  "supervised law: outer exponent"
  param A2     = 2243   "distillation law: coefficient of the student-size term"
  param B2     = 24181  "distillation law: coefficient of the distillation-data term"
  param alpha2 = 0.321  "distillation law: student-size exponent"
  param beta2  = 0.637  "distillation law: distillation-data exponent"
  param gamma2 = 0.764  "distillation law: outer exponent"
  param c0     = 2.549  "exponent of the teacher's cross-entropy"
  param c1     = 522.6  "strength of the capacity-gap transition"
  param f1     = 0.090  "sharpness of the capacity-gap transition"
  param d1     = 1.315  "teacher-to-student cross-entropy ratio at the transition"

  let Lt = E + (A / Nt^alpha + B / (20 * Nt)^beta)^gamma
  let Lsup = E + (A / Ns^alpha + B / Ds^beta)^gamma
  let gap = (1 + (Lt / (Lsup * d1))^(1 / f1))^(-c1 * f1)
  law Ls = Lt + Lt^-c0 * gap * (A2 / Ns^alpha2 + B2 / Ds^beta2)^gamma2

  # mutation kind: replaced law. The broken power law in the teacher's cross-entropy is
  # gone: a student keeps its full excess over the teacher even where the teacher is
  # weaker than the student would be if trained on the data alone.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   Ls: min 1, median 1.1, max 1.1
  counterfactual "replaced law: no transition where the teacher is weaker than the student alone" {
    let gap = 1
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
