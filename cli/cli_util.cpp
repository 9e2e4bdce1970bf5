#include "cli/cli_util.hpp"

#include <fstream>
#include <iostream>

namespace po = boost::program_options;

namespace tilescope {

int cli_fail(int code, const std::string& message) {
    std::cerr << "tilescope: error: " << message << "\n";
    return code;
}

Status write_output(const std::string& path, const std::string& text) {
    if (path.empty() || path == "-") {
        std::cout << text << std::flush;
        if (!std::cout) return make_error("cannot write to standard output");
        return {};
    }
    std::ofstream out(path, std::ios::binary);
    if (!out) return make_error("--out: cannot open '" + path + "' for writing");
    out << text;
    out.close();
    if (!out) return make_error("--out: cannot write '" + path + "'");
    return {};
}

Status parse_command_line(int argc, char** argv, const po::options_description& options, po::variables_map& vm) {
    try {
        const po::positional_options_description no_positionals;  // stray words are errors
        // No guessing of abbreviations: `compare --m 5` must be an unknown option, not --model 5.
        const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
        po::store(po::command_line_parser(argc, argv).options(options).positional(no_positionals).style(style).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        return make_error(e.what());
    }
    // An empty --out would quietly mean standard output: refused like any other empty value.
    if (vm.count("out") != 0 && !vm["out"].defaulted() && vm["out"].as<std::string>().empty())
        return make_error("--out has an empty value");
    return {};
}

void print_help(std::ostream& os, const std::string& usage, const po::options_description& options) {
    os << "Usage: " << usage << "\n\n" << options << "\n";
}

}  // namespace tilescope
