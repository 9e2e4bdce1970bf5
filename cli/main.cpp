// tilescope: dispatches argv[1] to a subcommand (cli/commands.hpp).
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "cli/commands.hpp"

namespace {

#ifndef TILESCOPE_HAVE_CUDA
// Measuring needs the kernels library, which is built only when CMake finds a CUDA toolkit.
// Exit code 3 is the CLI's "no GPU / no profiling" code, so scripts treat both alike.
int run_measure_without_cuda(int, char**) {
    std::cerr << "tilescope: error: measure needs a build with CUDA (this one was configured without "
                 "a CUDA toolkit; reconfigure with -DTILESCOPE_ENABLE_CUDA=ON)\n";
    return 3;
}
#endif

struct Command {
    const char* name;
    int (*run)(int, char**);
    const char* summary;
};

const Command kCommands[] = {
    {"predict", tilescope::run_predict, "predict bytes per level and time of one workload on one GPU"},
    {"compare", tilescope::run_compare, "naive vs fused attention side by side, with the IO formulas"},
    {"sweep", tilescope::run_sweep, "predict a cartesian product of shapes/tiles (CSV or JSONL)"},
    {"profiles", tilescope::run_profiles, "list the bundled GPU profiles"},
    {"bench", tilescope::run_bench, "predictions per second of a model on one core"},
#ifdef TILESCOPE_HAVE_TRACE
    {"trace", tilescope::run_trace, "simulate and write a Chrome/Perfetto trace"},
#endif
#ifdef TILESCOPE_HAVE_CUDA
    {"measure", tilescope::run_measure, "run the real CUDA kernels and measure them with CUPTI"},
#else
    {"measure", run_measure_without_cuda, "run the real CUDA kernels (this build has no CUDA: exits 3)"},
#endif
#ifdef TILESCOPE_HAVE_VALIDATE
    {"calibrate", tilescope::run_calibrate, "fit the simulator's free parameters to measurements"},
    {"validate", tilescope::run_validate, "compare predictions with measurements"},
#endif
};

void usage(std::ostream& os) {
    os << "Usage: tilescope <command> [options]   (tilescope <command> --help for its options)\n\nCommands:\n";
    for (const Command& c : kCommands) {
        std::string name = c.name;
        name.resize(12, ' ');
        os << "  " << name << c.summary << "\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(std::cerr);
        std::cerr << "tilescope: error: no command given\n";
        return 2;
    }
    const std::string cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        usage(std::cout);
        return 0;
    }
    if (cmd == "--version" || cmd == "version") {
        std::cout << "tilescope " << TILESCOPE_VERSION << " (configured at commit " << TILESCOPE_CLI_COMMIT << ")\n";
        return 0;
    }
    for (const Command& c : kCommands) {
        if (cmd == c.name) {
            try {
                return c.run(argc - 1, argv + 1);
            } catch (const std::exception& e) {
                std::cerr << "tilescope: error: internal failure: " << e.what() << "\n";
                return 1;
            }
        }
    }
    std::cerr << "tilescope: error: unknown command '" << cmd << "' (tilescope --help lists them)\n";
    return 2;
}
