"""The suites run.py knows, each a function rng_for -> [Case]."""

import os

from . import (autodiff, bits, elementwise, examples, fp8, fp8_composites, indexing, matmul, norm_family, normalization, random_ops, reductions,
               scans, scatters, shapes, training, views)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

SUITES = {
    "autodiff": autodiff.cases,
    "autodiff-residuals": autodiff.residual_cases,
    "elementwise": elementwise.op_cases,
    "cast": elementwise.cast_cases,
    "fp8": lambda rng_for: fp8.cases(rng_for) + fp8_composites.cases(rng_for),
    "bits": bits.cases,
    "shapes": shapes.cases,
    "indexing": indexing.cases,
    "matmul": matmul.cases,
    "scans": scans.cases,
    "scatters": scatters.cases,
    "views": views.cases,
    "reductions": reductions.cases,
    "sweep": reductions.sweep_cases,
    "normalization": normalization.cases,
    "normalization-sweep": normalization.sweep_cases,
    "normalization-outer": normalization.outer_cases,
    "examples": lambda rng_for: examples.cases(rng_for, ROOT),
    "random": random_ops.cases,
    "training": training.cases,
    "training-norm": training.norm_cases,
    "training-norm-f32": training.norm_f32_cases,
    "training-norm-misaligned": training.norm_misaligned_cases,
    "training-misaligned": training.misaligned_cases,
    "training-sweep": training.sweep_cases,
    "norm-family": norm_family.forward_cases,
    "norm-family-backward": norm_family.backward_cases,
    "norm-family-bn-backward": norm_family.batch_norm_backward_cases,
}
