// AscendOptimizer CPU twin: the program's main for a sample's own main.cpp, linked only by
// cpu_twin/build.py `build_main`, which compiles main.cpp with -Dmain=ascendopt_twin_user_main.
// It concludes with _exit once main.cpp's main returns: the evidence is final before any static
// destructor or atexit handler could run.
#include "twin_internal.h"

int ascendopt_twin_user_main(int argc, char **argv) __attribute__((weak));
int ascendopt_twin_user_main() __attribute__((weak));

int main(int argc, char **argv)
{
    ascendopt_twin::cpu::Init();
    int (*with_args)(int, char **) = ascendopt_twin_user_main;
    int (*without)() = ascendopt_twin_user_main;
    int code = with_args ? with_args(argc, argv) : without ? without() : 0;
    ascendopt_twin::cpu::Conclude(code);
}
