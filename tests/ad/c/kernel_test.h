/* The one header of the shared kernel corpus tests/ad/c/NAME.c.
 *
 * Each program holds its kernel once and a driver per mode, chosen at compile
 * time: by default the reverse-mode driver (__enzyme_autodiff; with
 * -DREFERENCE_GRADIENT a hand-written gradient instead), with -DFORWARD_MODE
 * the forward-mode one (__enzyme_fwddiff).  tests/ad/test_c_programs.py builds
 * the first, tests/ad/forward/test_fwd_c_programs.py the second.
 */
#ifndef KERNEL_TEST_H
#define KERNEL_TEST_H

#ifdef FORWARD_MODE
#include "../forward/c/fwd_test.h"
#else
#include "enzyme_test.h"
#endif

#endif /* KERNEL_TEST_H */
