// Small helpers shared by the subcommands: error lines, output files, option parsing.
#pragma once

#include <boost/program_options.hpp>

#include <iosfwd>
#include <string>

#include "core/result.hpp"

namespace tilescope {

// Writes "tilescope: error: <message>" to stderr and returns `code`.
int cli_fail(int code, const std::string& message);

// Writes `text` to `path` ("" or "-" = stdout). Returns an Error naming the path on failure.
Status write_output(const std::string& path, const std::string& text);

// Parses argv with `options`; on a syntax error returns an Error with the program_options
// message. Unknown options, stray positional arguments and an empty --out are errors.
Status parse_command_line(int argc, char** argv, const boost::program_options::options_description& options,
                          boost::program_options::variables_map& vm);

// "Usage: tilescope <name> [options]" + the options.
void print_help(std::ostream& os, const std::string& usage, const boost::program_options::options_description& options);

}  // namespace tilescope
