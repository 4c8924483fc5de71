#!/usr/bin/env python3
# Generates the .npy fixtures read by tests/emulator/test_npy.cpp. It was run once (with
# NumPy 2.4) and its output is checked in, so the tests never need NumPy; run
# it again only to add fixtures:  python3 tests/data/make_fixtures.py
# It also prints u32_4x8.npy as the C++ byte literal embedded in the test.
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def save(name, arr, version=None):
    with open(os.path.join(here, name), "wb") as f:
        np.lib.format.write_array(f, arr, version=version, allow_pickle=False)


save("u32_4x8.npy", np.arange(32, dtype="<u4").reshape(4, 8))
save("c128_3.npy", np.array([1 + 2j, -0.5, 3.25 - 4j], dtype="<c16"))
save("f8_scalar.npy", np.array(2.5, dtype="<f8"))
save("i32_3_v2.npy", np.array([-1, 0, 7], dtype="<i4"), version=(2, 0))
# Rejected by hcube: big-endian, Fortran order, and a dtype it does not hold.
save("f8_big_endian.npy", np.arange(4, dtype=">f8"))
save("f4_fortran_2x3.npy", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
save("i8_5.npy", np.arange(5, dtype="<i8"))

raw = open(os.path.join(here, "u32_4x8.npy"), "rb").read()
print("const unsigned char kNumpyU32x4x8[] = {")
for i in range(0, len(raw), 16):
    print("    " + " ".join("0x%02x," % b for b in raw[i:i + 16]))
print("};")
