"""Writes the .npy seeds of fuzz_npy: every dtype fuser reads, ranks 0 to 3,
empty, Fortran order, big-endian, header versions 1 to 3, and a dtype fuser
does not read.  Usage: npy_seeds.py DIR (needs numpy: python3-numpy)."""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
arrays = {
    "f32_2x3": np.arange(6, dtype="<f4").reshape(2, 3),
    "f16_3": np.array([1, -2, 65504], dtype="<f2"),
    "f64_fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    "f32_big_endian": np.arange(4, dtype=">f4"),
    "bool_1x2": np.array([[True, False]]),
    "i8_6": np.arange(-3, 3, dtype="i1"),
    "i32_scalar": np.array(7, dtype="<i4"),
    "i64_empty": np.zeros((0, 3), dtype="<i8"),
    "u16_unsupported": np.arange(3, dtype="<u2"),
    "f32_2x1x2": np.ones((2, 1, 2), dtype="<f4"),
}
for name, a in arrays.items():
    np.save(os.path.join(out, name + ".npy"), a)
for version in [(2, 0), (3, 0)]:
    with open(os.path.join(out, "f32_v%d.npy" % version[0]), "wb") as f:
        np.lib.format.write_array(f, np.arange(3, dtype="<f4"), version=version)
