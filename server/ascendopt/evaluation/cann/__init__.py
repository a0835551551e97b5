"""The CANN toolchain: msOpGen and kernel-launch builds, a test driver, msprof op profiling."""
