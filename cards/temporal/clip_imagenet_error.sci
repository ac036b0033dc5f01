# Zero-shot ImageNet-1k error of the best CLIP model versus total training compute (DataComp-1.4B)
card clip_imagenet_error "Zero-shot ImageNet error versus training compute (CLIP on DataComp-1.4B)" {
  collection temporal
  field      machine_learning
  source     "M. Nezhurina, T. Porian, G. Puccetti, T. Kerssies, R. Beaumont, M. Cherti, J. Jitsev, Scaling Laws for Robust Comparison of Open Foundation Language-Vision Models and Datasets, NeurIPS (2025)"
  doi        "arXiv:2506.04598"
  published  2025-12-02
  preprint   2025-06-05

  background """
    Language-vision models are pre-trained on image-text pairs of
    DataComp-1.4B with a cosine learning-rate schedule; each is a CLIP
    model: an image encoder and a text encoder trained together with a
    contrastive loss only. Models of many sizes are trained on many
    numbers of samples, and the total training compute of a run is the
    model's compute per sample times the samples it has seen. For a
    chosen compute budget, the best run at that compute is taken and its
    zero-shot top-1 error rate on ImageNet-1k is reported.
  """
  conditions "best run per compute budget (the compute-error frontier), at most 1e10 samples seen"
  conditions "pre-training data DataComp-1.4B; cosine learning-rate schedule"

  input  C   [1] in log 1e9 .. 1e12  "total training compute, in GFLOPs"
  output err [1] resolution 0.0001 tolerance abs 0.002 rel 1%  "zero-shot ImageNet-1k top-1 error rate (fraction of images misclassified)"

  param a = 57.862083  "amplitude of the power law"
  param b = 18.391321  "compute offset, in GFLOPs"
  param c = -0.226604  "exponent of the power law"
  param d = 0.111169   "error rate left at unlimited compute"

  law err = a * (C + b)^c + d

  # mutation kind: exponent change. The error falls off more slowly with compute; `a`
  # is rebalanced so that both worlds agree at 3e10 GFLOPs.
  # worlds: counterfactual / original output ratio over the evaluation set
  #   err: min 0.81, median 1, max 1.2
  counterfactual "exponent change: the error falls off more slowly with compute" {
    set c = -0.15
    rebalance a at C = 3e10
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
