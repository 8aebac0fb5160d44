"""Reference .npy and .npz files made by numpy, for tensor/npy_test.go and
hvp/params_npz_test.go. Run with Debian's python (numpy 1.24):

    /usr/bin/python3 tensor/testdata/gen_npy_ref.py

It writes into tensor/testdata:
  ref_f8.npy         float64 [2, 3], C order: arange(6) / 4 - 0.5
  ref_f8_fortran.npy float64 [2, 3, 2], Fortran order: arange(12).reshape(2, 3, 2) * 1.5
  ref_f8_be.npy      float64 [4], big-endian: [1, -2, 3.25, 1e300]
  ref_c16.npy        complex128 [2, 2]: [[1+2j, -3j], [0.5, 4-1j]]
  ref_scalar.npy     float64 0-d: 2.5
  ref_empty.npy      float64 [0, 3]
  ref_f4.npy         float32 [2]: [1, 2]
  ref_f4_be.npy      float32 [3], big-endian: [0.1, -2.5, 3e38]
  ref_c8.npy         complex64 [2, 1]: [[1+2j], [-0.5j]]
  ref_i8.npy         int64 [2] (a dtype LoadNPY refuses)
  ref_params.npz     numpy.savez of arr_0 = ref_f8, arr_1 = [1, 2, 3], arr_2 = ref_c16
  ref_params_compressed.npz  numpy.savez_compressed with names w = ref_f8, b = [1, 2, 3]
and prints numpy's version.
"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(here, name)


f8 = np.arange(6, dtype=np.float64).reshape(2, 3) / 4 - 0.5
np.save(path("ref_f8.npy"), f8)
np.save(path("ref_f8_fortran.npy"), np.asfortranarray(np.arange(12, dtype=np.float64).reshape(2, 3, 2) * 1.5))
np.save(path("ref_f8_be.npy"), np.array([1, -2, 3.25, 1e300], dtype=">f8"))
c16 = np.array([[1 + 2j, -3j], [0.5, 4 - 1j]], dtype=np.complex128)
np.save(path("ref_c16.npy"), c16)
np.save(path("ref_scalar.npy"), np.float64(2.5))
np.save(path("ref_empty.npy"), np.zeros((0, 3)))
np.save(path("ref_f4.npy"), np.array([1, 2], dtype=np.float32))
np.save(path("ref_f4_be.npy"), np.array([0.1, -2.5, 3e38], dtype=">f4"))
np.save(path("ref_c8.npy"), np.array([[1 + 2j], [-0.5j]], dtype=np.complex64))
np.save(path("ref_i8.npy"), np.array([1, 2], dtype="<i8"))
np.savez(path("ref_params.npz"), f8, np.array([1.0, 2.0, 3.0]), c16)
np.savez_compressed(path("ref_params_compressed.npz"), w=f8, b=np.array([1.0, 2.0, 3.0]))
print("numpy", np.__version__)
