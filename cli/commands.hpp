// Subcommands of `tilescope`. Each takes the arguments after the subcommand name (argv[0] is the
// subcommand) and returns the process exit code: 0 ok, 2 bad input, 3 no GPU / no profiling
// permission, 1 internal failure. Errors go to stderr as one line "tilescope: error: ...".
#pragma once

namespace tilescope {

int run_predict(int argc, char** argv);   // cli/cmd_predict.cpp
int run_compare(int argc, char** argv);   // cli/cmd_compare.cpp
int run_sweep(int argc, char** argv);     // cli/cmd_sweep.cpp
int run_profiles(int argc, char** argv);  // cli/cmd_profiles.cpp
int run_bench(int argc, char** argv);     // cli/cmd_bench.cpp
int run_trace(int argc, char** argv);     // cli/cmd_trace.cpp (simulator; TILESCOPE_HAVE_TRACE)
int run_measure(int argc, char** argv);   // cli/cmd_measure.cpp (kernels; TILESCOPE_HAVE_CUDA)
int run_calibrate(int argc, char** argv); // cli/cmd_calibrate.cpp (TILESCOPE_HAVE_VALIDATE)
int run_validate(int argc, char** argv);  // cli/cmd_validate.cpp (TILESCOPE_HAVE_VALIDATE)

}  // namespace tilescope
